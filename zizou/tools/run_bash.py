"""The run_bash tool: run a shell command the user approved, and never leave its processes behind.

Each command gets its own process group, so a timeout, Esc, or a background job left holding the
output ends every process the command started (see `_procgroup`, which the TUI's `!command`
shares). Output is kept as a head and a rolling tail so a noisy command cannot flood memory or
the model's context, and terminal control sequences are removed before the model reads it.
Standard input is /dev/null unless the call gives `stdin`: that text is written while the output
is read (a command that prints a lot before it reads, or never reads, cannot stall either side)
and then closed.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field, field_validator

from zizou.env import scrubbed_env
from zizou.tools._procgroup import kill_process_group
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult

KEEP_HEAD_BYTES = 512 * 1024
KEEP_TAIL_BYTES = 512 * 1024
MAX_MODEL_CHARS = 30_000
EOF_GRACE_S = 1.0
POLL_S = 0.05
FINISH_S = 2.0
MAX_STDIN_BYTES = 1 << 20  # 1 MiB, UTF-8 encoded
STDIN_PREVIEW_CHARS = 2000  # of the stdin, in what the person approving the command sees

_CONTROL = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (titles, hyperlinks)
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor movement)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # other escapes, or a lone ESC
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"  # other controls (C0 but \t \n \r, DEL, C1)
)


def strip_terminal_controls(text: str) -> str:
    """Text as a terminal would leave it: no escape sequences, `\\r` overwrites kept to the last."""
    text = _CONTROL.sub("", text).replace("\r\n", "\n")
    lines = text.split("\n")
    return "\n".join(_last_overwrite(line) for line in lines)


def _last_overwrite(line: str) -> str:
    if "\r" not in line:
        return line
    return next((part for part in reversed(line.split("\r")) if part), "")


@dataclass
class OutputCapture:
    """The first and the last half MiB of a stream; what falls between is only counted."""

    on_output: Callable[[bytes], None] | None = None
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def feed(self, data: bytes) -> None:
        if self.on_output is not None:
            self.on_output(data)
        room = KEEP_HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        excess = len(self.tail) - KEEP_TAIL_BYTES
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self, limit: int = MAX_MODEL_CHARS) -> str:
        """What the model reads: controls stripped, at most `limit` characters, head and tail."""
        if self.dropped:
            head, tail = _clean(self.head), _clean(self.tail)
        else:
            head, tail = _clean(self.head + self.tail), ""
        joined = head + tail
        if len(joined) > limit:
            keep = limit // 2
            return _omitted(joined[:keep], len(joined) - 2 * keep + self.dropped, joined[-keep:])
        return _omitted(head, self.dropped, tail) if self.dropped else joined


def _clean(data: bytearray) -> str:
    return strip_terminal_controls(data.decode(errors="replace"))


def _omitted(first: str, count: int, last: str) -> str:
    marker = f"[... {count:,} characters omitted ...]"
    return "\n".join((first.rstrip("\n"), marker, last.lstrip("\n")))


@dataclass(frozen=True)
class ShellOutcome:
    exit_code: int | None
    output: str
    timed_out: bool = False
    strays_killed: bool = False  # background processes held the output open after bash exited


async def run_shell(
    command: str,
    *,
    cwd: Path,
    env: dict[str, str],
    timeout_s: float,
    prefix: Sequence[str] = (),
    on_output: Callable[[bytes], None] | None = None,
    stdin: bytes | None = None,
) -> ShellOutcome:
    """Run `bash -c command` in its own process group; kill the group on timeout or cancel.

    `prefix` is the sandbox's argv (bwrap ... --), put before `bash`; `on_output` sees each
    chunk of output as it comes; `stdin` is written to the command's input, then closed
    (None: the input is /dev/null)."""
    proc = await _start(
        [*prefix, "bash", "-c", command], cwd=cwd, env=env, piped_stdin=stdin is not None
    )
    feeder = None if proc.stdin is None else asyncio.ensure_future(_feed(proc.stdin, stdin or b""))
    capture = OutputCapture(on_output)
    timed_out = strays = False
    try:
        strays = await asyncio.wait_for(_pump(proc, capture), timeout_s)
    except TimeoutError:
        timed_out = True
        await kill_process_group(proc.pid)
    except BaseException:
        await _abandon(proc, feeder, capture)
        raise
    await _stop_feeding(proc, feeder)
    code = await _finish(proc, capture)
    return ShellOutcome(code, capture.text(), timed_out, strays)


async def _start(
    argv: list[str], *, cwd: Path, env: dict[str, str], piped_stdin: bool
) -> asyncio.subprocess.Process:
    """Start the command in a new session. The start is shielded from cancellation: cancelled
    while asyncio connects the pipes, it would kill bash alone and leave its children running,
    or wait forever on a pipe it never connected. So the start completes, then the command's
    group is ended, then the cancellation goes on."""
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
        if not start.cancelled() and start.exception() is None:
            await _abandon(start.result(), None, OutputCapture())
        raise


async def _abandon(
    proc: asyncio.subprocess.Process, feeder: asyncio.Future[None] | None, capture: OutputCapture
) -> None:
    """End a command the caller no longer waits for: its process group, its input, its output."""
    await kill_process_group(proc.pid)
    await _stop_feeding(proc, feeder)
    await _finish(proc, capture)


async def _feed(pipe: asyncio.StreamWriter, data: bytes) -> None:
    """Write `data` to the command's input and close it; a command that ends (or closes its
    input) without reading it all is no error."""
    try:
        pipe.write(data)
        await pipe.drain()
    except OSError:  # BrokenPipeError, ConnectionResetError
        pass
    finally:
        pipe.close()


async def _stop_feeding(
    proc: asyncio.subprocess.Process, feeder: asyncio.Future[None] | None
) -> None:
    """The command is over: stop writing what nobody will read, and close its input."""
    if feeder is not None:
        feeder.cancel()
        await asyncio.wait({feeder})
    if proc.stdin is not None:
        proc.stdin.close()


async def _read_into(stream: asyncio.StreamReader, capture: OutputCapture) -> None:
    while chunk := await stream.read(65_536):
        capture.feed(chunk)


async def _pump(proc: asyncio.subprocess.Process, capture: OutputCapture) -> bool:
    """Read until EOF. True when bash exited but its background jobs kept the output open, in
    which case they were killed rather than waited for."""
    assert proc.stdout is not None
    reader = asyncio.ensure_future(_read_into(proc.stdout, capture))
    try:
        while not reader.done() and proc.returncode is None:
            await asyncio.wait({reader}, timeout=POLL_S)
        if not reader.done():
            await asyncio.wait({reader}, timeout=EOF_GRACE_S)
        if reader.done():
            reader.result()
            return False
        await kill_process_group(proc.pid)
        return True
    finally:
        reader.cancel()
        await asyncio.wait({reader})  # let it leave the stream before anyone reads it again


async def _finish(proc: asyncio.subprocess.Process, capture: OutputCapture) -> int | None:
    """Read what is left and collect the exit code; give up on a pipe held by an escapee."""
    assert proc.stdout is not None
    try:
        await asyncio.wait_for(_read_into(proc.stdout, capture), FINISH_S)
        return await asyncio.wait_for(proc.wait(), FINISH_S)
    except TimeoutError:
        return proc.returncode


def stdin_bytes(text: str) -> bytes:
    """What the command reads for `stdin`: its UTF-8 (a lone surrogate becomes `?`)."""
    return text.encode("utf-8", errors="replace")


class RunBashArgs(ToolArgs):
    command: str = Field(description="The bash command line to run from the project root.")
    timeout_s: int = Field(
        default=120, ge=1, le=600, description="Seconds before the command is killed (1-600)."
    )
    stdin: str | None = Field(
        default=None,
        description="Text written to the command's standard input, which is then closed "
        "(at most 1 MiB). Without it the command reads nothing.",
    )

    @field_validator("stdin")
    @classmethod
    def _fits(cls, value: str | None) -> str | None:
        size = 0 if value is None else len(stdin_bytes(value))
        if size > MAX_STDIN_BYTES:
            raise ValueError(
                f"stdin is {size:,} bytes, more than the {MAX_STDIN_BYTES:,} (1 MiB) it may "
                "hold; write the input to a file with write_file and redirect it (`< FILE`)"
            )
        return value


class RunBash(Tool[RunBashArgs]):
    """Run a bash command from the project root; the user approves commands first.

    Output (stdout and stderr together) starts with the `exit code N` line; a nonzero exit is a
    failed result with the full output. Long output keeps its start and end with a note of what
    was cut, so filter it (`| tail -50`, `grep`) when you only need part. Pass `stdin` (text, at
    most 1 MiB) to feed the command's standard input; without it the input is empty, so
    interactive prompts fail: pass flags such as `-y`. The command and every process it starts
    are killed after timeout_s (default 120, at most 600), and background jobs are killed when
    the command ends if they still hold its output. Secret environment variables are removed.
    In the sandbox (see SESSION CONTEXT) the project is writable except .git/ and .zizou/,
    secret files cannot be read, the rest of the disk is read-only, /tmp is private, and there
    is no network unless the user allows it: a write refused there is not worth retrying.
    Prefer read_file, grep and glob over cat, grep and find.
    """

    name = "run_bash"
    label_field = "command"
    access_kind = "exec"
    summary = (
        "Run a bash command from the project root once the user approves it; prefer the file tools."
    )
    Args = RunBashArgs

    def access(self, args: RunBashArgs, ctx: ToolContext) -> Access:
        return Access(kind="exec", command=args.command)

    def preview(self, args: RunBashArgs, access: Access, ctx: ToolContext) -> str | None:
        """The arguments as JSON, with only the start of a long stdin, so the approval can
        show the timeout and the input beside the command however big the input is."""
        shown: dict[str, object] = {"command": args.command, "timeout_s": args.timeout_s}
        if args.stdin is not None:
            shown["stdin"] = args.stdin[:STDIN_PREVIEW_CHARS]
            shown["stdin_bytes"] = len(stdin_bytes(args.stdin))
        return json.dumps(shown, indent=2)

    async def execute(self, args: RunBashArgs, access: Access, ctx: ToolContext) -> ToolResult:
        if not args.command.strip():
            return ToolResult.error("the command is empty")
        env = scrubbed_env(ctx.env if ctx.env is not None else os.environ)
        sandbox = ctx.sandbox
        prefix = sandbox.prefix(network=ctx.network) if sandbox is not None else []
        try:
            outcome = await run_shell(
                args.command,
                cwd=ctx.root,
                env=env,
                timeout_s=args.timeout_s,
                prefix=prefix,
                on_output=_progress_lines(ctx),
                stdin=None if args.stdin is None else stdin_bytes(args.stdin),
            )
        except OSError as err:
            return ToolResult.error(f"could not start bash: {err.strerror or err}")
        finally:
            if sandbox is not None:
                sandbox.refresh_soon()  # the command may have made new secret files
        if outcome.timed_out:
            status = f"[timed out after {args.timeout_s} s; process group killed]"
        else:
            status = f"exit code {outcome.exit_code}{_signal_note(outcome.exit_code)}"
        body = outcome.output.rstrip("\n") or "(no output)"
        if outcome.strays_killed:
            body += "\n[background processes still holding the output were killed]"
        ok = outcome.exit_code == 0 and not outcome.timed_out
        return ToolResult(ok=ok, output=f"{status}\n{body}")


PROGRESS_EVERY_S = 0.25  # a chatty command's live line is refreshed at most this often


def _progress_lines(ctx: ToolContext) -> Callable[[bytes], None]:
    """Passes the latest line a command printed on as the call's progress, a few times a
    second at most (the whole output is in the result)."""
    last = 0.0

    def seen(chunk: bytes) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last < PROGRESS_EVERY_S:  # decode nothing between two updates
            return
        text = strip_terminal_controls(chunk[-4096:].decode(errors="replace"))
        lines = [line for line in text.splitlines() if line.strip()]
        if lines:
            last = now
            ctx.progress(lines[-1][:200])

    return seen


def _signal_note(code: int | None) -> str:
    if code is None or code >= 0:
        return ""
    try:
        return f" (killed by {signal.Signals(-code).name})"
    except ValueError:
        return ""


TOOL = RunBash()
