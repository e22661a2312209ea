"""Running one checker on one file: in the command sandbox, in a process group of its own, with
a time budget, and reading its diagnostics back.

Checkers print a diagnostic a line, `path:line:col: message` (ruff, mypy, eslint's unix format,
go vet) or `path(line,col): message` (tsc); the lines about other files, and every other line,
are dropped. A checker still running at its budget is stopped with everything it started, and
says so: its diagnostics then are not known, which is not the same as none.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from zizou.checks.checkers import Checker
from zizou.checks.report import Finding
from zizou.env import scrubbed_env
from zizou.process_groups import group_alive, kill_process_group
from zizou.sandbox import Sandbox

OUTPUT_LIMIT = 1_000_000  # bytes of a checker's output read
STRAY_GRACE_S = 0.2  # how long output held open by a process the checker left is read on
EXIT_POLL_S = 0.02  # how often the exit of a checker whose output is held open is looked for
_COLON = re.compile(r"^(?P<path>[^:\n]+?):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<message>.+)$")
_PARENS = re.compile(r"^(?P<path>[^(\n]+?)\((?P<line>\d+),(?P<col>\d+)\):\s*(?P<message>.+)$")


@dataclass(frozen=True)
class CheckRun:
    """What one run of a checker said about one file; `problem` when it could not say."""

    checker: str
    findings: tuple[Finding, ...] = ()
    problem: str | None = None


async def run_checker(
    checker: Checker,
    rel: str,
    root: Path,
    sandbox: Sandbox | None,
    budget_s: float,
    environ: Mapping[str, str] | None = None,
) -> CheckRun:
    """Run `checker` on the project file `rel` (from the project root) within `budget_s`."""
    prefix = sandbox.prefix(network=False) if sandbox is not None and sandbox.active else []
    argv = [*prefix, *checker.command(rel)]
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=root,
            env=scrubbed_env(environ if environ is not None else os.environ),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as err:
        return CheckRun(checker.name, problem=f"could not start {argv[len(prefix)]}: {err}")
    chunks: list[bytes] = []
    reading = asyncio.ensure_future(_read(proc, chunks))
    try:
        async with asyncio.timeout(budget_s):
            await _exited(proc, reading)
            # A process the checker left behind may hold the output open: what was printed by
            # the time the checker exited is its answer.
            await asyncio.wait({reading}, timeout=STRAY_GRACE_S)
    except TimeoutError:
        return CheckRun(
            checker.name,
            problem=f"stopped after {budget_s:g} s (checks.budget_s), before it finished",
        )
    finally:
        reading.cancel()
        if proc.returncode is None or group_alive(proc.pid):  # strays included
            await kill_process_group(proc.pid, 0.5)
        with contextlib.suppress(ProcessLookupError):
            await proc.wait()
    output = b"".join(chunks)[:OUTPUT_LIMIT].decode("utf-8", "replace")
    return CheckRun(checker.name, tuple(diagnostics(output, rel, root)))


async def _exited(proc: asyncio.subprocess.Process, reading: asyncio.Future[None]) -> None:
    """Until the checker itself has exited. Not `proc.wait()`: on Python 3.11 that also waits
    for its pipes to close, which a process it left behind (holding stdout) may never do. The
    exit is seen as the return code, set as soon as the child is reaped; until the output
    ends, that is the one thing to watch."""
    while proc.returncode is None:
        if reading.done():  # the output ended: the exit follows at once
            await proc.wait()
            return
        await asyncio.sleep(EXIT_POLL_S)


async def _read(proc: asyncio.subprocess.Process, chunks: list[bytes]) -> None:
    """Keep the first OUTPUT_LIMIT bytes; the rest is read, so it never blocks the checker."""
    assert proc.stdout is not None
    kept = 0
    while chunk := await proc.stdout.read(65_536):
        if kept < OUTPUT_LIMIT:
            chunks.append(chunk)
            kept += len(chunk)


def diagnostics(output: str, rel: str, root: Path) -> list[Finding]:
    """The diagnostics in `output` about the file `rel`, in order, each once."""
    found: list[Finding] = []
    for line in output.splitlines():
        match = _COLON.match(line.strip()) or _PARENS.match(line.strip())
        if match is None or not _same_file(match["path"], rel, root):
            continue
        finding = Finding(int(match["line"]), int(match["col"] or 0), match["message"].strip())
        if finding not in found:
            found.append(finding)
    return found


def _same_file(path: str, rel: str, root: Path) -> bool:
    path = path.strip()
    if path.removeprefix("./") == rel:
        return True
    candidate = Path(path)
    if candidate.is_absolute():
        with contextlib.suppress(ValueError):
            return candidate.relative_to(root).as_posix() == rel
    return False


__all__ = ["CheckRun", "diagnostics", "run_checker"]
