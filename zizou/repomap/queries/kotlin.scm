; Kotlin. The grammar has no field names, so patterns are positional.

(class_declaration (type_identifier) @definition.class)
(object_declaration (type_identifier) @definition.class)
(function_declaration (simple_identifier) @definition.function)
(type_alias (type_identifier) @definition.type)
(source_file (property_declaration (variable_declaration (simple_identifier) @definition.constant)))

(call_expression (simple_identifier) @reference.call)
(navigation_suffix (simple_identifier) @reference.weak)
(user_type (type_identifier) @reference.type)
(import_header (identifier (simple_identifier) @reference.import .))
