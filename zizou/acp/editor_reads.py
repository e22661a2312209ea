"""read_file through the editor: when the editor offers `fs/read_text_file`, a file it has open
is read as its buffer holds it, unsaved changes included, so the model sees what the person
sees. Everything else stays zizou's own: the path layer decides first whether the file may be
read at all (a secret file, or one outside the project, is refused without asking the editor),
and writes, undo snapshots and checks go to the file on disk.

When the buffer differs from the file on disk, the model is told so: an edit changes the file
on disk (and is checked against it), not the buffer. An editor that fails to answer, or answers
an error, leaves the read to the disk, as without the capability."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from acp import RequestError
from acp.schema import ReadTextFileResponse

from zizou.errors import PathError
from zizou.tools._atomic import to_lf
from zizou.tools.base import Access, ToolContext, ToolResult
from zizou.tools.read_file import (
    MAX_FILE_BYTES,
    FileProblem,
    ReadFile,
    ReadFileArgs,
    encoding_note,
    load_file,
    show_lines,
)

log = logging.getLogger(__name__)
UNSAVED = (
    "[{rel} has unsaved changes in the editor: these are the editor's lines. The file on disk "
    "differs until it is saved, and an edit changes the file on disk.]"
)


class FileClient(Protocol):
    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None
    ) -> ReadTextFileResponse: ...


class EditorReadFile(ReadFile):
    """read_file, asking the editor for the file's text first (see the module)."""

    def __init__(self, client: FileClient, session_id: Callable[[], str]) -> None:
        self.client = client
        self.session_id = session_id

    async def execute(self, args: ReadFileArgs, access: Access, ctx: ToolContext) -> ToolResult:
        buffer = await self.buffer(access.handle().path)
        if buffer is None:
            return await super().execute(args, access, ctx)
        thread = asyncio.ensure_future(asyncio.to_thread(self.shown, args, access, ctx, buffer))
        try:
            return await asyncio.shield(thread)
        except asyncio.CancelledError:  # the handles stay open until the thread is done
            await asyncio.wait({thread})
            raise

    async def buffer(self, path: Path) -> str | None:
        """The editor's text of `path`; None when it could not give it."""
        try:
            response = await self.client.read_text_file(
                session_id=self.session_id(), path=str(path)
            )
        except (ConnectionError, RequestError) as exc:
            log.info("the editor did not give %s, read from disk: %s", path, exc)
            return None
        text = response.content
        return text if len(text.encode("utf-8", "replace")) <= MAX_FILE_BYTES else None

    def shown(
        self, args: ReadFileArgs, access: Access, ctx: ToolContext, buffer: str
    ) -> ToolResult:
        """`buffer` as the file's lines, said so when the file on disk differs."""
        file = access.handle()
        try:
            data, text = load_file(file)
        except (PathError, FileProblem, OSError):
            return self.work(args, access, ctx)  # says what is wrong, as without the editor
        if to_lf(text.shown) == to_lf(buffer):
            return show_lines(args, file, data, text.shown, ctx, encoding_note(file.rel, text))
        return show_lines(args, file, data, buffer, ctx, UNSAVED.format(rel=file.rel))


__all__ = ["UNSAVED", "EditorReadFile", "FileClient"]
