"""The protocol's own stdin and stdout, kept apart from everything else the process writes.

A stray line on stdout (a dependency's banner, a hook's print, a child process that inherits
the descriptor) would corrupt the client's stream, so the protocol takes private copies of
descriptors 0 and 1, and 1 is pointed at stderr, 0 at /dev/null: whatever else writes to
stdout lands on stderr. The SDK skips a line that is not JSON without a word; the transport
here answers it with a JSON-RPC parse error (-32700), and anything that is not an object with
-32600, and keeps serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, BinaryIO

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProtocolPipes:
    """The descriptors the protocol reads and writes: the process's stdin and stdout as they
    were when `zizou acp` started."""

    incoming: BinaryIO
    outgoing: int


def take_stdio() -> ProtocolPipes:
    """Keep stdin and stdout for the protocol alone: from here, fd 1 and `sys.stdout` write to
    stderr and fd 0 reads /dev/null (commands and servers zizou starts inherit those)."""
    sys.stdout.flush()
    incoming = os.fdopen(os.dup(0), "rb", buffering=0)
    outgoing = os.dup(1)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    handler = logging.StreamHandler(sys.stderr)  # warnings and errors; the debug log has the rest
    handler.setLevel(logging.WARNING)
    logging.getLogger().addHandler(handler)
    return ProtocolPipes(incoming, outgoing)


def error_reply(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    """A JSON-RPC error; id null for a message whose id could not be read, as the spec says."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def invalid(message: Any) -> dict[str, Any] | None:
    """The -32600 reply to what is neither a request, a notification nor a response (the SDK
    would drop it without a word, or fail on a method that is not a string); None if valid."""
    if not isinstance(message, dict):
        return error_reply(-32600, "Invalid request: not a JSON object")
    request_id = message.get("id")
    if not isinstance(request_id, str | int | None) or isinstance(request_id, bool):
        return error_reply(-32600, "Invalid request: the id must be a string or a number")
    if "method" in message:
        if not isinstance(message["method"], str):
            return error_reply(-32600, "Invalid request: the method must be a string", request_id)
        return None
    if "id" not in message or not ("result" in message or "error" in message):
        return error_reply(-32600, "Invalid request: no method", request_id)
    return None


class LineTransport:
    """Newline-delimited JSON-RPC over the protocol's pipes, as the SDK's `Transport` reads
    and writes messages. Lines are read in a thread (stdin may be a file or a terminal, not
    only a pipe); writes go out whole, one at a time, in the order they were sent."""

    def __init__(self, pipes: ProtocolPipes) -> None:
        self._pipes = pipes
        self._lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._writing = asyncio.Lock()
        self._closed = False
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, args=(loop,), daemon=True).start()

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            for line in iter(self._pipes.incoming.readline, b""):
                loop.call_soon_threadsafe(self._lines.put_nowait, line)
        except (OSError, ValueError) as exc:
            log.warning("stdin could not be read: %s", exc)
        except RuntimeError:  # the loop is gone: nobody is reading
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._lines.put_nowait, None)

    async def receive(self) -> dict[str, Any] | None:
        """The next message; None once stdin is closed."""
        while True:
            line = await self._lines.get()
            if line is None:
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                await self.send(error_reply(-32700, f"Parse error: {exc}"))
                continue
            if (problem := invalid(message)) is not None:
                await self.send(problem)
                continue
            return dict(message)

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._writing:
            if self._closed:
                raise ConnectionError("the client's stdin is closed")
            try:
                await asyncio.to_thread(_write_all, self._pipes.outgoing, data)
            except OSError as exc:  # the client went away
                self._closed = True
                raise ConnectionError(f"the client is gone: {exc}") from exc

    async def close(self) -> None:
        self._closed = True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


__all__ = ["LineTransport", "ProtocolPipes", "error_reply", "invalid", "take_stdio"]
