; C++ (and .h headers).

(function_declarator declarator: (identifier) @definition.function)
(function_declarator declarator: (field_identifier) @definition.method)
(function_declarator declarator: (qualified_identifier name: (identifier) @definition.method))
(class_specifier name: (type_identifier) @definition.class body: (_))
(struct_specifier name: (type_identifier) @definition.struct body: (_))
(union_specifier name: (type_identifier) @definition.union body: (_))
(enum_specifier name: (type_identifier) @definition.enum body: (_))
(type_definition declarator: (type_identifier) @definition.type)
(alias_declaration name: (type_identifier) @definition.type)
(namespace_definition name: (namespace_identifier) @definition.module)
(preproc_def name: (identifier) @definition.macro)
(preproc_function_def name: (identifier) @definition.macro)

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.weak))
(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(type_identifier) @reference.type
(namespace_identifier) @reference.namespace
(argument_list (identifier) @reference.weak)
