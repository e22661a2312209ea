"""The process a compute deck runs in: `python -m zizou.decks.worker`.

A compute deck is trusted Python code with no model of its own. Run inside zizou's process it
could not be stopped (a loop that never awaits ignores any timeout), so `zizou.decks.compute`
starts this worker in a process group of its own, inside the command sandbox when there is one,
and kills the group when the run's time is up or the person stops it.

The protocol is JSON lines. Standard input brings zizou's messages; standard output carries the
worker's and nothing else (the deck's prints go to standard error).

    zizou -> worker   {"type": "init", "source", "path", "input", "runId", "actionCallId"}
                      {"type": "reply", "id", "ok": true, "output"}
                      {"type": "reply", "id", "ok": false, "code", "message"}
    worker -> zizou   {"type": "ready", "pid"}                       first, once started
                      {"type": "spawn", "id", "name", "input"}       ctx.spawn_and_wait
                      {"type": "tool", "id", "name", "arguments"}    ctx.tool
                      {"type": "return", "output"}                   last: one of these three
                      {"type": "fail", "message", "code"}
                      {"type": "error", "message"}                   a crash, its traceback's end

`source` is the very text zizou hashed and trusted: the deck's file is not read again. This
module imports neither litellm, textual nor zizou.providers (a test holds it to that): the worker
starts fast, and nothing of the model's side runs in it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import linecache
import os
import signal
import sys
import traceback
import types
from typing import Any, NoReturn

from pydantic import BaseModel

from zizou.decks.api import Deck  # what the deck's module imports: loaded before `ready`

LINE_LIMIT = 64 * 1024 * 1024  # the longest protocol line, in bytes
TRACEBACK_LINES = 12


class DeckFailed(Exception):
    """`ctx.spawn_and_wait` ran a deck that failed: its error code and message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ToolFailed(Exception):
    """`ctx.tool` ran a tool that failed or was refused: its message, as a model would read it."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


class ProtocolError(Exception):
    """A message zizou sent that the worker cannot read."""


class _Ended(BaseException):
    """`ctx.return_` or `ctx.fail` ends the run, past any `except Exception` in the deck."""


class Channel:
    """The worker's end of the protocol: messages out on the saved standard output, replies in
    to the requests waiting for them, by id."""

    def __init__(self, out_fd: int, reader: asyncio.StreamReader) -> None:
        self.out_fd = out_fd
        self.reader = reader
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.last_id = 0

    def send(self, message: dict[str, Any]) -> None:
        view = memoryview((json.dumps(message, ensure_ascii=False) + "\n").encode())
        while view:
            view = view[os.write(self.out_fd, view) :]

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.last_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[self.last_id] = future
        self.send({**message, "id": self.last_id})
        try:
            return await future
        finally:
            self.pending.pop(self.last_id, None)

    async def read(self) -> dict[str, Any] | None:
        """The next message from zizou; None when its end is closed."""
        line = await self.reader.readline()
        if not line:
            return None
        try:
            message = json.loads(line)
        except ValueError as exc:
            raise ProtocolError(f"a message is not JSON ({exc})") from None
        if not isinstance(message, dict):
            raise ProtocolError("a message is not a JSON object")
        return message

    async def listen(self) -> None:
        """Hand each reply to its request until zizou closes its end (then the run is over)."""
        while (message := await self.read()) is not None:
            future = self.pending.get(message.get("id", -1))
            if message.get("type") != "reply" or future is None:
                raise ProtocolError(f"unexpected message: {str(message)[:200]}")
            if not future.done():
                future.set_result(message)
        raise ProtocolError("zizou closed the worker's input before the run ended")


class Context:
    """What a compute deck's `run(input, ctx)` works with."""

    def __init__(self, channel: Channel, value: Any, run_id: str, action_call_id: str) -> None:
        self._channel = channel
        self.input = value
        self.run_id = run_id
        self.action_call_id = action_call_id
        self.ending: dict[str, Any] | None = None  # set by return_ and fail

    async def spawn_and_wait(self, name: str, input: Any = None) -> Any:
        """Run the deck `name` (one of this deck's actions, else a deck of the session) on
        `input` and return its output; DeckFailed with its code and message when it fails."""
        reply = await self._channel.ask({"type": "spawn", "name": name, "input": _plain(input)})
        if reply.get("ok"):
            return reply.get("output")
        raise DeckFailed(str(reply.get("code") or "failed"), str(reply.get("message") or ""))

    async def tool(self, name: str, /, **arguments: Any) -> str:
        """Run one of this deck's tools; zizou checks its permission as for any call. Its
        output text, or ToolFailed with the message (a refusal included)."""
        request = {"type": "tool", "name": name, "arguments": _plain(arguments)}
        reply = await self._channel.ask(request)
        if reply.get("ok"):
            return str(reply.get("output", ""))
        raise ToolFailed(name, str(reply.get("message") or ""))

    def return_(self, output: Any) -> NoReturn:
        """End the run with `output` (checked by zizou against the deck's output schema)."""
        self.ending = {"type": "return", "output": _plain(output)}
        raise _Ended

    def fail(self, message: str, code: str | None = None) -> NoReturn:
        """End the run with an error its caller reads."""
        self.ending = {"type": "fail", "message": str(message), "code": code}
        raise _Ended


def _plain(value: Any) -> Any:
    """A value as JSON holds it: a pydantic model dumped; anything else as it is."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


def load_deck(source: str, path: str) -> tuple[Deck, Any]:
    """Run the deck's text as a module; its `DECK` (a compute deck) and its `run`."""
    name = f"zizou_compute_{abs(hash(source)):x}"
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module  # pydantic and dataclasses look their module up
    linecache.cache[path] = (len(source), None, source.splitlines(True), path)  # tracebacks
    exec(compile(source, path, "exec"), module.__dict__)
    deck, run = module.__dict__.get("DECK"), module.__dict__.get("run")
    if not isinstance(deck, Deck) or deck.mode != "compute":
        raise ProtocolError("the module's DECK is not a compute deck (mode='compute')")
    if not inspect.iscoroutinefunction(run):
        raise ProtocolError("a compute deck defines `async def run(input, ctx)`")
    return deck, run


async def run_deck(init: dict[str, Any], channel: Channel) -> dict[str, Any]:
    """The deck's run, to the message that ends it."""
    source, path = init.get("source"), init.get("path")
    if not isinstance(source, str) or not isinstance(path, str):
        raise ProtocolError("the init message has no `source` and `path` text")
    deck, run = load_deck(source, path)
    value = init.get("input")
    ctx = Context(channel, value, str(init.get("runId", "")), str(init.get("actionCallId", "")))
    model = deck.input
    is_model = isinstance(model, type) and issubclass(model, BaseModel)
    argument = model.model_validate(value) if is_model else value  # type: ignore[union-attr]
    try:
        returned = await run(argument, ctx)
    except _Ended:
        returned = None
    return ctx.ending or {"type": "return", "output": _plain(returned)}


def described(exc: BaseException) -> str:
    """An exception as the last lines of its traceback, this module's frames left out."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]
    text = "".join([*traceback.format_list(frames), *traceback.format_exception_only(exc)])
    return "\n".join(text.rstrip().splitlines()[-TRACEBACK_LINES:])


async def serve() -> None:
    """Take the init message, run the deck while listening for replies, send how it ended."""
    out_fd = os.dup(1)
    os.dup2(2, 1)  # the deck's prints (and its commands' output) go to standard error
    sys.stdout = sys.stderr
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    channel = Channel(out_fd, reader)
    channel.send({"type": "ready", "pid": os.getpid()})
    try:
        init = await channel.read()
        if init is None or init.get("type") != "init":
            raise ProtocolError("the first message is not `init`")
        listener = asyncio.ensure_future(channel.listen())
        running = asyncio.ensure_future(run_deck(init, channel))
        await asyncio.wait({listener, running}, return_when=asyncio.FIRST_COMPLETED)
        if not running.done():
            running.cancel()
            listener.result()  # raises: why zizou's side went wrong
        ending = running.result()
    except (Exception, SystemExit, KeyboardInterrupt) as exc:
        ending = {"type": "error", "message": described(exc)}
    try:
        channel.send(ending)
    except (TypeError, ValueError) as exc:  # an output that is not JSON
        channel.send({"type": "error", "message": f"the output is not JSON: {exc}"})


def _die_with_parent() -> None:
    """On Linux, have the kernel kill the worker when zizou dies, whatever the deck is doing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return


def main() -> int:
    _die_with_parent()
    asyncio.run(serve())
    sys.stderr.flush()
    os._exit(0)  # threads or tasks the deck left behind do not hold the run open


if __name__ == "__main__":
    # Run as this module's own name, not `__main__`: the deck's `from zizou.decks.worker import
    # DeckFailed` then names the very class the worker raises.
    from zizou.decks.worker import main as _main

    sys.exit(_main())
