"""The run_bash tool: run a shell command the user approved, and never leave its processes behind.

Each command is a job (`zizou.tools.jobs`): its own process group, so a timeout, Esc, or zizou's
exit ends every process the command started; its whole output kept, so the model reads the
first and last lines and can read any other (`read_output`); and a command still running after
the session's threshold (60 s) is moved to the background instead of holding the turn, as one
started with `background: true` is at once. Terminal control sequences are removed before the
model reads the output. Standard input is /dev/null unless the call gives `stdin`: that text is
written while the output is read (a command that prints a lot before it reads, or never reads,
cannot stall either side) and then closed. A command the user stops (Esc, Ctrl+C) is killed
with its group, and its result says so: how long it ran and what it printed until then.
In the bubblewrap sandbox a foreground command runs in a copy-on-write layer of its own, whose
changes are moved into the project when it ends (`jobs/layered.py`): so undo knows exactly what
it changed, and never takes back what the user changed meanwhile. A background job runs on
the project itself, and what it changes is not undone.

`run_shell` runs a command the same way with its output kept in memory as a head and a rolling
tail (the sandbox's own checks use it).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field, field_validator

from zizou.contracts.protocols import CommandWatching
from zizou.env import scrubbed_env
from zizou.sandbox.layer_apply import Applied
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult
from zizou.tools.jobs import Job, OutputSpool, strip_terminal_controls
from zizou.tools.jobs.listening import with_reach
from zizou.tools.jobs.report import background_text, finished_text, interrupted_text
from zizou.tools.layered_commands import apply_when_done, with_applied
from zizou.tools.read_only_command import reads_only_inside

KEEP_HEAD_BYTES = 512 * 1024
KEEP_TAIL_BYTES = 512 * 1024
MAX_MODEL_CHARS = 30_000
DEFAULT_TIMEOUT_S = 120
FIRST_LINES_S = 1.0  # how long a background job's start waits for its first lines
MAX_STDIN_BYTES = 1 << 20  # 1 MiB, UTF-8 encoded
STDIN_PREVIEW_CHARS = 2000  # of the stdin, in what the person approving the command sees


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
    capture = OutputCapture(on_output)
    job = await Job.start(
        "shell", command, [*prefix, "bash", "-c", command], cwd=cwd, env=env,
        spool=OutputSpool(None, keep=False), stdin=stdin, timeout_s=timeout_s,
        on_output=capture.feed,
    )  # fmt: skip
    try:
        await job.wait()
    except BaseException:
        await job.kill()
        raise
    timed_out = job.state == "timed_out"
    return ShellOutcome(job.exit_code, capture.text(), timed_out, job.strays_killed)


def stdin_bytes(text: str) -> bytes:
    """What the command reads for `stdin`: its UTF-8 (a lone surrogate becomes `?`)."""
    return text.encode("utf-8", errors="replace")


class RunBashArgs(ToolArgs):
    command: str = Field(description="The bash command line.")
    timeout_s: int = Field(
        default=DEFAULT_TIMEOUT_S,
        ge=1,
        le=600,
        description="Seconds before it is killed; none in the background unless given.",
    )
    stdin: str | None = Field(
        default=None,
        description="Text for the command's standard input (at most 1 MiB).",
    )
    background: bool = Field(
        default=False,
        description="Run it as a background job: the call returns its id at once.",
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

    @property
    def timeout(self) -> int | None:
        """The command's timeout: `timeout_s`, unless it runs in the background and the call
        did not give one."""
        if self.background and "timeout_s" not in self.model_fields_set:
            return None
        return self.timeout_s


class RunBash(Tool[RunBashArgs]):
    """Run a bash command from the project root; the user approves commands first.

    Output (stdout and stderr together) starts with `exit code N`; nonzero is a failure. Long
    output shows its head and tail and names the read_output call for the rest; filter it
    (`| tail -50`) when you need only part. Without `stdin` the input is empty: pass flags such
    as `-y`. The command and its processes are killed after timeout_s. One still running after
    the session's threshold (60 s by default) moves to the background and the turn goes on.
    Start servers and watchers with `background: true`: you get a job id and the first lines at
    once; follow it with job_output, stop it with job_kill. Jobs end when zizou exits. Secret
    environment variables are removed. A write the sandbox refuses (see SESSION CONTEXT) is not
    worth retrying. Prefer read_file, grep and glob over cat, grep and find.
    """

    name = "run_bash"
    label_field = "command"
    access_kind = "exec"
    summary = (
        "Run a bash command from the project root once the user approves it; prefer the file tools."
    )
    Args = RunBashArgs

    def access(self, args: RunBashArgs, ctx: ToolContext) -> Access:
        read_only = reads_only_inside(ctx.root, args.command) and not args.background
        watched = _watched(args, ctx)
        return Access(kind="exec", command=args.command, read_only=read_only, watched=watched)

    def preview(self, args: RunBashArgs, access: Access, ctx: ToolContext) -> str | None:
        """The arguments as JSON, with only the start of a long stdin, so the approval can
        show the timeout and the input beside the command however big the input is."""
        shown: dict[str, object] = {"command": args.command}
        if args.background:
            shown["background"] = True
        if args.timeout is not None:
            shown["timeout_s"] = args.timeout
        if args.stdin is not None:
            shown["stdin"] = args.stdin[:STDIN_PREVIEW_CHARS]
            shown["stdin_bytes"] = len(stdin_bytes(args.stdin))
        return json.dumps(shown, indent=2)

    async def execute(self, args: RunBashArgs, access: Access, ctx: ToolContext) -> ToolResult:
        if not args.command.strip():
            return ToolResult.error("the command is empty")
        env = scrubbed_env(ctx.env if ctx.env is not None else os.environ)
        if args.background:  # a job's lines should reach job_output as they are printed
            env.setdefault("PYTHONUNBUFFERED", "1")
        sandbox = ctx.sandbox
        layer = sandbox.layer() if sandbox is not None and access.watched == "layer" else None
        prefix = sandbox.prefix(network=ctx.network, layer=layer) if sandbox is not None else []
        progress = _progress_lines(ctx)
        try:
            job = await ctx.jobs.start(
                args.command,
                [*prefix, "bash", "-c", args.command],
                cwd=ctx.root,
                env=env,
                stdin=None if args.stdin is None else stdin_bytes(args.stdin),
                timeout_s=args.timeout,
                on_output=progress,
                layer=layer,
            )
        except OSError as err:
            return ToolResult.error(f"could not start bash: {err.strerror or err}")
        applied: Applied | None = None  # what its layer moved into the project
        try:
            result = await self._follow(job, args, ctx)
        except asyncio.CancelledError:  # the user stopped the turn (Esc, Ctrl+C): it ends,
            await job.kill()  # and the model hears how long it ran and what it printed
            text, cut = interrupted_text(job)
            ctx.jobs.finished(job, keep=cut)
            result = ToolResult(ok=False, output=text)
            applied = ctx.jobs.applied(job)  # what it did until then (a cancelled task can't wait)
        except BaseException:
            await job.kill()
            ctx.jobs.applied(job)
            ctx.jobs.finished(job, keep=False)
            raise
        else:
            if job.done:
                applied = await asyncio.to_thread(ctx.jobs.applied, job)
            elif layer is not None:  # moved to the background: its changes come when it ends
                apply_when_done(ctx.jobs, job)
        finally:
            job.listeners.remove(progress)  # nobody reads this call's progress any more
            if sandbox is not None:
                sandbox.refresh_soon()  # the command may have made new secret files
        return with_applied(result, applied)

    async def _follow(self, job: Job, args: RunBashArgs, ctx: ToolContext) -> ToolResult:
        """Wait for the command as long as the call should: its first lines for a background
        job, else until it ends or the session's threshold moves it to the background."""
        if args.background:
            job.background = True
            if not await job.wait(FIRST_LINES_S):
                return ToolResult(ok=True, output=with_reach(background_text(job), job))
        else:
            after = ctx.jobs.background_after_s
            if not await job.wait(after if after > 0 else None):
                job.background = True
                return ToolResult(ok=True, output=with_reach(background_text(job, after), job))
        text, cut = finished_text(job)
        if not job.background:
            ctx.jobs.finished(job, keep=cut)
        ok = job.exit_code == 0 and job.state == "exited"
        return ToolResult(ok=ok, output=text)


def _watched(args: RunBashArgs, ctx: ToolContext) -> CommandWatching:
    """How what the command changes is found: its own copy-on-write layer where the sandbox
    has one; snapshots elsewhere; not at all for a background job."""
    if args.background:
        return "unwatched"
    if ctx.sandbox is not None and ctx.sandbox.active and ctx.sandbox.layer_problem() is None:
        return "layer"
    return "snapshot"


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


TOOL = RunBash()

__all__ = [
    "TOOL",
    "OutputCapture",
    "RunBash",
    "RunBashArgs",
    "ShellOutcome",
    "run_shell",
    "stdin_bytes",
    "strip_terminal_controls",
]
