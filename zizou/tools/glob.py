"""The glob tool: find files by name, the way the model would ask a person ("all the tests").

Patterns follow ripgrep's `--glob` convention: without a `/` they match the file name at any
depth; with one they match the path below the search directory. Newest files come first because
the files being worked on are usually the ones the model wants.
"""

from __future__ import annotations

import asyncio
import re
import stat
from pathlib import Path

from pydantic import Field

from zizou import confined
from zizou.confined import relative
from zizou.errors import PathError
from zizou.ignore import project_files
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, place_access

MAX_RESULTS = 200


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob: `*` and `?` stay within one path segment, `**` crosses them, and
    `{a,b}` and `[abc]` work as in a shell."""
    return re.compile(_translate(pattern) + r"\Z")


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(r".*")
            i += 2
        elif ch == "*":
            out.append(r"[^/]*")
            i += 1
        elif ch == "?":
            out.append(r"[^/]")
            i += 1
        elif ch == "[" and (close := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : close]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close + 1
        elif ch == "{" and (close := _closing_brace(pattern, i)) != -1:
            options = _split_top_level(pattern[i + 1 : close])
            out.append("(?:" + "|".join(_translate(option) for option in options) + ")")
            i = close + 1
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def _closing_brace(pattern: str, start: int) -> int:
    depth = 0
    for index in range(start, len(pattern)):
        if pattern[index] == "{":
            depth += 1
        elif pattern[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _split_top_level(body: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        current += ch
    return [*parts, current]


class GlobArgs(ToolArgs):
    pattern: str = Field(description="Glob pattern, e.g. `**/test_*.py` or `*.{js,jsx}`.")
    path: str | None = Field(
        default=None,
        description="Directory to search (default: the root).",
    )


class Glob(Tool[GlobArgs]):
    """Find files whose path matches a glob pattern, newest first.

    Without `/` a pattern matches file names at any depth (`*.py`); with `/` it matches the path
    below `path` (`src/**/*.ts`). `**` spans directories, `{a,b}` gives alternatives. Files git
    ignores and directories such as .git, node_modules, .venv and build outputs are skipped. At
    most 200 paths. Use grep to search contents.
    """

    name = "glob"
    label_field = "pattern"
    access_kind = "read"
    side_by_side = True
    summary = "Find files by a glob pattern such as `src/**/*.ts`, newest first."
    Args = GlobArgs

    def access(self, args: GlobArgs, ctx: ToolContext) -> Access:
        return place_access("read", ctx, args.path or ".")

    async def execute(self, args: GlobArgs, access: Access, ctx: ToolContext) -> ToolResult:
        [base], [base_rel] = access.places, access.paths
        try:
            info = confined.stat(ctx.root, base)
        except PathError as err:
            return ToolResult.error(str(err))
        if info is None or not stat.S_ISDIR(info.st_mode):
            what = "does not exist" if info is None else "is not a directory"
            return ToolResult.error(f"{base_rel} {what}; give a directory to search in")
        pattern = args.pattern.strip().removeprefix("./").lstrip("/")
        if not pattern:
            return ToolResult.error("the pattern is empty; try `*.py` or `src/**/*.ts`")
        try:
            files = await asyncio.to_thread(_matching, ctx.root, base, pattern)
        except OSError as err:
            return ToolResult.error(f"could not list files under {base_rel}: {err}")
        if not files:
            where = "the project" if base_rel == "." else base_rel
            note = f"No files match {args.pattern!r} in {where} (git-ignored files are skipped)."
            return ToolResult(ok=True, output=note)
        shown = "\n".join(files[:MAX_RESULTS])
        if len(files) > MAX_RESULTS:
            shown += f"\n[... {len(files) - MAX_RESULTS} more not shown; narrow the pattern]"
        return ToolResult(ok=True, output=shown)


def _matching(root: Path, base: Path, pattern: str) -> list[str]:
    """Matching root-relative paths, newest first (ties by path)."""
    regex = glob_to_regex(pattern)
    base_rel = relative(root, base)
    prefix = "" if base_rel == "." else base_rel + "/"
    dated: list[tuple[float, str]] = []
    for rel in project_files(root, base):
        below = rel[len(prefix) :]
        subject = below if "/" in pattern else below.rsplit("/", 1)[-1]
        if not regex.match(subject):
            continue
        try:
            info = (root / rel).lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
            dated.append((-info.st_mtime, rel))
    dated.sort()
    return [rel for _, rel in dated]


TOOL = Glob()
