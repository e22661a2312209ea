"""Slash commands kept as Markdown files, the way other agents keep them.

A Claude Code user has `.claude/commands/**/*.md` (and `~/.claude/commands`), a Codex user
`~/.codex/prompts/*.md`, an opencode user `.opencode/command/*.md`: a front matter
(`description`, `argument-hint`, `allowed-tools`, `model`) and a body that becomes the user's
message, with `$ARGUMENTS` and `$1`… put in and each `@path` it names attached. zizou reads them
as they are: `/review 42` in the app or `zizou -p "/review 42"` sends the review body with 42.
A file in a subfolder is `/folder:name`. zizou's own commands win a clash, and the first folder
listed wins between files; each file left out is named with why, and the rest load.

Every file is read through the path layer (a link out of its folder, or to a secret file, is
refused), and so is each `@path` of a body, inside the project. `allowed-tools` approves
nothing (zizou's approvals apply as to any message) and `model` does not switch the model.
"""

from __future__ import annotations

import re
import shlex
import stat
from dataclasses import dataclass, field
from pathlib import Path

from zizou import confined
from zizou.contracts.instruction_files import agents_home
from zizou.contracts.instructions import split_front_matter
from zizou.errors import PathError

# (folder, relative to the project or `~`, in the home folder?, subfolders too?), first wins.
SOURCES = (
    (".claude/commands", False, True),
    (".opencode/command", False, False),
    (".claude/commands", True, True),
    (".codex/prompts", True, False),
)
FILE_CAP = 100_000  # bytes of a command file, or of a file its body attaches
MAX_FILES = 500  # command files read from one folder
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*(?::[A-Za-z0-9][\w.-]*)*")
_KEY = re.compile(r"[A-Za-z_][\w-]*[ \t]*:")
_POSITIONAL = re.compile(r"\$(\d)")
_MENTION = re.compile(r"(?<![\w`@])@([\w./-]*[\w/-])")


@dataclass(frozen=True)
class FileCommand:
    name: str  # `review`, or `frontend:component` for `frontend/component.md`
    source: str  # the file, as the user would name it: `.claude/commands/review.md`, `~/...`
    body: str
    description: str = ""
    argument_hint: str = ""
    allowed_tools: str = ""
    model: str = ""

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.argument_hint}".rstrip()

    @property
    def help(self) -> str:
        return self.description or f"from {self.source}"


@dataclass
class FileCommands:
    commands: dict[str, FileCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # each names the file, and the line

    def get(self, name: str) -> FileCommand | None:
        return self.commands.get(name)


def load_file_commands(
    root: Path, reserved: frozenset[str] = frozenset(), home: Path | None = None
) -> FileCommands:
    """Every command file of the project and the user's home; `reserved`: zizou's own names."""
    found = FileCommands()
    home = agents_home() if home is None else home
    for folder, in_home, deep in SOURCES:
        base = home if in_home else root
        if not base.is_dir():
            continue
        shown = "~/" if in_home else ""
        for rel in _markdown_files(base, folder, deep):
            _load_one(found, base, shown, folder, rel, reserved)
    return found


def _load_one(
    found: FileCommands, base: Path, shown: str, folder: str, rel: str, reserved: frozenset[str]
) -> None:
    label = shown + rel
    name = rel[len(folder) + 1 : -len(".md")].replace("/", ":")
    if not _NAME.fullmatch(name):
        found.problems.append(f"{label}: /{name} is not a command name; the file is not used")
        return
    if name.lower() in reserved:
        found.problems.append(f"{label}: /{name} is zizou's own command, which wins; not used")
        return
    if (first := found.commands.get(name)) is not None:
        found.problems.append(f"{label}: /{name} comes first from {first.source}; not used")
        return
    try:
        text, size = _read(base, rel)
        fields, body = checked_front_matter(text, label)
    except (PathError, ValueError) as err:
        found.problems.append(str(err))
        return
    if size > FILE_CAP:
        found.problems.append(f"{label}: {_cut(size)}")
    found.commands[name] = FileCommand(
        name,
        label,
        body.strip("\n"),
        fields.get("description", ""),
        fields.get("argument-hint", ""),
        fields.get("allowed-tools", ""),
        fields.get("model", ""),
    )


def _markdown_files(base: Path, folder: str, deep: bool) -> list[str]:
    """The `.md` files under `folder` (a link to a folder is not followed), sorted."""
    files: list[str] = []
    todo = [folder]
    while todo and len(files) < MAX_FILES:
        current = todo.pop()
        try:
            entries = confined.scandir(base, current)
        except PathError:
            continue  # no such folder, or a link out of the project: nothing to list
        for entry in entries:
            rel = f"{current}/{entry.name}"
            if entry.is_dir and deep:
                todo.append(rel)
            elif entry.name.endswith(".md") and not entry.is_dir:
                files.append(rel)
    return sorted(files)[:MAX_FILES]


def _read(base: Path, rel: str) -> tuple[str, int]:
    """The file's text (its first FILE_CAP bytes) and its size."""
    path = confined.resolve_unasked(base, rel)
    info = confined.stat(base, path)
    if info is None or not stat.S_ISREG(info.st_mode):
        raise PathError(f"{rel} is not a regular file")
    text = confined.read_head(base, path, FILE_CAP).decode("utf-8", errors="replace")
    return text, info.st_size


def _cut(size: int) -> str:
    return f"only its first {FILE_CAP // 1000} KB is used (the file is {size:,} bytes)"


def checked_front_matter(text: str, label: str) -> tuple[dict[str, str], str]:
    """The fields and the body; a front matter that does not close, or has a line that is no
    field, is a ValueError naming the file and the line."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise ValueError(f"{label} line 1: the front matter's `---` is never closed")
    for number, line in enumerate(lines[1:end], start=2):
        plain = line.strip() and not line.startswith((" ", "\t", "#", "-"))
        if plain and not _KEY.match(line):
            raise ValueError(f"{label} line {number}: {line.strip()!r} is not a `key: value`")
    return split_front_matter(text)


def split_command(text: str) -> tuple[str, str] | None:
    """(`name`, arguments) of a message that is `/name ...`, else None."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    first, _, rest = stripped.partition(" ")
    name = first[1:]
    return (name, rest.strip()) if _NAME.fullmatch(name) else None


def message_for(
    root: Path, text: str, reserved: frozenset[str] = frozenset()
) -> tuple[str, list[str]]:
    """What the user's `text` sends: a command file's body for `/name args`, else `text`;
    and what to tell the user (the command files left out, the `@path`s not attached)."""
    found = split_command(text)
    if found is None or found[0].lower() in reserved:
        return text, []
    commands = load_file_commands(root, reserved)
    command = commands.get(found[0])
    if command is None:
        return text, commands.problems
    message, notes = expand(command, found[1], root)
    return message, [*commands.problems, *notes]


def expand(command: FileCommand, arguments: str, root: Path) -> tuple[str, list[str]]:
    """The message `/name arguments` sends, and notes on the `@path`s it could not attach."""
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    body = command.body
    uses_arguments = "$ARGUMENTS" in body or _POSITIONAL.search(body) is not None
    body = body.replace("$ARGUMENTS", arguments)
    body = _POSITIONAL.sub(lambda m: _nth(words, int(m.group(1))), body)
    if arguments and not uses_arguments:
        body = f"{body}\n\nARGUMENTS: {arguments}"
    attached, notes = _attachments(body, root, command.source)
    return body + attached, notes


def _nth(words: list[str], number: int) -> str:
    return words[number - 1] if 0 < number <= len(words) else ""


def _attachments(body: str, root: Path, source: str) -> tuple[str, list[str]]:
    parts: list[str] = []
    notes: list[str] = []
    for target in dict.fromkeys(_MENTION.findall(body)):
        try:
            path = confined.resolve_unasked(root, target)
            info = confined.stat(root, path)
            if info is None or not stat.S_ISREG(info.st_mode):
                continue  # not a file: a name such as @alice stays as it is
            data = confined.read_head(root, path, FILE_CAP)
        except PathError as err:
            notes.append(f"{source}: @{target} was not attached: {err}")
            continue
        if info.st_size > FILE_CAP:
            notes.append(f"{source}: @{target}: {_cut(info.st_size)}")
        text = data.decode("utf-8", errors="replace")
        parts.append(f"\n\nContents of {target}:\n```\n{text.rstrip()}\n```")
    return "".join(parts), notes


__all__ = [
    "SOURCES",
    "FileCommand",
    "FileCommands",
    "checked_front_matter",
    "expand",
    "load_file_commands",
    "message_for",
    "split_command",
]
