"""Modal screens: approvals, link confirmation, the prompt viewer, rules and the model picker."""
