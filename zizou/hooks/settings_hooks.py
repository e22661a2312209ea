"""The `hooks` of another agent's settings (Claude Code's `.claude/settings.json`), run as
zizou hooks.

Each command of the settings becomes one hook source (`.claude/settings.json#PreToolUse.1`)
with a render of its own, so it runs under the hook runtime's rules: in order, a failure never
stops the turn, and a project's command (it came with the repository) runs only once the user
trusted its exact text, asked again when it changes, in the commands' sandbox. The events:

- `PreToolUse` (matcher: a regex of the tool's Claude name, `Bash`, `Read`, `Edit`..., or its
  zizou name): a `before_tool` policy; exit 2 or a `deny`/`block` refuses the call with the
  reason, which reaches the model; `ask` asks (refused headless); `allow` approves nothing
  beyond zizou's own rules.
- `PostToolUse` (matcher as above): run for each call of the model's last step before the next
  request; exit 2's stderr, a `block` reason and `additionalContext` reach the model as a
  reminder.
- `UserPromptSubmit`: run at a turn's first step; its output (or `additionalContext`) is
  context for the turn; exit 2 or `block` tells the model not to act on the message.
- `SessionStart`: run at the session's first step; its output is context for the session.
- `Stop`, `Notification` (when zizou asks for a permission), `PreCompact` (as zizou compacts):
  run for their side effects, in a thread (zizou's exit waits for them); zizou never continues
  a finished turn.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zizou.contracts.events import AnyEvent, Compacted, PermissionRequested, TurnFinished
from zizou.contracts.protocols import PolicyVerdict
from zizou.hooks.api import Prompt, ToolCallInfo
from zizou.hooks.runtime import HookSource, Origin
from zizou.hooks.shell_hook import HookOutcome, ShellHookRunner, timeout_of

log = logging.getLogger(__name__)

TOOL_EVENTS = ("PreToolUse", "PostToolUse")
EVENTS = (*TOOL_EVENTS, "UserPromptSubmit", "SessionStart", "Stop", "Notification", "PreCompact")
# zizou's tools -> the names Claude Code's matchers and hook scripts know them by.
CLAUDE_NAMES = {
    "run_bash": "Bash",
    "read_file": "Read",
    "write_file": "Write",
    "edit_file": "Edit",
    "glob": "Glob",
    "grep": "Grep",
    "list_dir": "LS",
}
_FILE_TOOLS = ("Read", "Write", "Edit")


@dataclass(frozen=True)
class CommandHook:
    """One command of a settings file's `hooks`."""

    event: str
    matcher: str
    command: str
    timeout_s: float
    name: str  # `.claude/settings.json#PreToolUse.1`
    origin: Origin  # "user" or "project"

    def applies_to(self, tool: str) -> bool:
        if self.matcher in ("", "*"):
            return True
        names = (CLAUDE_NAMES.get(tool, tool), tool)
        try:
            return any(re.fullmatch(self.matcher, name) for name in names)
        except re.error:
            return self.matcher in names


def command_hooks(label: str, origin: Origin, hooks: object) -> tuple[list[CommandHook], list[str]]:
    """The commands of a settings file's `hooks` value, and what was left out, named."""
    if hooks is None:
        return [], []
    if not isinstance(hooks, Mapping):
        return [], [f"{label}: `hooks` is not an object; its hooks are not used"]
    found: list[CommandHook] = []
    problems: list[str] = []
    for event, groups in hooks.items():
        if event not in EVENTS:
            problems.append(f"{label}: the {event} hooks are not used: zizou has no such event")
            continue
        if not isinstance(groups, list):
            problems.append(f"{label}: hooks.{event} is not a list; not used")
            continue
        for group in groups:
            _group(found, problems, label, origin, event, group)
    return found, problems


def _group(
    found: list[CommandHook],
    problems: list[str],
    label: str,
    origin: Origin,
    event: str,
    group: object,
) -> None:
    entries = group.get("hooks") if isinstance(group, Mapping) else None
    if not isinstance(group, Mapping) or not isinstance(entries, list):
        problems.append(f"{label}: an entry of hooks.{event} has no `hooks` list; not used")
        return
    matcher = str(group.get("matcher") or "")
    for entry in entries:
        command = entry.get("command") if isinstance(entry, Mapping) else None
        kind = entry.get("type", "command") if isinstance(entry, Mapping) else None
        if kind != "command" or not isinstance(command, str) or not command.strip():
            problems.append(f"{label}: a hook of {event} is not a `command` hook; not used")
            continue
        number = sum(1 for hook in found if hook.event == event) + 1
        name = f"{label}#{event}.{number}"
        assert isinstance(entry, Mapping)
        found.append(CommandHook(event, matcher, command, timeout_of(entry), name, origin))


def hook_source(hook: CommandHook, settings_path: Path, runner: ShellHookRunner) -> HookSource:
    """`hook` as a hook source: its text is its command (what the user trusts, by its hash),
    its render and event handler run it."""
    running = _Running(hook, runner)
    text = f"# {hook.event} hook (matcher {hook.matcher or '*'!r})\n{hook.command}\n"
    return HookSource(
        hook.name,
        hook.origin,
        "command",
        text=text,
        path=Path(f"{settings_path}#{hook.event}.{hook.name.rsplit('.', 1)[-1]}"),
        sha256=hashlib.sha256(hook.command.encode()).hexdigest(),
        render=running.render,
        on_event=running.on_event,
    )


@dataclass
class _Running:
    """One command hook in a session: what it already ran for."""

    hook: CommandHook
    runner: ShellHookRunner
    done_calls: set[str] = field(default_factory=set)
    turn: int = -1
    turn_context: str = ""
    session_context: str | None = None

    def run(self, **fields: Any) -> HookOutcome:
        payload = self.runner.payload(self.hook.event, **fields)
        sandboxed = self.hook.origin == "project"
        hook = self.hook
        outcome = self.runner.run(hook.command, payload, hook.timeout_s, sandboxed=sandboxed)
        if outcome.problem:
            log.warning("the hook %s failed: %s", self.hook.name, outcome.problem)
        return outcome

    def render(self, p: Prompt) -> None:
        event = self.hook.event
        if event == "PreToolUse":
            p.before_tool(self.before_tool)
        elif event == "PostToolUse":
            self._after_tools(p)
        elif event == "UserPromptSubmit":
            self._prompt_submitted(p)
        elif event == "SessionStart":
            if self.session_context is None:
                source = "startup" if p.ctx.turn_number <= 1 else "resume"
                self.session_context = self.run(source=source).context()
            if self.session_context:
                p.system(self.hook.name, self.session_context)

    def before_tool(self, call: ToolCallInfo, ctx: object) -> PolicyVerdict | None:
        if not self.hook.applies_to(call.name):
            return None
        outcome = self.run(tool_name=_claude_name(call.name), tool_input=_tool_input(call))
        decision, reason = outcome.decision()
        label = f"hook:{self.hook.name}"
        if decision == "block":
            return PolicyVerdict("deny", reason, label)
        if decision == "ask":
            return PolicyVerdict("ask", reason, label)
        return None

    def _after_tools(self, p: Prompt) -> None:
        for call_id, name, arguments, output in _last_calls(p.ctx.messages):
            if call_id in self.done_calls:
                continue
            self.done_calls.add(call_id)
            if not self.hook.applies_to(name):
                continue
            call = ToolCallInfo(name, arguments, "")
            outcome = self.run(
                tool_name=_claude_name(name),
                tool_input=_tool_input(call),
                tool_response={"output": output},
            )
            decision, reason = outcome.decision()
            said = [reason] if decision == "block" else []
            said += [text] if (text := outcome.specific.get("additionalContext")) else []
            if said:
                p.remind(f"{self.hook.name} after {name}: " + "\n".join(map(str, said)))

    def _prompt_submitted(self, p: Prompt) -> None:
        if p.ctx.turn_number != self.turn:
            self.turn = p.ctx.turn_number
            outcome = self.run(prompt=p.ctx.user_message)
            decision, reason = outcome.decision()
            if decision == "block":
                self.turn_context = (
                    f"The user's message was blocked by the hook {self.hook.name}: {reason}. "
                    "Do not act on it; tell the user it was blocked, and why."
                )
            else:
                self.turn_context = outcome.context()
        if self.turn_context:
            p.system(self.hook.name, self.turn_context)

    def on_event(self, event: AnyEvent) -> None:
        """Run the hook in a thread of its own when `event` is its: what it says changes
        nothing, so neither the turn nor the screen waits (zizou's exit does)."""
        fields: dict[str, Any]
        match (self.hook.event, event):
            case ("Stop", TurnFinished()):
                fields = {"stop_hook_active": False}
            case ("Notification", PermissionRequested(tool=tool, summary=summary)):
                fields = {"message": f"zizou needs your permission to use {tool}: {summary}"}
            case ("PreCompact", Compacted(by=by)):
                trigger = "manual" if by == "user" else "auto"
                fields = {"trigger": trigger, "custom_instructions": ""}
            case _:
                return
        name = f"zizou-hook-{self.hook.event}"
        threading.Thread(target=lambda: self.run(**fields), name=name, daemon=False).start()


def _claude_name(tool: str) -> str:
    return CLAUDE_NAMES.get(tool, tool)


def _tool_input(call: ToolCallInfo) -> dict[str, Any]:
    """The call's arguments as a Claude hook script reads them (`file_path` for a file tool),
    zizou's own names kept beside."""
    arguments = dict(call.arguments)
    if _claude_name(call.name) in _FILE_TOOLS and "path" in arguments:
        arguments.setdefault("file_path", arguments["path"])
    return arguments


def _last_calls(
    messages: tuple[Mapping[str, Any], ...],
) -> list[tuple[str, str, dict[str, Any], str]]:
    """(id, tool, arguments, output) of each tool call of the last assistant message."""
    import json

    results = {
        str(m.get("tool_call_id")): str(m.get("content") or "")
        for m in messages
        if m.get("role") == "tool"
    }
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        found: list[tuple[str, str, dict[str, Any], str]] = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except ValueError:
                arguments = {}
            call_id = str(call.get("id"))
            if call_id in results:
                found.append((call_id, str(function.get("name")), arguments, results[call_id]))
        return found
    return []


__all__ = ["CLAUDE_NAMES", "EVENTS", "CommandHook", "command_hooks", "hook_source"]
