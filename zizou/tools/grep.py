"""The grep tool: search file contents with ripgrep, which is fast and already gitignore-aware.

rg runs as a child process (never through a shell) in the directory searched, reached through an
fd opened without following symlinks (a single file is opened the same way and given as stdin);
the paths it prints are made project-relative. rg itself never follows symlinks (no -L). Secret
files are excluded on every call, whatever glob the model passes, in any letter case.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from zizou import confined
from zizou.errors import PathError
from zizou.ignore import IGNORED_DIRS, SECRET_FILE_GLOBS, is_secret_name
from zizou.tools._child import run_child
from zizou.tools._rg import RG_MISSING, find_rg
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, place_access

MAX_LINES = 100
MAX_BYTES = 30_000
MAX_STDERR = 4_000
TIMEOUT_S = 30.0
STDIN_NAME = "<stdin>"
NEWLINE = ord("\n")

_RG_FLAGS = (
    "--no-config",
    "--line-number",
    "--heading",  # a file's path once, before its lines
    "--with-filename",
    "--color=never",
    "--max-columns=500",
    "--max-columns-preview",
    "--hidden",
    "--no-require-git",
    "--null",  # a NUL after each path: the path is told apart from the text, whatever it holds
)
# rg walks the tree on all cores and prints as it finds; the shown matches are the first by path
# (each directory's entries in order, as `--sort=path` would list them, which walks on one
# thread) and line. Kept while reading: at most KEEP_LINES, trimmed to the first MAX_LINES.
KEEP_LINES = 4 * MAX_LINES


class GrepArgs(ToolArgs):
    pattern: str = Field(description="A regex (Rust syntax), or literal text with fixed_strings.")
    path: str | None = Field(
        default=None,
        description="File or directory to search (default: the root).",
    )
    glob: str | None = Field(
        default=None,
        description="Only files matching this glob, e.g. `*.py`.",
    )
    ignore_case: bool = Field(default=False, description="Match case-insensitively.")
    fixed_strings: bool = Field(default=False, description="The pattern is literal text.")


@dataclass(frozen=True)
class _Place:
    """Where rg runs and what it is given: a directory as `.` from a cwd reached through its fd
    (so a swapped directory cannot lead it outside), or one file as its stdin."""

    cwd: str | Path
    arg: str
    prefix: str = ""  # put before each printed path to make it root-relative
    stdin: int | None = None  # a file opened by fd; rg prints it as <stdin>
    label: str = ""  # the root-relative name of that file


@contextlib.contextmanager
def _place(root: Path, target: Path, rel: str, is_dir: bool) -> Iterator[_Place]:
    if not is_dir:
        fd = confined.open_file(root, target, os.O_RDONLY)
        try:
            yield _Place(root, "-", stdin=fd, label=rel)
        finally:
            os.close(fd)
        return
    fd = confined.open_dir_fd(root, target)
    try:
        via = f"/proc/self/fd/{fd}"  # rg's cwd: the very directory that was opened
        if Path(via).is_dir():
            yield _Place(via, ".", prefix="" if rel == "." else rel + "/")
        else:  # no /proc: rg is given the checked path itself
            yield _Place(root, rel)
    finally:
        os.close(fd)


@dataclass
class _Matches:
    """rg's output as it comes, in its `--heading` form: a file's path once (ended by a NUL),
    then its lines as `number:text`, and an empty line between files. Every line is counted, a
    run of a file's lines at a time; a file's lines are split only while it can still be shown
    and only its first MAX_LINES (the lines of a file come in order), and only the lines shown
    are decoded: a search can match thousands of lines."""

    place: _Place
    kept: list[tuple[tuple[bytes, ...], int, bytes, bytes]] = field(default_factory=list)
    total: int = 0
    _tail: bytes = b""  # an unfinished line
    _path: bytes | None = None  # the file whose lines are coming; None between files
    _parts: tuple[bytes, ...] = ()  # its path's parts, which order it
    _room: int = 0  # how many more of its lines could be shown
    _last: tuple[tuple[bytes, ...], int] | None = None  # past it no line can be shown

    def feed(self, chunk: bytes) -> None:
        data = self._tail + chunk
        cut = data.rfind(b"\n") + 1
        self._tail = data[cut:]
        self._lines(data[:cut])

    def close(self) -> None:
        if self._tail:
            self._lines(self._tail + b"\n")
            self._tail = b""

    def _lines(self, text: bytes) -> None:
        """Whole lines, each ending with a newline."""
        at, end = 0, len(text)
        while at < end:
            if text[at] == NEWLINE:  # the empty line between two files
                self._path = None
                at += 1
            elif self._path is None:
                at = self._file(text, at)
            else:
                stop = text.find(b"\n\n", at)
                stop = end if stop == -1 else stop + 1
                self._run(text[at:stop])
                at = stop

    def _file(self, text: bytes, at: int) -> int:
        """A file's first line, `path NUL number:text`: where its lines start. A line with no
        path (rg's word on a binary file) is kept as it is."""
        line_end = text.index(b"\n", at)
        nul = text.find(b"\0", at, line_end)
        if nul == -1:
            self.total += 1
            self._keep((), 0, b"", text[at:line_end])
            return line_end + 1
        self._path = text[at:nul]
        self._parts = tuple(self._path.removeprefix(b"./").split(b"/"))
        past = self._last is not None and self._parts > self._last[0]
        self._room = 0 if past else MAX_LINES
        return nul + 1

    def _run(self, run: bytes) -> None:
        """Lines of the current file, each ending with a newline."""
        count = run.count(b"\n")
        self.total += count
        if self._room <= 0:
            return
        wanted = min(count, self._room)
        self._room -= count
        assert self._path is not None
        for line in run.split(b"\n", wanted)[:wanted]:
            number, _, _ = line.partition(b":")
            self._keep(self._parts, int(number) if number.isdigit() else 0, self._path, line)

    def _keep(self, parts: tuple[bytes, ...], number: int, path: bytes, line: bytes) -> None:
        if self._last is not None and (parts, number) > self._last:
            return
        self.kept.append((parts, number, path, line))
        if len(self.kept) >= KEEP_LINES:
            self.kept = sorted(self.kept)[:MAX_LINES]
            self._last = self.kept[-1][:2]

    @property
    def lines(self) -> list[str]:
        """The first matching lines by path and line number, within MAX_LINES and MAX_BYTES."""
        shown: list[str] = []
        size = 0
        for _, _, path, line in sorted(self.kept)[:MAX_LINES]:
            text = self._text(path, line)
            if size + len(text) + 1 > MAX_BYTES:
                break
            shown.append(text)
            size += len(text) + 1
        return shown

    def _text(self, path: bytes, line: bytes) -> str:
        """`path:line:text`, the path relative to the root."""
        text = (path + b":" + line if path else line).decode("utf-8", "replace")
        if self.place.stdin is not None:
            return self.place.label + text.removeprefix(STDIN_NAME)
        return self.place.prefix + text.removeprefix("./")


class Grep(Tool[GrepArgs]):
    """Search file contents with ripgrep; prints `path:line:text` for each matching line.

    Escape `(`, `[`, `.` in the pattern, or set fixed_strings. Files git ignores, directories
    such as node_modules and build outputs, and secret files (.env*, *.pem, id_rsa*) are not
    searched. At most 100 matching lines: narrow with `path` and `glob` when there are more.
    """

    name = "grep"
    label_field = "pattern"
    access_kind = "read"
    side_by_side = True
    summary = "Search file contents for a regex with ripgrep."
    Args = GrepArgs

    def access(self, args: GrepArgs, ctx: ToolContext) -> Access:
        return place_access("read", ctx, args.path or ".")

    async def execute(self, args: GrepArgs, access: Access, ctx: ToolContext) -> ToolResult:
        [target], [rel] = access.places, access.paths
        try:
            info = confined.stat(ctx.root, target)
        except PathError as err:
            return ToolResult.error(str(err))
        if is_secret_name(target.name) or is_secret_name(Path(args.path or ".").name):
            return ToolResult.error(f"{rel} looks like a secret file; its contents are not read")
        if info is None:
            return ToolResult.error(f"{rel} does not exist; use glob or list_dir to find the path")
        rg = find_rg()
        if rg is None:
            return ToolResult.error(RG_MISSING)
        try:
            with _place(ctx.root, target, rel, stat.S_ISDIR(info.st_mode)) as place:
                argv = [rg, *_rg_args(args), "--", place.arg]
                code, matches, stderr = await _run_rg(argv, place)
        except PathError as err:
            return ToolResult.error(str(err))
        except OSError as err:
            return ToolResult.error(f"could not run rg: {err}")
        except TimeoutError:
            return ToolResult.error(f"rg took longer than {TIMEOUT_S:.0f} s; narrow the search")
        return _result(args, rel, code, matches, stderr)


def _rg_args(args: GrepArgs) -> list[str]:
    argv = [*_RG_FLAGS, "-e", args.pattern]
    if args.ignore_case:
        argv.append("--ignore-case")
    if args.fixed_strings:
        argv.append("--fixed-strings")
    if args.glob:
        argv += ["--glob", args.glob]
    for excluded in sorted(IGNORED_DIRS):
        argv += ["--glob", "!" + excluded]
    # rg applies --iglob after --glob, so these win over any glob the model passes; and they
    # ignore case, so `.ENV`, `ID_RSA` and `Server.PEM` are never searched either.
    for excluded in SECRET_FILE_GLOBS:
        argv += ["--iglob", "!" + excluded]
    return argv


async def _run_rg(argv: list[str], place: _Place) -> tuple[int, _Matches, str]:
    """Run rg, keeping the first matching lines and counting the rest; kill it on timeout."""
    matches = _Matches(place)
    code, stderr = await asyncio.wait_for(
        run_child(
            argv,
            cwd=place.cwd,
            stdin=place.stdin,
            on_stdout=matches.feed,
            stderr_limit=MAX_STDERR,
        ),
        TIMEOUT_S,
    )
    matches.close()
    return code, matches, stderr.decode("utf-8", "replace").strip()


def _result(args: GrepArgs, rel: str, code: int, matches: _Matches, stderr: str) -> ToolResult:
    if code == 1 or (code == 0 and not matches.total):
        where = "the project" if rel == "." else rel
        return ToolResult(ok=True, output=f"No matches for {args.pattern!r} in {where}.")
    if code not in (0, 1) and not matches.total:
        hint = "" if args.fixed_strings else " (for literal text set fixed_strings)"
        return ToolResult.error(f"rg failed with exit code {code}{hint}:\n{stderr}")
    lines = matches.lines
    output = "\n".join(lines)
    hidden = matches.total - len(lines)
    if hidden:
        output += f"\n[... {hidden} more matches not shown; narrow the search]"
    if stderr:
        output += f"\n[rg reported problems: {stderr.splitlines()[0]}]"
    return ToolResult(ok=True, output=output)


TOOL = Grep()
