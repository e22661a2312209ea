; Rust.

(function_item name: (identifier) @definition.function)
(function_signature_item name: (identifier) @definition.function)
(struct_item name: (type_identifier) @definition.struct)
(enum_item name: (type_identifier) @definition.enum)
(union_item name: (type_identifier) @definition.union)
(trait_item name: (type_identifier) @definition.trait)
(type_item name: (type_identifier) @definition.type)
(const_item name: (identifier) @definition.constant)
(static_item name: (identifier) @definition.constant)
(mod_item name: (identifier) @definition.module)
(macro_definition name: (identifier) @definition.macro)

(call_expression function: (identifier) @reference.call)
(call_expression function: (scoped_identifier name: (identifier) @reference.call))
(scoped_identifier path: (identifier) @reference.path)
(field_expression field: (field_identifier) @reference.weak)
(macro_invocation macro: (identifier) @reference.macro)
(type_identifier) @reference.type
(use_declaration argument: (scoped_identifier name: (identifier) @reference.import))
(use_list (identifier) @reference.import)
(arguments (identifier) @reference.weak)
