"""The slash commands: their table, and telling a command from a message that starts with `/`.

`/usr/bin/env is broken` is a message, not an unknown command: only a bare word that is not an
existing path can be a command, and an unknown one is answered with the nearest known name.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from zizou.core.file_commands import FileCommands, load_file_commands, message_for


@dataclass(frozen=True)
class SlashCommand:
    name: str
    args: str
    help: str

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "", "show the commands and keys"),
    SlashCommand("clear", "", "start a new conversation"),
    SlashCommand("reset", "", "start a new conversation (as /clear)"),
    SlashCommand("model", "[provider] [model]", "show or switch the model"),
    SlashCommand("models", "", "pick a model from a list"),
    SlashCommand("modelid", "", "the model's id, and the address it is reached at"),
    SlashCommand("ollama", "URL", "talk to the Ollama server at URL"),
    SlashCommand("keys", "[provider]", "set up a provider's API key (the key wizard)"),
    SlashCommand("sessions", "", "list this project's sessions and resume one"),
    SlashCommand("prompt", "", "show the compiled system prompt"),
    SlashCommand("context", "[light|default|max]", "repo map budget: off, default, large"),
    SlashCommand("state", "[reset|export FILE]", "the task state: show, empty or save it"),
    SlashCommand("mode", "[build|plan]", "show or switch the mode: plan is read-only"),
    SlashCommand("hooks", "[trust NAME]", "list the hooks; trust a project hook to run it"),
    SlashCommand("decks", "", "list the decks (sub-agents), and the deck files left out"),
    SlashCommand(
        "mcp", "[NAME|restart NAME|disable NAME|enable NAME|approve]", "the MCP servers and tools"
    ),
    SlashCommand("run", "DECK [INPUT]", "run a deck on an input (JSON or text), not via the model"),
    SlashCommand("instructions", "[NAME]", "list the instructions on demand, or read one"),
    SlashCommand("skills", "[NAME]", "the same as /instructions"),
    SlashCommand("history", "[N|all]", "how many earlier turns the model is sent"),
    SlashCommand("undo", "", "undo the last turn: its files put back, its message to edit"),
    SlashCommand("redo", "", "do the last undone turn again"),
    SlashCommand("rewind", "", "pick a turn to go back to before: it and later ones undone"),
    SlashCommand("compact", "[instructions]", "summarise the conversation, and go on from it"),
    SlashCommand("init", "", "write ZIZOU.md for this project (you approve the file)"),
    SlashCommand("add", "PATH[:10-40|#/regex/]", "open a file, or part of it, in the workspace"),
    SlashCommand("drop", "[PATH|w3]", "close a file's windows, or one window; alone: list"),
    SlashCommand("workspace", "", "list the open windows: lines, anchors, lost ones"),
    SlashCommand("export", "[FILE]", "save the transcript, redacted (.zizou/exports/ or FILE)"),
    SlashCommand("jobs", "[ID|kill ID]", "background jobs: list them, read one's output, stop one"),
    SlashCommand("cost", "", "tokens and cost so far"),
    SlashCommand("status", "", "model, key, sandbox, permission mode, MCP servers, context"),
    SlashCommand("config", "", "the settings this session started with, and where each came from"),
    SlashCommand("permissions", "", "list and remove saved approval rules"),
    SlashCommand("log", "", "where the debug log is and what the last turn cost"),
    SlashCommand("exit", "", "quit zizou"),
    SlashCommand("quit", "", "quit zizou"),
)
BY_NAME = {command.name: command for command in COMMANDS}
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
    if name.lower() in BY_NAME:
        return Parsed("command", name.lower(), rest, raw=stripped[len(first) :].strip())
    if not _WORD.fullmatch(name) or _exists(first) or _exists(root / first.lstrip("/")):
        return Parsed("text")
    return Parsed("unknown", name, rest, nearest(name))


def file_commands(root: Path) -> FileCommands:
    """The project's and the user's command files (`.claude/commands` and the like); zizou's
    own commands win a clash."""
    return load_file_commands(root, frozenset(BY_NAME))


def file_command_message(root: Path, text: str) -> tuple[str, list[str]]:
    """What `text` sends when it runs a command file (`/review 42`), and what to say."""
    return message_for(root, text, frozenset(BY_NAME))


def split_args(text: str) -> list[str]:
    """A command's arguments: split at white space, except inside a `PATH#/regex/`."""
    return _ARG.findall(text)


def nearest(name: str) -> str | None:
    name = name.lower()
    swapped = [known for known in BY_NAME if sorted(known) == sorted(name)]
    if swapped:  # the same letters in another order: `/modle` is /model, not /mode
        return swapped[0]
    close = difflib.get_close_matches(name, list(BY_NAME), n=1, cutoff=0.5)
    if close:
        return close[0]
    starts = [n for n in BY_NAME if n.startswith(name.lower()[:2])]
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
    return name if name in BY_NAME else None


def completions(prefix: str) -> list[SlashCommand]:
    """Commands whose name starts with `prefix` (without the slash), the one it names whole
    first (Enter on `/mode` sends it, rather than complete `/model`), then fuzzy ones."""
    prefix = prefix.lower()
    starts = sorted(
        (c for c in COMMANDS if c.name.startswith(prefix)), key=lambda c: c.name != prefix
    )
    close = difflib.get_close_matches(prefix, list(BY_NAME), n=3, cutoff=0.6) if prefix else []
    return starts + [BY_NAME[n] for n in close if BY_NAME[n] not in starts]


def _exists(path: str | Path) -> bool:
    try:
        return Path(path).exists()
    except OSError:
        return False


__all__ = [
    "BY_NAME",
    "COMMANDS",
    "Parsed",
    "SlashCommand",
    "classify",
    "completions",
    "file_command_message",
    "file_commands",
    "nearest",
    "split_args",
    "trailing_command",
]
