; Ruby.

(class name: (constant) @definition.class)
(module name: (constant) @definition.module)
(method name: (_) @definition.method)
(singleton_method name: (_) @definition.method)
(assignment left: (constant) @definition.constant)

(call !receiver method: (identifier) @reference.call)
(call receiver: (constant) method: (identifier) @reference.call)
(call receiver: (_) method: (identifier) @reference.weak)
(constant) @reference.constant
