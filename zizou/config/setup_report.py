"""What zizou loaded from the files a user keeps for coding agents, in words: every file read
for instructions, slash commands, sub-agents, hooks and permission rules, with its size in
tokens, and what was refused and why, or cut. `/context` shows it in the app, `zizou config
--sources` prints it, and the debug log records it at the start of each turn (`SETUP`).

It reads the files as a session would, with the same readers, so what it says is what a
session here gets. Sizes are estimates (about four characters a token).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from zizou.agent.permissions import Rules
from zizou.config.claude_setup import ClaudeSetup, load_claude_setup
from zizou.contracts.file_commands import load_file_commands
from zizou.contracts.instruction_files import PROJECT_FILES, root_instructions
from zizou.contracts.instructions import InstructionSet
from zizou.decks.agent_files import agent_decks
from zizou.hooks.settings_hooks import hook_source
from zizou.hooks.shell_hook import ShellHookRunner
from zizou.hooks.sources import TrustStore, discover, needs_trust
from zizou.skipped_dirs import SKIPPED_DIRS
from zizou.user_dirs import user_config_dir

log = logging.getLogger("zizou.setup")

MAX_NESTED_DIRS = 2_000  # folders looked through for nested instruction files
MAX_NESTED_DEPTH = 6


def tokens(chars: int) -> str:
    count = max(1, (chars + 3) // 4)
    return f"~{count:,} token{'s' if count > 1 else ''}"


def setup_report(root: Path, reserved: frozenset[str] = frozenset()) -> str:
    """Every section of the report, as text; `reserved`: zizou's own command names."""
    config_dir = user_config_dir()
    trust = TrustStore(config_dir)
    claude = load_claude_setup(root, Rules())
    lines = [
        *_instructions(root),
        *_on_demand(root),
        *_commands(root, reserved),
        *_agents(root),
        *_settings(claude),
        *_hooks(root, config_dir, claude, trust),
        *_rules(claude),
    ]
    return "\n".join(lines)


def _section(
    title: str, rows: list[str], notes: Iterable[str] = (), empty: str = "none"
) -> list[str]:
    found = [title, *(f"  {row}" for row in rows)] if rows else [f"{title} {empty}"]
    found += [f"  ! {note}" for note in notes]
    return [*found, ""]


def _instructions(root: Path) -> list[str]:
    reader = root_instructions(root)
    rows: list[str] = []
    cut: list[str] = []
    for file in reader.files:
        rows.append(f"{file.label} · {tokens(len(file.text))}")
        if file.text.endswith(f"[... {file.label} truncated ...]"):
            cut.append(f"{file.label} was cut to its first 20,000 characters")
    nested = [
        f"{rel} · {tokens(size)} · applies once the model works under its folder"
        for rel, size in nested_files(root)
    ]
    title = "Instruction files (sent at the first step of each turn):"
    return _section(title, rows + nested, [*reader.notes, *cut])


def _on_demand(root: Path) -> list[str]:
    found = InstructionSet.load(root)
    rows = [
        f"{item.name} · {item.source} · {tokens(len(item.body))}"
        for item in found
        if item.source != "builtin"
    ]
    title = "Instructions on demand and skills (the model reads one when it needs it):"
    return _section(title, rows, found.warnings)


def nested_files(root: Path) -> list[tuple[str, int]]:
    """The instruction files in the project's subfolders (relative path, size in bytes)."""
    found: list[tuple[str, int]] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        depth = 0 if rel == "." else rel.count(os.sep) + 1
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIPPED_DIRS and not d.startswith(".") and depth < MAX_NESTED_DEPTH
        )
        seen += 1
        if seen > MAX_NESTED_DIRS:
            break
        if rel == ".":
            continue
        for name in PROJECT_FILES:
            path = Path(folder) / name
            if name in files and path.is_file() and not path.is_symlink():
                found.append((f"{rel}/{name}".replace(os.sep, "/"), path.stat().st_size))
    return found


def _commands(root: Path, reserved: frozenset[str]) -> list[str]:
    found = load_file_commands(root, reserved)
    rows = [
        f"/{command.name} · {command.source} · {tokens(len(command.body))}"
        for command in found.commands.values()
    ]
    return _section("Slash commands from files:", rows, found.problems)


def _agents(root: Path) -> list[str]:
    decks, warnings = agent_decks(root, set())
    rows = [
        f"{deck.name} · {_shown(root, deck.path)} · {tokens(len(deck.body + deck.description))}"
        for deck in decks
    ]
    return _section("Sub-agents from files (decks):", rows, warnings)


def _settings(claude: ClaudeSetup) -> list[str]:
    rows = [f"{file.label} · {tokens(file.chars)}" for file in claude.settings.files]
    return _section("Settings files:", rows, claude.settings.problems)


def _hooks(root: Path, config_dir: Path, claude: ClaudeSetup, trust: TrustStore) -> list[str]:
    runner = ShellHookRunner(root, None, {})
    rows: list[str] = []
    for hook, path in claude.hooks:
        source = hook_source(hook, path, runner)
        matcher = f" {hook.matcher}" if hook.matcher else ""
        rows.append(
            f"{source.name} · {hook.event}{matcher} · {hook.command!r} · "
            f"{_trust(trust, source)} · {tokens(len(hook.command))}"
        )
    sources, problems = discover(root, config_dir)
    for source in sources:
        rows.append(
            f"{source.name} · {source.kind} · {_trust(trust, source)} · {tokens(len(source.text))}"
        )
    notes = [problem for problem in claude.problems if "hook" in problem]
    return _section("Hooks:", rows, [*notes, *problems])


def _trust(trust: TrustStore, source: Any) -> str:
    if not needs_trust(source):
        return "yours, runs" if source.origin == "user" else "runs"
    status = trust.status(source)
    return {
        "trusted": "trusted, runs",
        "changed": "changed since trusted, not run",
    }.get(status, "not trusted yet, not run")


def _rules(claude: ClaudeSetup) -> list[str]:
    return _section("Permission rules from settings:", claude.rules.taken, claude.rules.warnings)


def _shown(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root.resolve()))
    except ValueError:
        return str(path)


class SetupRecorder:
    """Records the report in the debug log at the start of each turn (it is placed after the
    log among the session's recorders, so the log is open when it writes)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        try:
            log.info("SETUP what was loaded from the agents' files:\n%s", setup_report(self.root))
        except Exception:  # the report must never stop a turn
            log.warning("the setup report could not be made", exc_info=True)

    def record_request(self, step: int, request: Any) -> None:
        pass

    def emit(self, event: Any) -> None:
        pass


__all__ = ["SetupRecorder", "nested_files", "setup_report", "tokens"]
