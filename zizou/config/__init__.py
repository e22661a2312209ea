"""User configuration: settings, keys, and choosing the model a session talks to."""
