"""The list_dir tool: one directory level, so the model can look around before it reads.

Only one level, and generated or vendored directories (node_modules, .git, ...) are named in a
note instead of listed, so a listing stays short enough to read in full.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass

from pydantic import Field

from zizou import confined
from zizou.errors import PathError
from zizou.ignore import IGNORED_DIRS
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, place_access

MAX_ENTRIES = 500


def human_size(size: int) -> str:
    """`512 B`, `1.5 KB`, `12.0 MB`: sizes in powers of 1024."""
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024:
            return f"{value:.1f} {unit}"
    return f"{value / 1024:.1f} TB"


@dataclass(frozen=True)
class _Entry:
    kind: str  # "dir", "file" or "link"
    name: str
    detail: str = ""

    def line(self) -> str:
        name = self.name + "/" if self.kind == "dir" else self.name
        return f"{self.kind:<5} {name}" + (f"  {self.detail}" if self.detail else "")

    def sort_key(self) -> tuple[bool, str, str]:
        return (self.kind != "dir", self.name.casefold(), self.name)


class ListDirArgs(ToolArgs):
    path: str | None = Field(
        default=None,
        description="Directory to list (default: the root).",
    )


class ListDir(Tool[ListDirArgs]):
    """List one directory level: directories first, then files with their sizes.

    Each line gives the type (dir, file or link), the name, and a size or a link's target.
    Directories such as .git, node_modules, .venv and build outputs are skipped (a note says
    which).
    """

    name = "list_dir"
    access_kind = "read"
    side_by_side = True
    summary = "List one directory level, with the files' sizes."
    Args = ListDirArgs

    def access(self, args: ListDirArgs, ctx: ToolContext) -> Access:
        return place_access("read", ctx, args.path or ".")

    def work(self, args: ListDirArgs, access: Access, ctx: ToolContext) -> ToolResult:
        [directory], [rel] = access.places, access.paths
        try:
            info = confined.stat(ctx.root, directory)
            if info is None or not stat.S_ISDIR(info.st_mode):
                what = "does not exist" if info is None else "is not a directory"
                return ToolResult.error(
                    f"{rel} {what}; give a directory (read files with read_file)"
                )
            found = confined.scandir(ctx.root, directory)
        except PathError as err:
            return ToolResult.error(str(err))
        except OSError as err:
            return ToolResult.error(f"could not list {args.path or '.'}: {err.strerror or err}")
        skipped = sorted(e.name for e in found if e.name in IGNORED_DIRS and e.is_dir)
        entries = sorted(
            (_describe(e) for e in found if e.name not in skipped), key=_Entry.sort_key
        )
        return ToolResult(ok=True, output=_render(rel, entries, skipped))


def _describe(entry: confined.Listed) -> _Entry:
    if entry.is_link:
        return _Entry("link", entry.name, f"-> {entry.link}")
    if entry.is_dir:
        return _Entry("dir", entry.name)
    if not entry.mode:
        return _Entry("file", entry.name, "(unreadable)")
    return _Entry("file", entry.name, human_size(entry.size))


def _render(rel: str, entries: list[_Entry], skipped: list[str]) -> str:
    counts = [(kind, sum(entry.kind == kind for entry in entries)) for kind in ("dir", "file")]
    counts.append(("link", len(entries) - counts[0][1] - counts[1][1]))
    summary = ", ".join(f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in counts if n)
    header = f"{rel}: {summary or 'empty'}"
    lines = [header, *(entry.line() for entry in entries[:MAX_ENTRIES])]
    if len(entries) > MAX_ENTRIES:
        lines.append(f"[... {len(entries) - MAX_ENTRIES} more entries not shown; use glob]")
    if skipped:
        lines.append(f"[skipped {len(skipped)} ignored dirs: {', '.join(skipped)}]")
    return "\n".join(lines)


TOOL = ListDir()
