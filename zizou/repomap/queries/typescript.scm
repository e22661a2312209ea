; TypeScript-only declarations and type references (TS and TSX add this to javascript.scm).

(interface_declaration name: (type_identifier) @definition.interface)
(type_alias_declaration name: (type_identifier) @definition.type)
(enum_declaration name: (identifier) @definition.enum)
(abstract_class_declaration name: (type_identifier) @definition.class)
(function_signature name: (identifier) @definition.function)
(method_signature name: (property_identifier) @definition.method)
(abstract_method_signature name: (property_identifier) @definition.method)
(internal_module name: (identifier) @definition.module)

(type_identifier) @reference.type
(extends_clause value: (identifier) @reference.class)
