; JSX components used as elements (JavaScript and TSX).

(jsx_opening_element name: (identifier) @reference.component)
(jsx_self_closing_element name: (identifier) @reference.component)
(jsx_expression (identifier) @reference.weak)
