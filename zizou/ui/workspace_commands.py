"""Opening and closing the workspace's windows from the app: `/add`, `/drop`, `/workspace`, an
accepted `@file` completion, and the `@PATH` mentions of a message sent to the model.

A window is checked before it opens, as the open_in_workspace tool checks the model's: the file
is a text file inside the project and the window is found in it now, so a mistake (a missing
file, lines past the end, a regex that matches nothing) is said at once and nothing opens. The
file is read in a thread: a large file or a slow regex never stalls the screen.
"""

from __future__ import annotations

import asyncio
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zizou.confined import open_handle, relative
from zizou.confined import resolve as resolve_in_root
from zizou.contracts.windows import Found, WindowError, WindowSpec, parse_cli_spec
from zizou.contracts.workspace import WorkspaceFull
from zizou.errors import PathError
from zizou.tools import open_in_workspace
from zizou.tools.read_file import FileProblem
from zizou.ui.slash_registry import slash
from zizou.ui.window_text import listing, mentions, open_names

if TYPE_CHECKING:
    from zizou.contracts.state import SessionState
    from zizou.ui.host import Notices
    from zizou.ui.opening import Opening
    from zizou.ui.widgets.messages import NoticeKind

FORMS = "/add PATH, /add PATH:10-40, /add PATH:10- or /add PATH#/regex/"
NOT_A_FILE = "Give a file inside the project; type @ to complete a name."


def _sentence(err: Exception) -> str:
    """The error's message as a sentence, ending with one full stop."""
    text = str(err)
    return text if text.endswith((".", "!", "?")) else text + "."


class NotAFile(Exception):
    """The name is not a file of the project (missing, a directory): a mention skips it."""


@dataclass(frozen=True)
class Opened:
    id: str
    path: str
    spec: WindowSpec
    found: Found | None  # None: an empty file, opened whole
    new: bool

    def says(self, why: str = "") -> str:
        """`Opened w3: src/app.py lines 12-30 (/def helper/)`, and `why` (", named in ...")."""
        where = f"lines {self.found.start}-{self.found.end}" if self.found else "empty for now"
        what = "" if self.spec.is_whole or self.spec.by_lines else f" ({self.spec.describe()})"
        if not self.new:
            return f"{self.path} {where}{what} is already open as {self.id}."
        many = ""
        if self.found is not None and self.found.candidates > 1:
            many = f" It matches {self.found.candidates} places; this is the first."
        return f"Opened {self.id}: {self.path} {where}{what}{why}.{many}"


def open_window(root: Path, state: SessionState, raw: str, spec: WindowSpec) -> Opened:
    """Open the window `spec` of the file `raw` for the user, once it is found in the file.
    Blocking. Raises NotAFile, PathError, FileProblem or WindowError (WorkspaceFull among
    them), each saying what is wrong."""
    with open_handle(root, raw) as handle:
        info = handle.stat()
        if info is None:
            raise NotAFile(f"{raw} is not a file in the project")
        if stat.S_ISDIR(info.st_mode):
            raise NotAFile(f"{raw} is a directory; a window shows a file")
        opened = open_in_workspace.open_window(handle, spec, state, "user")
    return Opened(opened.window.id, opened.window.path, spec, opened.found, opened.new)


class WorkspaceCommands:
    def __init__(self, opening: Opening, notices: Notices) -> None:
        self.opening = opening
        self.notices = notices

    @property
    def root(self) -> Path:
        return self.opening.current.root

    @property
    def state(self) -> SessionState:
        return self.opening.current.kernel.state

    @slash(
        "add",
        "PATH[:10-40|#/regex/]",
        help="open a file, or part of it, in the workspace",
        section="context",
    )
    async def add(self, args: list[str]) -> None:
        if not args:
            await self.notices.add_notice(
                "Which file?", "warning", f"{FORMS}; or type @ and a file name."
            )
            return
        for text in args:
            await self._open(text, quiet=False)

    async def open_mentions(self, message: str) -> None:
        """Before a turn: open the files the message names as `@PATH` (or `@PATH:10-20`). A
        name that is no file of the project is left alone: `@` starts other words too."""
        for text in mentions(message):
            await self._open(text, quiet=True)

    async def _open(self, text: str, quiet: bool) -> None:
        """Open the window `text` names and say so. `quiet` (a mention): a name that is no file
        is passed over, a window already open is not told again, and problems are warnings."""
        bad: NoticeKind = "warning" if quiet else "error"
        try:
            raw, spec = parse_cli_spec(text.removeprefix("@"))
        except WindowError as err:
            await self.notices.add_notice(_sentence(err), bad, f"Write it as {FORMS}.")
            return
        try:
            opened = await asyncio.to_thread(open_window, self.root, self.state, raw, spec)
        except (NotAFile, PathError) as err:
            if not quiet:
                await self.notices.add_notice(_sentence(err), bad, NOT_A_FILE)
            return
        except WorkspaceFull as err:
            await self.notices.add_notice(_sentence(err), bad, "/drop ID closes a window.")
            return
        except FileProblem as err:
            await self.notices.add_notice(_sentence(err), bad)
            return
        except OSError as err:
            await self.notices.add_notice(f"{raw} could not be read: {err.strerror or err}.", bad)
            return
        except WindowError as err:
            whole = f"/add {raw} opens the whole file" if not spec.is_whole else FORMS
            await self.notices.add_notice(_sentence(err), bad, f"Check the window; {whole}.")
            return
        if quiet and not opened.new:
            return
        said = opened.says(", named in your message" if quiet else "")
        await self.notices.add_notice(said, "success" if opened.new else "info")

    @slash(
        "drop",
        "[PATH|w3]",
        help="close a file's windows, or one window; alone: list",
        section="context",
    )
    async def drop(self, args: list[str]) -> None:
        state = self.state
        if not args:
            await self.notices.add_notice(
                listing(state.windows), fix="/drop PATH closes a file's windows; /drop w3 one."
            )
            return
        for text in args:
            closed = self._close(text)
            if closed:
                await self.notices.add_notice(f"Closed {', '.join(closed)}.", "success")
            else:
                await self.notices.add_notice(
                    f"{text} is not open.", "warning", f"Open: {open_names(state.windows)}."
                )

    def _close(self, text: str) -> list[str]:
        """Close the window `text` names (an id, a path, or a path and its window); what was
        closed, as `w3 src/app.py`."""
        state = self.state
        name = text.removeprefix("@")
        if state.window(name, use=False) is not None:
            closed = state.close_windows(window_id=name, by="user")
        else:
            try:
                raw, spec = parse_cli_spec(name)
            except WindowError:
                raw, spec = name, None
            rel = self._relative(raw)
            if spec is None or spec.is_whole:
                closed = state.close_windows(path=rel, by="user")
            else:
                closed = []
                for window in state.windows_of(rel):
                    if window.spec == spec:
                        closed += state.close_windows(window_id=window.id, by="user")
        return [f"{w.id} {w.path}" for w in closed]

    def _relative(self, raw: str) -> str:
        """The project-relative path `raw` names; as written (without `./`) when it cannot be
        resolved, so the window of a deleted file can still be closed."""
        try:
            return relative(self.root, resolve_in_root(self.root, raw))
        except (PathError, ValueError):
            return raw.removeprefix("./")

    @slash("workspace", help="list the open windows: lines, anchors, lost ones", section="context")
    async def workspace(self, args: list[str]) -> None:
        await self.notices.add_notice(
            listing(self.state.windows),
            fix=None if self.state.windows else f"{FORMS}; or type @ and a file name.",
        )


__all__ = ["FORMS", "NotAFile", "Opened", "WorkspaceCommands", "open_window"]
