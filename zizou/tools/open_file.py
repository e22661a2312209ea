"""The open_file tool: show the user a file (a page, an image, a report) in their own app.

The opener runs detached in its own session so closing zizou leaves the app open. The loop asks
the user first (Access kind "open"); the tool itself only checks the path.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys

from pydantic import Field

from zizou import confined
from zizou.env import scrubbed_env
from zizou.errors import PathError
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, place_access

OPENER_WAIT_S = 2.0


def default_opener() -> list[str] | None:
    """The command that opens a file in the OS default app, or None when there is none."""
    if sys.platform == "darwin":
        name = "open"
    elif sys.platform == "win32":
        return None
    else:
        name = "xdg-open"
    found = shutil.which(name)
    return [found] if found else None


class OpenFileArgs(ToolArgs):
    path: str = Field(description="File to open.")


class OpenFile(Tool[OpenFileArgs]):
    """Open a file in the user's default application (a browser for .html, a viewer for images)
    to show them a result they asked to see; the user is asked first. It returns no content.
    """

    name = "open_file"
    access_kind = "open"
    summary = "Show the user a file in their default application; it returns no content."
    Args = OpenFileArgs

    def __init__(self, opener: list[str] | None = None) -> None:
        self.opener = opener
        self._waiting: set[asyncio.Task[int]] = set()

    def access(self, args: OpenFileArgs, ctx: ToolContext) -> Access:
        return place_access("open", ctx, args.path)

    async def execute(self, args: OpenFileArgs, access: Access, ctx: ToolContext) -> ToolResult:
        [path], [rel] = access.places, access.paths
        try:
            info = confined.stat(ctx.root, path)
        except PathError as err:
            return ToolResult.error(str(err))
        if info is None:
            return ToolResult.error(f"{rel} does not exist; use glob to find the file you mean")
        opener = self.opener or default_opener()
        if opener is None and sys.platform == "win32":
            try:
                await asyncio.to_thread(os.startfile, path)
            except OSError as err:
                return ToolResult.error(f"could not open {rel}: {err}")
            return ToolResult(ok=True, output=f"Opened {rel} in the default application.")
        if opener is None:
            return ToolResult.error(
                "no program to open files with: install xdg-utils (for `xdg-open`) "
                "or tell the user where the file is"
            )
        return await self._launch(opener, path, rel, ctx)

    async def _launch(
        self, opener: list[str], path: os.PathLike[str], rel: str, ctx: ToolContext
    ) -> ToolResult:
        try:
            proc = await asyncio.create_subprocess_exec(
                *opener,
                os.fspath(path),
                cwd=ctx.root,
                env=scrubbed_env(os.environ),  # the app outlives zizou: it gets no keys
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as err:
            return ToolResult.error(f"could not run {opener[0]}: {err.strerror or err}")
        waiter = asyncio.create_task(proc.wait())
        done, _ = await asyncio.wait({waiter}, timeout=OPENER_WAIT_S)
        if not done:
            self._waiting.add(waiter)  # the app is still starting; reap it when it exits
            waiter.add_done_callback(self._waiting.discard)
        elif waiter.result() != 0:
            return ToolResult.error(
                f"{opener[0]} could not open {rel} (exit code {waiter.result()}); "
                "tell the user where the file is instead"
            )
        return ToolResult(ok=True, output=f"Opened {rel} in the default application.")


TOOL = OpenFile()
