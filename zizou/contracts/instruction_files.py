"""The instruction files a project and its user keep for coding agents, read for the prompt.

A programmer who comes from another agent already keeps its rules in `CLAUDE.md`, `AGENTS.md`,
`GEMINI.md` (at the project root, in subfolders, and in the user's `~/.claude`, `~/.codex`,
`~/.gemini`), with `@path` imports between them. zizou reads them as they are, under its own
trust rules: every file, imports included, goes through the path layer (`resolve_unasked`), so a
link out of its folder or to a secret file is refused with a note, never read. An import is
relative to the importing file, at most `MAX_IMPORT_DEPTH` deep, and a loop is refused. The model
never reads the same text twice: a file reached twice, or two files with the same text (a project
keeping CLAUDE.md and AGENTS.md alike), is sent once.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from zizou import confined
from zizou.errors import PathError

# In the order they are sent: the broader first, the more specific after (and so stronger).
PROJECT_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", "ZIZOU.md", "CLAUDE.local.md")
USER_FILES = (".claude/CLAUDE.md", ".codex/AGENTS.md", ".gemini/GEMINI.md")
FILE_CAP = 20_000  # characters of one file
MAX_IMPORT_DEPTH = 5

# `@path` after a space or a line start: not an e-mail address, not inside code.
_IMPORT = re.compile(r"(?<![\w`@])@((?:~/|\.{1,2}/)?[\w./-]*[\w/-])")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`[^`]*`")


def agents_home() -> Path:
    """The home folder holding the other agents' user config (`~/.claude`, `~/.codex`,
    `~/.gemini`); `ZIZOU_AGENTS_HOME` points it elsewhere."""
    override = os.environ.get("ZIZOU_AGENTS_HOME")
    return Path(override) if override else Path.home()


@dataclass(frozen=True)
class InstructionFile:
    label: str  # how the prompt names it: `CLAUDE.md`, `~/.claude/CLAUDE.md`, `sub/AGENTS.md`
    heading: str  # the line the prompt puts above its text
    text: str


@dataclass(frozen=True)
class Folder:
    """Where files are read from: `root` confines them, `shown` prefixes their names."""

    root: Path
    shown: str  # "" for the project, "~/" for the user's home
    kind: str  # "Project" or "User"


@dataclass
class InstructionReader:
    """Reads files and their imports once each, and keeps notes on what it refused."""

    files: list[InstructionFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _seen_paths: set[Path] = field(default_factory=set)
    _seen_texts: dict[str, str] = field(default_factory=dict)  # digest -> label

    def fork(self) -> InstructionReader:
        """A reader that leaves out what this one has read, and starts with no files."""
        return InstructionReader(
            _seen_paths=set(self._seen_paths), _seen_texts=dict(self._seen_texts)
        )

    def read(self, folder: Folder, rel: str, heading: str = "") -> None:
        """`rel` (inside `folder.root`) and its imports, if it exists; quiet when it does not."""
        self._read(folder, rel, heading, chain=())

    def _read(self, folder: Folder, rel: str, heading: str, chain: tuple[Path, ...]) -> bool:
        label = folder.shown + rel
        try:
            path = confined.resolve_unasked(folder.root, rel)
            info = confined.stat(folder.root, path)
            if info is None:
                return False
            if not stat.S_ISREG(info.st_mode):
                self.notes.append(f"{label} skipped: it is not a regular file")
                return True
            data = confined.read_head(folder.root, path, FILE_CAP * 4)
        except PathError as err:
            self.notes.append(f"{label} skipped: {err}")
            return True
        if path in chain:
            return True  # the caller names the loop
        if path in self._seen_paths:
            return True
        self._seen_paths.add(path)
        text = data.decode("utf-8", errors="replace")
        if len(text) > FILE_CAP or info.st_size > len(data):
            text = text[:FILE_CAP] + f"\n[... {label} truncated ...]"
        digest = hashlib.sha256(text.strip().encode()).hexdigest()
        if (same := self._seen_texts.get(digest)) is not None:
            self.notes.append(f"{label} has the same text as {same}: sent once")
            return True
        self._seen_texts[digest] = label
        self.files.append(
            InstructionFile(label, heading or f"{folder.kind} instructions from {label}:", text)
        )
        self._imports(folder, rel, text, (*chain, path))
        return True

    def _imports(self, folder: Folder, rel: str, text: str, chain: tuple[Path, ...]) -> None:
        label = folder.shown + rel
        for line_no, target in import_targets(text):
            where = f"{label} line {line_no}: @{target}"
            child = self._import_path(folder, rel, target)
            if child is None:
                self.notes.append(f"{where} refused: a project file imports only project files")
                continue
            if len(chain) > MAX_IMPORT_DEPTH:
                self.notes.append(f"{where} refused: imports nest at most {MAX_IMPORT_DEPTH} deep")
                continue
            if self._loops(folder, child, chain):
                self.notes.append(f"{where} refused: an import loop back to {folder.shown}{child}")
                continue
            heading = f"Imported by {label}, from {folder.shown + child}:"
            found = self._read(folder, child, heading, chain)
            if not found and ("/" in target or "." in target):
                self.notes.append(f"{where} skipped: no such file")

    @staticmethod
    def _import_path(folder: Folder, rel: str, target: str) -> str | None:
        if target.startswith("~/"):
            return target[2:] if folder.shown == "~/" else None
        return posixpath.normpath(posixpath.join(posixpath.dirname(rel), target))

    @staticmethod
    def _loops(folder: Folder, rel: str, chain: tuple[Path, ...]) -> bool:
        try:
            return confined.resolve(folder.root, rel) in chain
        except PathError:
            return False  # `_read` names the refusal


def import_targets(text: str) -> list[tuple[int, str]]:
    """(line number, path) of each `@path` import, outside code blocks and code spans."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            found += [(number, m) for m in _IMPORT.findall(_CODE_SPAN.sub("", line))]
    return found


def root_instructions(root: Path, home: Path | None = None) -> InstructionReader:
    """The user's files (read-only, in their agents' config folders), then the project's."""
    reader = InstructionReader()
    home = agents_home() if home is None else home
    if home.is_dir():
        user = Folder(home, "~/", "User")
        for rel in USER_FILES:
            reader.read(user, rel)
    project = Folder(root, "", "Project")
    for name in PROJECT_FILES:
        reader.read(project, name)
    return reader


def nested_instructions(root: Path, worked_in: Iterable[str], after: InstructionReader) -> str:
    """The text of the instruction files in the folders the model worked in (`worked_in`: files
    relative to the root, read or edited), each folder from the top down, leaving out what
    `after` (the root's files) already sent."""
    reader = after.fork()
    project = Folder(root, "", "Project")
    for folder in sorted({d for path in worked_in for d in _folders(path)}):
        for name in PROJECT_FILES:
            rel = f"{folder}/{name}"
            heading = f"Instructions for files under {folder}/, from {rel}:"
            reader.read(project, rel, heading)
    lines = [f"Note: {note}" for note in reader.notes]
    for found in reader.files:
        lines += ["", found.heading, found.text.rstrip()]
    return "\n".join(lines).strip()


def _folders(rel: str) -> list[str]:
    """The folders between the root (left out) and the file's own, from the top down."""
    parts = posixpath.normpath(rel).split("/")[:-1]
    if not parts or parts[0] in ("", ".", ".."):
        return []
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


__all__ = [
    "MAX_IMPORT_DEPTH",
    "PROJECT_FILES",
    "USER_FILES",
    "InstructionFile",
    "InstructionReader",
    "agents_home",
    "import_targets",
    "nested_instructions",
    "root_instructions",
]
