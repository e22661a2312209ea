"""The slash commands: telling a command from a message that starts with `/`, completing and
suggesting their names. Each is declared beside its handler (`slash_registry`).

`/usr/bin/env is broken` is a message, not an unknown command: only a bare word that is not an
existing path can be a command, and an unknown one is answered with the nearest known name.
"""

from __future__ import annotations

import difflib
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from zizou.contracts.file_commands import FileCommands, load_file_commands, message_for
from zizou.ui.slash_registry import SlashCommand, declared

# The modules that declare slash commands (`slash_registry.slash` beside each handler),
# imported when the commands are first looked up.
DECLARING = (
    "zizou.ui.slash_commands",
    "zizou.ui.conversations",
    "zizou.ui.model_switcher",
    "zizou.ui.state_commands",
    "zizou.ui.hook_commands",
    "zizou.ui.workspace_commands",
    "zizou.ui.rule_commands",
    "zizou.ui.job_commands",
    "zizou.ui.modes",
    "zizou.ui.context_commands",
    "zizou.ui.undo_commands",
    "zizou.ui.deck_commands",
    "zizou.ui.mcp_commands",
)


def commands() -> tuple[SlashCommand, ...]:
    """Every slash command, as `/help` lists them."""
    for module in DECLARING:
        importlib.import_module(module)
    return declared()


def by_name() -> dict[str, SlashCommand]:
    return {command.name: command for command in commands()}


_WORD = re.compile(r"[A-Za-z][\w-]*")
# An argument is a word, or `PATH#/regex/` whole: its regex may hold spaces, and ends at a `/`
# before a space or the end (`\/` is a slash inside it).
_ARG = re.compile(r"\S*#/(?:\\.|[^\\])*?/(?=\s|$)|\S+")


@dataclass(frozen=True)
class Parsed:
    kind: Literal["command", "unknown", "text"]
    name: str = ""
    args: list[str] = field(default_factory=list)
    suggestion: str | None = None
    raw: str = ""  # the text after the command's name, as typed (`/run` reads JSON from it)


def classify(text: str, root: Path) -> Parsed:
    """Whether `text` is a known command, an unknown one, or a message to send."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return Parsed("text")
    first = stripped.split(maxsplit=1)[0]
    rest = split_args(stripped[len(first) :])
    name = first[1:]
    if name.lower() in by_name():
        return Parsed("command", name.lower(), rest, raw=stripped[len(first) :].strip())
    if not _WORD.fullmatch(name) or _exists(first) or _exists(root / first.lstrip("/")):
        return Parsed("text")
    return Parsed("unknown", name, rest, nearest(name))


def file_commands(root: Path) -> FileCommands:
    """The project's and the user's command files (`.claude/commands` and the like); zizou's
    own commands win a clash."""
    return load_file_commands(root, frozenset(by_name()))


def file_command_message(root: Path, text: str) -> tuple[str, list[str]]:
    """What `text` sends when it runs a command file (`/review 42`), and what to say."""
    return message_for(root, text, frozenset(by_name()))


def split_args(text: str) -> list[str]:
    """A command's arguments: split at white space, except inside a `PATH#/regex/`."""
    return _ARG.findall(text)


def nearest(name: str) -> str | None:
    name = name.lower()
    known_names = list(by_name())
    swapped = [known for known in known_names if sorted(known) == sorted(name)]
    if swapped:  # the same letters in another order: `/modle` is /model, not /mode
        return swapped[0]
    close = difflib.get_close_matches(name, known_names, n=1, cutoff=0.5)
    if close:
        return close[0]
    starts = [n for n in known_names if n.startswith(name.lower()[:2])]
    return starts[0] if starts else None


_TRAILING = re.compile(r"/([A-Za-z][\w-]*)\s*$")


def trailing_command(text: str) -> str | None:
    """The known command typed at the end of a message (`fix it/redo`, `fix it /redo`), if
    one is: typed after text the prompt was given, it was meant to run, not to be sent."""
    stripped = text.strip()
    found = _TRAILING.search(stripped)
    if stripped.startswith("/") or found is None or not stripped[: found.start()].strip():
        return None
    name = found.group(1).lower()
    return name if name in by_name() else None


def completions(prefix: str) -> list[SlashCommand]:
    """Commands whose name starts with `prefix` (without the slash), the one it names whole
    first (Enter on `/mode` sends it, rather than complete `/model`), the others by name, then
    fuzzy ones."""
    prefix = prefix.lower()
    known = by_name()
    starts = sorted(
        (c for c in known.values() if c.name.startswith(prefix)),
        key=lambda c: (c.name != prefix, c.name),
    )
    close = difflib.get_close_matches(prefix, list(known), n=3, cutoff=0.6) if prefix else []
    return starts + [known[n] for n in close if known[n] not in starts]


def _exists(path: str | Path) -> bool:
    try:
        return Path(path).exists()
    except OSError:
        return False


__all__ = [
    "DECLARING",
    "Parsed",
    "SlashCommand",
    "by_name",
    "classify",
    "commands",
    "completions",
    "file_command_message",
    "file_commands",
    "nearest",
    "split_args",
    "trailing_command",
]
