; Go.

(function_declaration name: (identifier) @definition.function)
(method_declaration name: (field_identifier) @definition.method)
(type_spec name: (type_identifier) @definition.type)
(type_alias name: (type_identifier) @definition.type)
(method_elem name: (field_identifier) @definition.method)
(source_file (const_declaration (const_spec name: (identifier) @definition.constant)))
(source_file (var_declaration (var_spec name: (identifier) @definition.variable)))

(call_expression function: (identifier) @reference.call)
(selector_expression field: (field_identifier) @reference.weak)
(type_identifier) @reference.type
(argument_list (identifier) @reference.weak)
