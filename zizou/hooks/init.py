"""`/init`, built as a hook: a turn that explores the project read-only and writes ZIZOU.md,
the project's instructions for zizou, only once the user approved the file.

The turn's user message starts with INIT_REQUEST. For that turn only, the hook adds what to
write to the HOOKS layer, offers only the tools that read and `write_file`, refuses a write to
any other file, and asks the user before ZIZOU.md is written (the approval shows the file),
even where a rule or `--yes` would let the write run.
"""

from __future__ import annotations

from typing import Any

from zizou.contracts.protocols import PolicyVerdict
from zizou.hooks.api import Prompt, PromptContext, StepModifier, ToolCallInfo, ask, deny
from zizou.hooks.runtime import HookSource

NAME = "builtin:init"
TARGET = "ZIZOU.md"
INIT_REQUEST = "Write ZIZOU.md for this project (/init)."
INIT_TEXT = f"""\
The user asked for {TARGET}: the instructions zizou reads at the start of every session in
this project. Explore first, read-only: the layout (list_dir, glob, repo_map), the README, the
build and test configuration (pyproject.toml, package.json, Makefile, CI files), a few central
modules. Then write {TARGET} at the project root with write_file, once, in Markdown, at most
about 60 lines: what the project is (two sentences); how to set it up, build, run and test it
(the exact commands); the layout (the main directories and what lives where); the conventions
a change must follow (style, naming, error handling, tests) as you found them in the code. Say
only what you found; do not invent commands. If {TARGET} exists, read it and improve it rather
than start over. The user approves the file before it is written."""
WHY = f"/init explores read-only and writes only {TARGET}"


def init_hook() -> HookSource:
    """The built-in `/init` hook."""

    def render(p: Prompt) -> None:
        if not p.ctx.user_message.startswith(INIT_REQUEST):
            return
        p.system("INIT", INIT_TEXT)
        p.effect(_explore_then_write)
        p.before_tool(_only_zizou_md)

    return HookSource(NAME, "builtin", "python", render=render)


def _explore_then_write(ctx: PromptContext, step: StepModifier) -> None:
    keep = [tool.name for tool in ctx.tools if tool.access == "read" or tool.name == "write_file"]
    step("tools", keep, why=WHY)


def _only_zizou_md(call: ToolCallInfo, ctx: Any) -> PolicyVerdict | None:
    if call.name != "write_file":
        return None
    path = str(call.arguments.get("path", "")).removeprefix("./")
    if path != TARGET:
        return deny(f"/init writes only {TARGET}, at the project root")
    return ask(f"/init: review {TARGET} before it is written")


__all__ = ["INIT_REQUEST", "NAME", "TARGET", "init_hook"]
