; Java.

(class_declaration name: (identifier) @definition.class)
(interface_declaration name: (identifier) @definition.interface)
(enum_declaration name: (identifier) @definition.enum)
(record_declaration name: (identifier) @definition.class)
(annotation_type_declaration name: (identifier) @definition.interface)
(method_declaration name: (identifier) @definition.method)
(constructor_declaration name: (identifier) @definition.method)

(method_invocation !object name: (identifier) @reference.call)
(method_invocation object: (_) name: (identifier) @reference.weak)
(method_reference (identifier) @reference.call)
(type_identifier) @reference.type
(field_access field: (identifier) @reference.weak)
(marker_annotation name: (identifier) @reference.annotation)
(annotation name: (identifier) @reference.annotation)
(import_declaration (scoped_identifier name: (identifier) @reference.import))
