"""The session kernel: `assembly.build_session` puts a session together from `RunOptions` and
an approver; a `kernel.Session` owns its state and offers the operations every front end
performs. Import them from those modules: this package imports nothing, so that a front end
naming `Session` as a type does not load the whole assembly."""
