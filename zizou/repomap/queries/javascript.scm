; JavaScript-only patterns (TypeScript nests `extends` in an extends_clause instead).

(class_heritage (identifier) @reference.class)
(class_heritage (member_expression property: (property_identifier) @reference.class))
