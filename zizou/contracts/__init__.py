"""The contracts every layer above speaks: events, protocols (the seams), messages and the
conversation, the session state (workspace windows, task state), the instruction files. Types
and pure functions; nothing here imports tools, the agent, Textual or litellm."""
