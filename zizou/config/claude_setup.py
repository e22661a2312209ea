"""What a session takes from Claude Code's settings files: their hooks (as zizou hooks, a
project's behind the hooks' trust gate) and their permission rules (deny and ask tighten, the
user's own allow rules approve); and what to tell the user of the other agents' files as it
starts (a settings file that is not JSON, a refused `@import`). One call, `claude_setup`, made
while the session is assembled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from zizou.agent.permissions import Rules
from zizou.config.claude_permissions import SettingsRules, settings_rules
from zizou.config.claude_settings import ClaudeSettings, load_claude_settings
from zizou.contracts.instruction_files import root_instructions
from zizou.hooks.runtime import HookRuntime, HookSource, Origin
from zizou.hooks.settings_hooks import CommandHook, command_hooks, hook_source
from zizou.hooks.shell_hook import ShellHookRunner
from zizou.hooks.sources import TrustStore, admit
from zizou.sandbox import Sandbox
from zizou.user_dirs import user_config_dir


@dataclass
class ClaudeSetup:
    """The settings files as read, their rules mapped, and their command hooks."""

    settings: ClaudeSettings
    rules: SettingsRules
    hooks: list[tuple[CommandHook, Path]] = field(default_factory=list)  # with its file
    problems: list[str] = field(default_factory=list)
    waiting: list[HookSource] = field(default_factory=list)  # project hooks awaiting trust

    def widen(self, rules: Rules) -> Rules:
        return self.rules.widen(rules)


def claude_setup(
    root: Path,
    rules: Rules,
    hooks: HookRuntime,
    boxed: tuple[Sandbox, Mapping[str, str], str],
    trust_all: bool,
) -> ClaudeSetup:
    """A session's share of the settings: their rules and hooks added to `hooks` (a project's
    command run in `boxed`'s sandbox, with its environment, for its session id), the commands
    waiting for trust, and every problem to tell (an instruction file's refused import too)."""
    setup = load_claude_setup(root, rules)
    runner = ShellHookRunner(root, *boxed)
    setup.waiting, said = add_claude_hooks(
        setup, hooks, runner, TrustStore(user_config_dir()), trust_all
    )
    setup.problems += [*said, *instruction_problems(root)]
    return setup


def instruction_problems(root: Path) -> list[str]:
    """What the instruction files at the root refused, skipped or cut, with the file and
    line: told once as a session starts (the prompt names it to the model as well)."""
    reader = root_instructions(root)
    said = [note for note in reader.notes if " refused:" in note or " skipped:" in note]
    said += [
        f"{file.label} was cut to its first 20,000 characters"
        for file in reader.files
        if file.text.endswith(f"[... {file.label} truncated ...]")
    ]
    return said


def load_claude_setup(root: Path, rules: Rules) -> ClaudeSetup:
    """The settings of `root` and of the user, every problem named."""
    settings = load_claude_settings(root)
    mapped = settings_rules(settings, root, rules.sandbox)
    setup = ClaudeSetup(settings, mapped, problems=[*settings.problems, *mapped.warnings])
    for file in settings.files:
        origin: Origin = "user" if file.origin == "user" else "project"
        found, problems = command_hooks(file.label, origin, file.data.get("hooks"))
        setup.hooks += [(hook, file.path) for hook in found]
        setup.problems += problems
    return setup


def settings_hook_sources(root: Path) -> tuple[list[HookSource], list[str]]:
    """The hook commands of the settings files as hook sources (for listing and trusting
    them, never run from here), and the problems met reading them."""
    setup = load_claude_setup(root, Rules())
    runner = ShellHookRunner(root, None, {})
    return [hook_source(hook, path, runner) for hook, path in setup.hooks], setup.problems


def add_claude_hooks(
    setup: ClaudeSetup,
    hooks: HookRuntime,
    runner: ShellHookRunner,
    trust: TrustStore,
    trust_all: bool,
) -> tuple[list[HookSource], list[str]]:
    """The settings' rules and command hooks added to `hooks`; a project's command runs only
    once trusted (`trust_all`: `--trust-hooks`). The commands waiting for trust, and what to
    tell the user."""
    said: list[str] = []
    if setup.rules.tightening:
        hooks.add(setup.rules.hook())
    waiting: list[HookSource] = []
    for hook, path in setup.hooks:
        source = hook_source(hook, path, runner)
        if not admit(hooks, source, trust, trust_all, said.append, f" ({hook.command!r})"):
            waiting.append(source)
    return waiting, said


__all__ = [
    "ClaudeSetup",
    "add_claude_hooks",
    "claude_setup",
    "instruction_problems",
    "load_claude_setup",
    "settings_hook_sources",
]
