"""Instructions on demand: named procedures the model reads only when a task calls for one.

The prompt carries a catalogue, one `- name: summary` line each; `get_instructions(name)`
returns the full text. A summary is the front matter's `description`, else the body's first
sentence, never a model call: loading is a directory scan at every session start, so it stays
cheap (see bench/instructions.py).

Sources, each overriding the ones before it by name (an override is noted, not an error): the
package's builtins, the user's config dir, the project's `.claude/skills/*/SKILL.md` and
`.agents/skills/*/SKILL.md` (the files other agents read), and the project's own
`.zizou/instructions/` (`NAME.md` or `NAME/INSTRUCTIONS.md`), which wins. Project files come
with the repository, so they are untrusted: read through `zizou.confined` (a symlink out of the
project is never followed), at most 200 KB each; a binary or unreadable file is skipped with a
warning, a long body is cut with a note.
"""

from __future__ import annotations

import codecs
import difflib
import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from zizou import confined
from zizou.errors import PathError
from zizou.paths import PROJECT_DIR_NAME
from zizou.user_dirs import user_config_dir

BODY_MAX_CHARS = 20_000
READ_MAX_BYTES = 200_000
SUMMARY_MAX_CHARS = 200
NAME_MAX_CHARS = 64
CATALOGUE_MAX_ENTRIES = 50
CATALOGUE_MAX_CHARS = 4_000
LIST_MAX_CHARS = 20_000  # what get_instructions('?') returns, at most
FILES_PER_SOURCE = 500  # a repository with more is not scanned further
BUILTIN_DIR = Path(__file__).resolve().parents[1] / "instructions"
CATALOGUE_INTRO = (
    "Instructions on demand: before you start one of these kinds of task, call "
    "get_instructions(name) to read its full procedure, then follow it."
)

Layout = Literal["instructions", "skills"]


@dataclass(frozen=True)
class Instruction:
    """One named procedure. `source` is `builtin`, `user`, `project`, or the skills folder it
    came from (`.claude/skills`, `.agents/skills`); `path` is the file it was read from."""

    name: str
    summary: str
    body: str
    source: str
    sticky: bool
    path: Path


@dataclass(frozen=True)
class _Source:
    label: str
    folder: str  # absolute for trusted sources, project-relative for the project's
    layout: Layout
    trusted: bool


def _sources(root: Path) -> list[_Source]:
    """Lowest precedence first."""
    return [
        _Source("builtin", str(BUILTIN_DIR), "instructions", trusted=True),
        _Source("user", str(user_config_dir() / "instructions"), "instructions", trusted=True),
        _Source(".claude/skills", ".claude/skills", "skills", trusted=False),
        _Source(".agents/skills", ".agents/skills", "skills", trusted=False),
        _Source("project", f"{PROJECT_DIR_NAME}/instructions", "instructions", trusted=False),
    ]


class InstructionSet:
    """The instructions found for one project, by name; `warnings` name the files skipped,
    `notes` the overrides."""

    def __init__(
        self,
        instructions: Iterable[Instruction] = (),
        *,
        warnings: Sequence[str] = (),
        notes: Sequence[str] = (),
    ) -> None:
        self._by_name = {item.name: item for item in instructions}
        self.warnings = tuple(warnings)
        self.notes = tuple(notes)

    @classmethod
    def load(cls, root: Path) -> InstructionSet:
        found: dict[str, Instruction] = {}
        warnings: list[str] = []
        notes: list[str] = []
        for source in _sources(root):
            here: dict[str, Instruction] = {}
            for item in _scan(root, source, warnings):
                if item.name in here:
                    warnings.append(
                        f"{_where(item, root)} skipped: {_where(here[item.name], root)} "
                        f"already defines instructions '{item.name}'"
                    )
                    continue
                here[item.name] = item
                if item.name in found:
                    notes.append(
                        f"instructions '{item.name}' from {_where(item, root)} override "
                        f"the ones from {_where(found[item.name], root)}"
                    )
                found[item.name] = item
        return cls(found.values(), warnings=warnings, notes=notes)

    def __len__(self) -> int:
        return len(self._by_name)

    def __iter__(self) -> Iterator[Instruction]:
        return (self._by_name[name] for name in self.names())

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def get(self, name: str) -> Instruction | None:
        key = normalise_name(name)
        return self._by_name.get(key) if key else None

    def nearest(self, name: str) -> str | None:
        """The known name closest to `name` (a typo, a missing prefix), if any is close."""
        wanted = normalise_name(name) or name.strip().lower()
        close = difflib.get_close_matches(wanted, self.names(), n=1, cutoff=0.6)
        return close[0] if close else None

    def catalogue(self) -> str:
        """The INSTRUCTIONS layer: an intro line, then `- name: summary` lines (at most 50 and
        4,000 characters, the rest counted); empty when there are no instructions."""
        if not self._by_name:
            return ""
        more = "- ... and {} more: call get_instructions('?') to list them all."
        return _bounded(
            CATALOGUE_INTRO, list(self), CATALOGUE_MAX_ENTRIES, CATALOGUE_MAX_CHARS, more
        )

    def lookup(self, name: str) -> str:
        """What `get_instructions(name)` returns: the full text under a heading; `'?'` lists
        every name with its summary; an unknown name gets the names and the nearest one (that
        case is the only one where `get(name)` is None and `name` is not `'?'`)."""
        if name.strip() == "?":
            return self._listing()
        item = self.get(name)
        if item is not None:
            return f"# Instructions: {item.name}\n\n{item.body}"
        if not self._by_name:
            return f"No instructions named {name.strip()!r}: none are installed."
        nearest = self.nearest(name)
        hint = f" Did you mean {nearest!r}?" if nearest else ""
        names = self.names()
        known = ", ".join(names[:CATALOGUE_MAX_ENTRIES])
        if len(names) > CATALOGUE_MAX_ENTRIES:
            known += f" and {len(names) - CATALOGUE_MAX_ENTRIES} more"
        return (
            f"No instructions named {name.strip()!r}.{hint} Known names: {known}. "
            "Call get_instructions('?') for their summaries."
        )

    def _listing(self) -> str:
        if not self._by_name:
            return "No instructions are installed."
        head = f"All {len(self)} instructions; call get_instructions(name) for one:"
        more = "- ... and {} more, not listed here."
        return _bounded(head, list(self), len(self), LIST_MAX_CHARS, more)


def _bounded(head: str, items: list[Instruction], entries: int, chars: int, more: str) -> str:
    """`head`, then a line per item while at most `entries` and `chars` allow, then `more`
    with the count of those left out."""
    lines = [head]
    size = len(head) + len(more) + 8  # the "more" line always fits
    for item in items[:entries]:
        line = _entry(item)
        if size + 1 + len(line) > chars:
            break
        lines.append(line)
        size += 1 + len(line)
    if len(lines) <= len(items):
        lines.append(more.format(len(items) - len(lines) + 1))
    return "\n".join(lines)


def _entry(item: Instruction) -> str:
    return f"- {item.name}: {item.summary}" if item.summary else f"- {item.name}"


def _where(item: Instruction, root: Path) -> str:
    if item.source == "builtin":
        return "the builtins"
    if item.source == "user":
        return str(item.path)
    return item.path.relative_to(root).as_posix()


# Finding the files.

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO planted in the project must not hang zizou.
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
_LINKED = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)  # O_NOFOLLOW met a symlink

Read = tuple[bytes, bool]  # a file's first 200 KB, and whether there is more
Found = tuple[str, str, Read]  # the default name, the file as shown, what it holds


def _scan(root: Path, source: _Source, warnings: list[str]) -> list[Instruction]:
    if source.trusted:
        found = _trusted_files(source, warnings)
    else:
        found = _project_files(root, source, warnings)
    items = []
    for default_name, shown, (data, truncated) in found:
        path = Path(shown) if source.trusted else root / shown
        item = parse(data, default_name, source.label, path, truncated=truncated)
        if isinstance(item, str):
            warnings.append(f"{shown} skipped: {item}")
        else:
            items.append(item)
    return items


def _candidates(
    listed: list[tuple[str, bool]], source: _Source, warnings: list[str]
) -> list[tuple[str, list[str]]]:
    """For each (entry name, is a directory), sorted: the default name and the file to read
    (as parts below the source folder) that it offers, if any."""
    found: list[tuple[str, list[str]]] = []
    for name, is_dir in sorted(listed):
        if source.layout == "skills":
            if is_dir:
                found.append((name, [name, "SKILL.md"]))
        elif is_dir:
            found.append((name, [name, "INSTRUCTIONS.md"]))
        elif name.endswith(".md"):
            found.append((name[:-3], [name]))
    if len(found) > FILES_PER_SOURCE:
        warnings.append(
            f"{source.folder}: only the first {FILES_PER_SOURCE} of {len(found)} "
            "instruction files are read"
        )
    return found[:FILES_PER_SOURCE]


def _trusted_files(source: _Source, warnings: list[str]) -> list[Found]:
    """The builtins' and the user's files: the user's own, so their symlinks are followed."""
    try:
        with os.scandir(source.folder) as entries:
            listed = [(entry.name, entry.is_dir()) for entry in entries]
    except FileNotFoundError:
        return []
    except OSError as err:
        warnings.append(f"{source.folder} skipped: {err.strerror or err}")
        return []
    found: list[Found] = []
    for default_name, parts in _candidates(listed, source, warnings):
        path = str(Path(source.folder).joinpath(*parts))
        try:
            with open(path, "rb") as file:
                data = file.read(READ_MAX_BYTES + 1)
        except FileNotFoundError:
            continue  # a folder without the file: not an instruction
        except OSError as err:
            warnings.append(f"{path} skipped: {err.strerror or err}")
            continue
        found.append((default_name, path, (data[:READ_MAX_BYTES], len(data) > READ_MAX_BYTES)))
    return found


def _project_files(root: Path, source: _Source, warnings: list[str]) -> list[Found]:
    """The folder is resolved strictly and opened once; each file is then opened by fd below
    it with O_NOFOLLOW, and only a symlink on the way sends it through `confined.resolve`
    (kept inside the project) again: a walk from the root per file costs 30 ms for 200."""
    try:
        folder = confined.resolve(root, source.folder)
        info = confined.stat(root, folder)
        if info is None or not stat.S_ISDIR(info.st_mode):
            return []
        dir_fd = confined.open_dir_fd(root, folder)
    except PathError as err:
        warnings.append(f"{source.folder} skipped: {err}")
        return []
    found: list[Found] = []
    try:
        listed = []
        with os.scandir(dir_fd) as entries:
            for entry in entries:
                is_dir: bool | None = entry.is_dir(follow_symlinks=False)
                if entry.is_symlink():
                    is_dir = _link_is_dir(root, f"{source.folder}/{entry.name}", warnings)
                if is_dir is not None:
                    listed.append((entry.name, is_dir))
        for default_name, parts in _candidates(listed, source, warnings):
            rel = "/".join([source.folder, *parts])
            try:
                read = _read_file(root, dir_fd, parts, rel)
            except (OSError, PathError) as err:
                warnings.append(f"{rel} skipped: {_why(err)}")
                continue
            if read is not None:
                found.append((default_name, rel, read))
    except (OSError, PathError) as err:
        warnings.append(f"{source.folder} skipped: {_why(err)}")
    finally:
        os.close(dir_fd)
    return found


class _Linked(Exception):
    """A symlink was met on the way to a file: read it through `confined.resolve` instead."""


def _why(err: Exception) -> str:
    return (err.strerror or str(err)) if isinstance(err, OSError) else str(err)


def _link_is_dir(root: Path, rel: str, warnings: list[str]) -> bool | None:
    """Whether a symlink in the project leads to a directory; None (with a warning) when it
    leads out of the project or somewhere unsafe, None (quietly) when it leads nowhere."""
    try:
        info = confined.stat(root, confined.resolve_unasked(root, rel))
    except PathError as err:
        warnings.append(f"{rel} skipped: {err}")
        return None
    return None if info is None else stat.S_ISDIR(info.st_mode)


def _read_file(root: Path, dir_fd: int, parts: list[str], rel: str) -> Read | None:
    """The file by fd below its folder; through `confined.resolve_unasked` when a symlink is
    on the way (a link out of the project, or to a secret file, is a PathError)."""
    try:
        return _read_below(dir_fd, parts, rel)
    except _Linked:
        return _read_confined(root, rel)


def _read_below(dir_fd: int, parts: list[str], rel: str) -> Read | None:
    """The file `parts` below the directory `dir_fd`, every step opened without following a
    symlink; None when it does not exist, _Linked when a symlink is in the way."""
    fds: list[int] = []
    try:
        parent = dir_fd
        for index, part in enumerate(parts):
            flags = _FILE_FLAGS if index == len(parts) - 1 else _DIR_FLAGS
            fds.append(os.open(part, flags, dir_fd=parent))
            parent = fds[-1]
        return _read_fd(fds[-1])
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno in _LINKED:
            raise _Linked(rel) from err
        raise
    finally:
        for fd in fds:
            os.close(fd)


def _read_confined(root: Path, rel: str) -> Read | None:
    """The file at `rel`, its symlinks resolved inside the project (a link out is a
    PathError), read by fd as prompt.py reads AGENTS.md; None when it does not exist."""
    path = confined.resolve_unasked(root, rel)
    if confined.stat(root, path) is None:
        return None
    fd = confined.open_file(root, path, os.O_RDONLY)
    try:
        return _read_fd(fd)
    finally:
        os.close(fd)


def _read_fd(fd: int) -> Read:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise PathError("it is not a regular file")
    want = min(info.st_size, READ_MAX_BYTES)  # the size stat gave: no oversized buffer
    return confined.read_fd(fd, want), info.st_size > READ_MAX_BYTES


# Reading one file.


def parse(
    data: bytes, default_name: str, source: str, path: Path, *, truncated: bool = False
) -> Instruction | str:
    """The instruction a file holds, or why it cannot be one (binary, not UTF-8, no usable
    name). `truncated`: `data` is only the head of the file."""
    if b"\0" in data:
        return "it is a binary file"
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=not truncated)
    except UnicodeDecodeError:
        return "it is not UTF-8 text"
    fields, body = split_front_matter(text.removeprefix("\ufeff").replace("\r\n", "\n"))
    raw_name = fields.get("name") or default_name
    name = normalise_name(raw_name)
    if name is None:
        return (
            f"its name {raw_name!r} cannot be made of lowercase letters, digits and hyphens "
            f"(at most {NAME_MAX_CHARS} characters); rename it"
        )
    body = body.strip("\n").rstrip()
    if len(body) > BODY_MAX_CHARS or truncated:
        body = (
            body[:BODY_MAX_CHARS].rstrip()
            + f"\n\n[... {name} cut at {BODY_MAX_CHARS:,} characters; the rest is not shown ...]"
        )
    description = " ".join(fields.get("description", "").split())
    summary = _shorten(description or first_sentence(body), SUMMARY_MAX_CHARS)
    sticky = fields.get("sticky", "").strip().lower() in ("true", "yes", "on", "1")
    return Instruction(name, summary, body, source, sticky, path)


def normalise_name(raw: str) -> str | None:
    """`My_Skill name` -> `my-skill-name`; None when something else than letters, digits,
    spaces, hyphens and underscores is left, or nothing is."""
    name = re.sub(r"[\s_-]+", "-", raw.strip().lower()).strip("-")
    if not name or len(name) > NAME_MAX_CHARS or not re.fullmatch(r"[a-z0-9-]+", name):
        return None
    return name


_KEY_LINE = re.compile(r"([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")
_BLOCK = re.compile(r"([|>])[-+0-9]*[ \t]*(?:#.*)?$")


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """The top-level scalar fields of a `---` block at the top (keys lowercased; nested
    values come back as flat text, for keys nobody reads) and the text after it.

    Not a YAML parser, on purpose: it accepts what skills are written with (plain, quoted
    and `|`/`>` block values) and never fails; an unclosed block is no front matter.
    """
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return {}, text
    entries: list[tuple[str, str, list[str]]] = []  # key, first line's value, lines after
    for line in lines[1:end]:
        if line.startswith("#"):
            continue
        match = _KEY_LINE.match(line) if line[:1] not in (" ", "\t", "-") else None
        if match is not None:
            entries.append((match.group(1).lower(), (match.group(2) or "").strip(), []))
        elif entries:
            entries[-1][2].append(line)
    fields = {key: _scalar(value, rest) for key, value, rest in entries}
    return fields, "\n".join(lines[end + 1 :])


def _scalar(value: str, rest: list[str]) -> str:
    """One field's value from its first line and the indented lines after it."""
    if _BLOCK.fullmatch(value):
        kept = [line for line in rest if line.strip()]
        indent = min((len(line) - len(line.lstrip()) for line in kept), default=0)
        lines = [line[indent:].rstrip() for line in rest]
        joined = "\n".join(lines).strip("\n")
        return joined if value[0] == "|" else " ".join(joined.split())
    text = " ".join([value, *(line.strip() for line in rest if not line.lstrip().startswith("#"))])
    text = text.strip()
    if text[:1] == '"':
        return _double_quoted(text)
    if text[:1] == "'":
        closing = re.match(r"'((?:[^']|'')*)'", text)
        return closing.group(1).replace("''", "'") if closing else text[1:]
    return re.sub(r"\s+#.*$", "", text)


_ESCAPES = {"n": "\n", "t": "\t", "r": "", "0": ""}


def _double_quoted(text: str) -> str:
    quoted = re.match(r'"((?:[^"\\]|\\.)*)', text)
    inner = quoted.group(1) if quoted else text[1:]
    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", _unescape, inner)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    return chr(int(code[1:], 16)) if len(code) == 5 else _ESCAPES.get(code, code)


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.!?](?=\s|$)")
_LIST_MARK = re.compile(r"^(?:[-*+>]|\d+[.)])\s+")


def first_sentence(body: str) -> str:
    """The first sentence of the body's first paragraph of prose (headings, code blocks,
    tables and comments are passed over); the first heading when there is no prose."""
    heading = ""
    paragraph: list[str] = []
    fenced = False
    for line in body.split("\n"):
        text = line.strip()
        if text.startswith(("```", "~~~")):
            fenced = not fenced
        elif fenced:
            continue
        elif text and not text.startswith(("#", "<!--", "|", "---", "***", "===")):
            paragraph.append(_LIST_MARK.sub("", text))
            continue
        elif text.startswith("#") and not heading:
            heading = text.lstrip("#").strip()
        if paragraph:
            break
    prose = " ".join(" ".join(paragraph).split()).replace("**", "").replace("__", "")
    if not prose:
        return heading
    end = _SENTENCE_END.search(prose)
    return prose[: end.end()] if end else prose


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return (cut if len(cut) > limit // 2 else text[: limit - 1]).rstrip(" ,;:") + "…"


__all__ = [
    "BODY_MAX_CHARS",
    "BUILTIN_DIR",
    "CATALOGUE_INTRO",
    "CATALOGUE_MAX_CHARS",
    "CATALOGUE_MAX_ENTRIES",
    "Instruction",
    "InstructionSet",
    "first_sentence",
    "normalise_name",
    "parse",
    "split_front_matter",
]
