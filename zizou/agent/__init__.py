"""The agent: the step loop, tool calls and their gates, the prompt, permissions, spending and
the runaway guards. Built on the contracts; never imports Textual, the front ends or litellm."""
