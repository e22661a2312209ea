"""The open_in_workspace tool: keep a file, or a window of it, in front of the model.

An open window is shown, current and with numbered lines, in the WORKSPACE section of the system
prompt at every step, and follows the code as it moves (core/windows.py). The window is found
now, so a mistake (a regex that does not compile, or matches nothing) is an error at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from pydantic import Field

from zizou.confined import PathHandle
from zizou.contracts.windows import WHOLE_FILE, Found, WindowError, WindowSpec
from zizou.contracts.workspace import Window
from zizou.errors import PathError
from zizou.secret_files import is_secret_name
from zizou.tools._windows import WindowArgs, locate
from zizou.tools.base import (
    Access,
    Tool,
    ToolArgs,
    ToolContext,
    ToolResult,
    ToolState,
    file_access,
)
from zizou.tools.read_file import FileProblem, load_text


class OpenArgs(ToolArgs):
    path: str = Field(description="File to open.")
    window: WindowArgs | None = Field(
        default=None,
        description="The part to keep open; without it, the whole file.",
    )


class OpenInWorkspace(Tool[OpenArgs]):
    """Open a file, or a window of it, in your workspace.

    The WORKSPACE section shows it with numbered lines, current at every step, so you need not
    read it again. A regex or text window is found again at every step, and a window of line
    numbers shifts when an edit above it adds or removes lines. Each window gets an id (w1,
    w2...) for close_in_workspace and replace_window. Windows look like
    {"regex": "def parse\\(.*\\n(?:.*\\n)*?    return"}, {"start_line": 40, "end_line": 80},
    {"start": "class Config", "end_regex": "^\\S"}. At most 32 windows, 8 per file: open the
    part you need, not a whole long file.
    """

    name = "open_in_workspace"
    access_kind = "read"
    summary = "Keep a file or a window of it (lines, text or regex) shown current at every step."
    Args = OpenArgs

    def label(self, args: OpenArgs) -> str:
        if args.window is None:
            return args.path
        try:
            return f"{args.path} · {args.window.spec().describe()}"
        except WindowError:
            return args.path

    def access(self, args: OpenArgs, ctx: ToolContext) -> Access:
        return file_access("read", ctx, args.path)

    def work(self, args: OpenArgs, access: Access, ctx: ToolContext) -> ToolResult:
        try:
            spec = args.window.spec() if args.window is not None else WHOLE_FILE
            opened = open_window(access.handle(), spec, ctx.state, "model")
        except (PathError, FileProblem, WindowError) as err:
            return ToolResult.error(str(err))
        except OSError as err:
            return ToolResult.error(f"could not read {args.path}: {err.strerror or err}")
        if not opened.new:
            return ToolResult(ok=True, output=f"{opened.describe()} is already open.")
        many = ""
        if opened.found is not None and opened.found.candidates > 1:
            many = (
                f" The window matches {opened.found.candidates} places; this is the first. "
                "Make it more specific if you meant another."
            )
        return ToolResult(
            ok=True,
            output=f"Opened {opened.describe()}. It is shown, current, in the WORKSPACE section "
            f"at every step.{many}",
        )


@dataclass(frozen=True)
class Opened:
    window: Window
    new: bool
    found: Found | None  # where it is now; None for an empty file opened whole

    def describe(self) -> str:
        """`w3: src/app.py lines 12-30 (/def helper/)`."""
        spec = self.window.spec
        where = f"lines {self.found.start}-{self.found.end}" if self.found else "empty for now"
        what = "" if spec.is_whole or spec.by_lines else f" ({spec.describe()})"
        return f"{self.window.id}: {self.window.path} {where}{what}"


def open_window(file: PathHandle, spec: WindowSpec, state: ToolState, by: str) -> Opened:
    """Open `spec` of the file `file` holds, found in it now: what the tool, `/add` and
    `--open` all do. Raises FileProblem, WindowError (WorkspaceFull) or PathError, and opens
    nothing then."""
    if is_secret_name(PurePosixPath(file.rel).name):
        raise FileProblem(
            f"{file.rel} may hold secrets, and zizou does not put secret files in the workspace"
        )
    _, lines = load_text(file)
    found = locate(spec, lines, file.rel) if lines or not spec.is_whole else None
    window, new = state.open_window(file.rel, spec, by)
    return Opened(window, new, found)


TOOL = OpenInWorkspace()
