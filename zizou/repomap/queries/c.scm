; C. (.h files are parsed as C++, which reads C headers too.)

(function_declarator declarator: (identifier) @definition.function)
(struct_specifier name: (type_identifier) @definition.struct body: (_))
(union_specifier name: (type_identifier) @definition.union body: (_))
(enum_specifier name: (type_identifier) @definition.enum body: (_))
(type_definition declarator: (type_identifier) @definition.type)
(preproc_def name: (identifier) @definition.macro)
(preproc_function_def name: (identifier) @definition.macro)

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.weak))
(type_identifier) @reference.type
(argument_list (identifier) @reference.weak)
