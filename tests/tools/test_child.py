from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path

import pytest

from zizou.tools._child import run_child


def _gone(pid: int) -> bool:
    """The child has exited and been collected: its pid is no longer ours to wait for."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


async def test_output_comes_as_it_is_written_and_errors_are_capped(tmp_path: Path) -> None:
    script = "import sys; sys.stdout.write('a' * 200000); sys.stderr.write('e' * 9000); sys.exit(3)"
    chunks: list[bytes] = []
    code, errors = await run_child(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        stdin=None,
        on_stdout=chunks.append,
        stderr_limit=100,
    )
    assert (code, errors) == (3, b"e" * 100)
    assert b"".join(chunks) == b"a" * 200_000


async def test_a_cancelled_child_is_killed_and_collected_with_no_thread_to_wait(
    tmp_path: Path,
) -> None:
    """No thread waits for the child while it runs (asyncio's own subprocesses start one per
    child on Python 3.11), and a cancelled call leaves no child behind."""
    started = asyncio.Event()
    pids: list[int] = []
    script = "import os, sys, time; print(os.getpid(), flush=True); time.sleep(60)"
    threads_before = threading.active_count()

    def seen(data: bytes) -> None:
        pids.append(int(data.split()[0]))
        started.set()

    call = asyncio.ensure_future(
        run_child(
            [sys.executable, "-c", script],
            cwd=tmp_path,
            stdin=None,
            on_stdout=seen,
            stderr_limit=100,
        )
    )
    await started.wait()
    assert threading.active_count() == threads_before
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert _gone(pids[0])
