"""The agent core: loop, prompt, permissions, events. Never imports Textual or litellm."""
