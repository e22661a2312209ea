"""Starting a command in its own process group, feeding its input and reading its output.

Each command gets a new session, so its process group holds every process it spawned (pipelines,
background jobs, dev servers) and can be ended at once (`zizou.process_groups`). The start is
shielded from cancellation, the input is written while the output is read (a command that prints
a lot before it reads, or never reads, cannot stall either side), and a command whose shell
exited while processes it left behind still hold its output is ended rather than waited for,
unless the caller keeps such strays as part of a background job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from zizou.process_groups import kill_process_group

EOF_GRACE_S = 1.0
POLL_S = 0.05
FINISH_S = 2.0
READ_BYTES = 65_536

Sink = Callable[[bytes], None]


async def start_group(
    argv: Sequence[str], *, cwd: Path, env: dict[str, str], piped_stdin: bool
) -> asyncio.subprocess.Process:
    """Start `argv` in a new session. The start is shielded from cancellation: cancelled while
    asyncio connects the pipes, it would kill the shell alone and leave its children running,
    or wait forever on a pipe it never connected. So the start completes and the process is
    returned, the cancellation asked for again: it lands at the caller's next await, which
    has the command in hand to end it and say what it printed (run_bash does). A start that
    failed meanwhile raises the cancellation at once."""
    start = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE if piped_stdin else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    )
    try:
        return await asyncio.shield(start)
    except asyncio.CancelledError:
        await asyncio.wait({start})
        if start.cancelled() or start.exception() is not None:
            raise
        task = asyncio.current_task()
        if task is None:  # not in a task: nobody could be handed the process
            await abandon(start.result(), None, lambda _: None)
            raise
        task.uncancel()  # this cancellation is delivered again, once the caller holds the job
        task.cancel()
        return start.result()


async def abandon(
    proc: asyncio.subprocess.Process, feeder: asyncio.Future[None] | None, sink: Sink
) -> None:
    """End a command nobody waits for any more: its process group, its input, its output."""
    await kill_process_group(proc.pid)
    await stop_feeding(proc, feeder)
    await finish(proc, sink)


def start_feeding(proc: asyncio.subprocess.Process, data: bytes) -> asyncio.Future[None] | None:
    """Write `data` to the command's input in the background, then close it (None: no input)."""
    return None if proc.stdin is None else asyncio.ensure_future(_feed(proc.stdin, data))


async def _feed(pipe: asyncio.StreamWriter, data: bytes) -> None:
    """A command that ends (or closes its input) without reading it all is no error."""
    try:
        pipe.write(data)
        await pipe.drain()
    except OSError:  # BrokenPipeError, ConnectionResetError
        pass
    finally:
        pipe.close()


async def stop_feeding(
    proc: asyncio.subprocess.Process, feeder: asyncio.Future[None] | None
) -> None:
    """The command is over: stop writing what nobody will read, and close its input."""
    if feeder is not None:
        feeder.cancel()
        await asyncio.wait({feeder})
    if proc.stdin is not None:
        proc.stdin.close()


async def _read_into(stream: asyncio.StreamReader, sink: Sink) -> None:
    while chunk := await stream.read(READ_BYTES):
        sink(chunk)


async def pump(
    proc: asyncio.subprocess.Process, sink: Sink, keep_strays: Callable[[], bool]
) -> bool:
    """Read until EOF. True when the shell exited but processes it left kept the output open
    and were killed rather than waited for; while `keep_strays()` says so, they are waited for."""
    assert proc.stdout is not None
    reader = asyncio.ensure_future(_read_into(proc.stdout, sink))
    try:
        while not reader.done() and proc.returncode is None:
            await asyncio.wait({reader}, timeout=POLL_S)
        if not reader.done():
            await asyncio.wait({reader}, timeout=EOF_GRACE_S)
        while not reader.done() and keep_strays():
            await asyncio.wait({reader}, timeout=POLL_S)
        if reader.done():
            reader.result()
            return False
        await kill_process_group(proc.pid)
        return True
    finally:
        reader.cancel()
        await asyncio.wait({reader})  # let it leave the stream before anyone reads it again


async def finish(proc: asyncio.subprocess.Process, sink: Sink) -> int | None:
    """Read what is left and collect the exit code; give up on a pipe held by an escapee."""
    assert proc.stdout is not None
    try:
        await asyncio.wait_for(_read_into(proc.stdout, sink), FINISH_S)
        return await asyncio.wait_for(proc.wait(), FINISH_S)
    except TimeoutError:
        return proc.returncode


__all__ = [
    "EOF_GRACE_S",
    "FINISH_S",
    "Sink",
    "abandon",
    "finish",
    "pump",
    "start_feeding",
    "start_group",
    "stop_feeding",
]
