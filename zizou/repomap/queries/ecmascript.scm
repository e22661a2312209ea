; What JavaScript, TypeScript and TSX share (their grammars name these nodes alike).

(class_declaration name: (_) @definition.class)
(function_declaration name: (identifier) @definition.function)
(generator_function_declaration name: (identifier) @definition.function)
(method_definition name: (property_identifier) @definition.method)
(variable_declarator
  name: (identifier) @definition.function
  value: [(arrow_function) (function_expression) (class)])
(pair
  key: (property_identifier) @definition.function
  value: [(arrow_function) (function_expression)])
(assignment_expression
  left: (member_expression property: (property_identifier) @definition.function)
  right: [(arrow_function) (function_expression)])

(call_expression function: (identifier) @reference.call)
(new_expression constructor: (identifier) @reference.class)
(new_expression constructor: (member_expression property: (property_identifier) @reference.class))
(member_expression property: (property_identifier) @reference.weak)
(import_specifier name: (identifier) @reference.import)
(arguments (identifier) @reference.weak)
