"""zizou's hooks: render functions run before every model step, with state kept across steps,
effects that run when their dependencies change, and step modifiers that shape exactly what the
next request holds. A hook file imports what it needs from here; nothing else of zizou is part
of the hook API. See context.md ("Hooks") and examples/hooks/.
"""

from zizou.hooks.api import (
    Handle,
    HookError,
    LastTool,
    Prompt,
    PromptContext,
    StepModifier,
    ToolCallInfo,
    ToolInfo,
    Tools,
    ask,
    before_tool,
    def_state,
    deny,
    effect,
)

__all__ = [
    "Handle",
    "HookError",
    "LastTool",
    "Prompt",
    "PromptContext",
    "StepModifier",
    "ToolCallInfo",
    "ToolInfo",
    "Tools",
    "ask",
    "before_tool",
    "def_state",
    "deny",
    "effect",
]
