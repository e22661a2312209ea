"""A compute deck's run: its `run(input, ctx)` in a worker process, its requests served here.

A compute deck (`mode="compute"`, a trusted `NAME.deck.py`) orchestrates without a model of its
own. Its code runs in `python -m zizou.decks.worker` (see there for the protocol), never in
zizou's process, so its timeout and Esc stop it however it loops: the worker is started in a new
session, and when the run ends, however it ends, its whole process group is sent SIGTERM, then
SIGKILL after a short grace, and reaped. Where the command sandbox is on, the worker runs in it
as a command would (the project writable by the sandbox's rules, no network); where it is not,
the worker runs unsandboxed, as the trusted code it is.

What the deck's code asks for runs here, in zizou, with the session's checks:

- `ctx.spawn_and_wait(name, input)`: `name` is one of the deck's own actions first, else any
  deck of the session by its name; it runs through `DeckEnv.call` one level deeper (its
  guardrails, input schema, trace and handlers as for any action).
- `ctx.tool(name, **arguments)`: one of the deck's `tools`, through a `CallRunner` built as a
  model deck's is (the parent's approver, rules, hooks' policy, plan mode and checkpoints),
  traced as `tool.call` / `tool.result` and shown live as the deck's nested events.

The output is checked against the deck's output schema (`invalid_output` naming the fields).
The worker's standard error (the deck's prints) is kept, its end shown when the worker dies
without saying how its run ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from zizou.agent.calls import CallRunner
from zizou.agent.command_watch import end_watch, end_watch_now, start_watch
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import Nested, ToolCallFinished, ToolCallStarted
from zizou.contracts.protocols import ToolCall
from zizou.contracts.state import SessionState
from zizou.decks.child import Forward
from zizou.decks.spec import STRING_SCHEMA, Deck
from zizou.decks.tools import (
    RESERVED_CODES,
    ActionInfo,
    Caller,
    Outcome,
    action_of,
    schema_problems,
    short_input,
)
from zizou.decks.toolset import deck_registry
from zizou.decks.trace import Trace
from zizou.env import scrubbed_env
from zizou.process_groups import kill_process_group
from zizou.tools import ToolResult

if TYPE_CHECKING:
    from zizou.decks.host import DeckHost

WORKER_MODULE = "zizou.decks.worker"
KILL_GRACE_S = 1.0  # between SIGTERM and SIGKILL
EXIT_WAIT_S = 1.0  # for a worker that said how its run ended to exit by itself
LINE_LIMIT = 64 * 1024 * 1024
STDERR_KEEP = 4000  # characters of the worker's standard error kept for messages
SHOWN_STDERR_LINES = 10


def worker_argv(env: DeckHost, deck: Deck) -> list[str]:
    """The worker's command: in the sandbox when it is on (no network), zizou's interpreter
    with `-P`, so a file of the project (its cwd) cannot shadow a module; the environment's
    PYTHONPATH and user site still hold, as they found zizou. The deck's name is for `ps`."""
    sandbox = env.ctx.sandbox
    prefix = sandbox.prefix(network=False) if sandbox is not None and sandbox.active else []
    return [*prefix, sys.executable, "-P", "-m", WORKER_MODULE, deck.name]


async def start_worker(env: DeckHost, deck: Deck) -> asyncio.subprocess.Process:
    """Start the worker in a new session, from the project root, with the scrubbed environment.
    Shielded from cancellation: a worker started as the run is stopped is ended, not left."""
    environ = scrubbed_env(env.ctx.env if env.ctx.env is not None else os.environ)
    start = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *worker_argv(env, deck),
            cwd=env.root,
            env=environ,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=LINE_LIMIT,
        )
    )
    try:
        return await asyncio.shield(start)
    except asyncio.CancelledError:
        await asyncio.wait({start})
        if not start.cancelled() and start.exception() is None:
            await stop_worker(start.result(), graceful=False)
        raise


async def stop_worker(proc: asyncio.subprocess.Process, *, graceful: bool) -> None:
    """End the worker and everything it started, and reap it. `graceful`: it said how its
    run ended, and has a moment to exit by itself first."""
    if proc.stdin is not None:
        proc.stdin.close()
    if graceful:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), EXIT_WAIT_S)
    await kill_process_group(proc.pid, KILL_GRACE_S)
    with contextlib.suppress(TimeoutError):  # killed: it exits at once, whoever holds its pipes
        await asyncio.wait_for(proc.wait(), EXIT_WAIT_S)


async def run_compute(
    env: DeckHost,
    deck: Deck,
    value: Any,
    child: Caller,
    nest: Callable[[Nested], None] | None,
    trace: Trace,
    ids: dict[str, Any],
) -> Outcome:
    """Run the compute deck `deck` on `value` (its validated input) as the caller `child`
    (the deck's own run: its depth, chain and ids)."""
    if not deck.source:
        why = f"{deck.name} is a compute deck without its Python text (only a .deck.py runs)"
        return Outcome(False, code="runtime", message=why)
    trace.event("deck.start", depth=child.depth, mode="compute", **ids)
    server = WorkerServer(env, deck, child, nest, trace, ids)
    ok = False
    # The worker's own code may change files: they are kept for undo as a command's are.
    watch = await start_watch(env.gates.changes, f"the compute deck {deck.name}")
    try:
        outcome = await server.run(value)
        ok = outcome.ok
        await end_watch(watch)
        watch = None
    finally:  # stopped (its timeout, Esc) too: the trace stays balanced
        end_watch_now(watch)
        trace.event("deck.end", ok=ok, **ids)
    return outcome


class WorkerServer:
    """One compute deck run: the worker, and the answers to its requests."""

    def __init__(
        self,
        env: DeckHost,
        deck: Deck,
        child: Caller,
        nest: Callable[[Nested], None] | None,
        trace: Trace,
        ids: dict[str, Any],
    ) -> None:
        self.env = env
        self.deck = deck
        self.child = child
        self.nest = nest
        self.ids = ids
        self.runner = tool_runner(env, deck, child)
        self.recorder = Forward(child.chain, nest, trace, ids["actionCallId"], env.debug_log)
        self.stderr = ""
        self.reader: asyncio.Future[None] | None = None
        self.calls = 0
        self.asking = asyncio.Lock()  # one tool that may ask the person at a time
        self.writing = asyncio.Lock()

    async def run(self, value: Any) -> Outcome:
        proc = await start_worker(self.env, self.deck)
        tasks: set[asyncio.Task[None]] = set()
        reader = self.reader = asyncio.ensure_future(self._keep_stderr(proc))
        graceful = False
        try:
            await self._write(proc, self._init(value))
            outcome = await self._serve(proc, tasks)
            graceful = True
            return outcome
        finally:
            stopping = asyncio.ensure_future(self._stop(proc, tasks, reader, graceful))
            try:
                await asyncio.shield(stopping)
            except asyncio.CancelledError:
                await asyncio.wait({stopping})
                raise

    def _init(self, value: Any) -> dict[str, Any]:
        return {
            "type": "init",
            "source": self.deck.source,
            "path": str(self.deck.path),
            "input": value,
            "runId": self.child.run_id,
            "actionCallId": self.ids["actionCallId"],
        }

    async def _stop(
        self,
        proc: asyncio.subprocess.Process,
        tasks: set[asyncio.Task[None]],
        reader: asyncio.Future[None],
        graceful: bool,
    ) -> None:
        for task in tasks:
            task.cancel()
        await stop_worker(proc, graceful=graceful)
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(reader, EXIT_WAIT_S)  # EOF once the group is gone

    async def _serve(
        self, proc: asyncio.subprocess.Process, tasks: set[asyncio.Task[None]]
    ) -> Outcome:
        """Answer the worker's requests until it says how the run ended."""
        first = await self._read(proc)
        if isinstance(first, Outcome) or first.get("type") != "ready":
            return first if isinstance(first, Outcome) else self._bad(first)
        while True:
            message = await self._read(proc)
            if isinstance(message, Outcome):
                return message
            kind = message.get("type")
            if kind in ("spawn", "tool"):
                task = asyncio.create_task(self._answer(proc, message))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            elif kind == "return":
                return self._returned(message.get("output"))
            elif kind == "fail":
                return _failed(message.get("code"), message.get("message"))
            elif kind == "error":
                return Outcome(
                    False,
                    code="runtime",
                    message=f"{self.deck.name} raised:\n{message.get('message')}",
                )
            else:
                return self._bad(message)

    async def _read(self, proc: asyncio.subprocess.Process) -> dict[str, Any] | Outcome:
        """The worker's next message, or the runtime error its absence is."""
        assert proc.stdout is not None
        try:
            line = await proc.stdout.readline()
        except ValueError:  # longer than LINE_LIMIT
            return self._bad({"type": f"a line over {LINE_LIMIT} bytes"})
        if not line:
            code = await proc.wait()
            if self.reader is not None:  # the last of its standard error
                await asyncio.wait({self.reader}, timeout=EXIT_WAIT_S)
            return Outcome(
                False,
                code="runtime",
                message=f"the worker of {self.deck.name} exited (code {code}) before its run "
                f"ended{self._stderr_tail()}",
            )
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            return self._bad({"type": line[:80].decode(errors="replace")})
        return message

    def _bad(self, message: dict[str, Any]) -> Outcome:
        what = str(message.get("type"))[:80]
        return Outcome(
            False,
            code="runtime",
            message=f"the worker of {self.deck.name} sent a message zizou cannot read ({what})"
            f"{self._stderr_tail()}",
        )

    def _stderr_tail(self) -> str:
        lines = self.stderr.rstrip().splitlines()[-SHOWN_STDERR_LINES:]
        return ("; its last output:\n" + "\n".join(lines)) if lines else ""

    async def _keep_stderr(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stderr is not None
        while chunk := await proc.stderr.read(65_536):
            self.stderr = (self.stderr + chunk.decode(errors="replace"))[-STDERR_KEEP:]

    async def _write(self, proc: asyncio.subprocess.Process, message: dict[str, Any]) -> None:
        assert proc.stdin is not None
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode()
        async with self.writing:
            with contextlib.suppress(OSError):  # the worker is gone: its end says why
                proc.stdin.write(data)
                await proc.stdin.drain()

    def _returned(self, output: Any) -> Outcome:
        problems = schema_problems(self.deck.output_schema or STRING_SCHEMA, output)
        if problems:
            fields = sorted({problem.split(":", 1)[0] for problem in problems})
            return Outcome(
                False,
                code="invalid_output",
                message="; ".join(problems),
                details={"fields": fields},
            )
        return Outcome(True, output)

    async def _answer(self, proc: asyncio.subprocess.Process, message: dict[str, Any]) -> None:
        name = str(message.get("name", ""))
        try:
            if message.get("type") == "spawn":
                reply = await self.spawn(name, message.get("input"))
            else:
                arguments = message.get("arguments")
                reply = await self.tool(name, arguments if isinstance(arguments, dict) else {})
        except Exception as exc:  # a bug here: the deck's code reads it, the run goes on
            reply = {"ok": False, "code": "runtime", "message": f"{type(exc).__name__}: {exc}"}
        await self._write(proc, {"type": "reply", "id": message.get("id"), **reply})

    def target(self, name: str) -> tuple[Deck, ActionInfo] | None:
        """The deck `name` means: the deck's own action of that name, else the session's deck."""
        for action in self.deck.actions:
            found = self.env.decks.by_path(action.target) if action.name == name else None
            if found is not None:
                info = ActionInfo(action.name, action.description, action.activity, action.path)
                return found, info
        deck = self.env.decks.get(name)
        return (deck, action_of(deck)) if deck is not None else None

    async def spawn(self, name: str, value: Any) -> dict[str, Any]:
        found = self.target(name)
        if found is None:
            actions = ", ".join(a.name for a in self.deck.actions) or "none"
            return {
                "ok": False,
                "code": "unknown_deck",
                "message": f"{self.deck.name} has no action and the session no deck named "
                f"{name!r} (its actions: {actions}; `zizou decks list` shows the decks)",
            }
        deck, info = found
        # Shown as a call of the deck's, as a model deck's action call is: its run nests under it.
        call_id = self._next_call_id()
        arguments = json.dumps(value, ensure_ascii=False)
        label = f"deck · {short_input(value)}"
        self.recorder.emit(ToolCallStarted(call_id, info.name, arguments, label))
        started = time.monotonic()
        outcome = await self.env.call(deck, info, value, self.child, self.nest)
        shown = json.dumps(outcome.output) if outcome.ok else f"{outcome.code}: {outcome.message}"
        took = time.monotonic() - started
        self.recorder.emit(ToolCallFinished(call_id, info.name, outcome.ok, shown, took))
        if outcome.ok:
            return {"ok": True, "output": outcome.output}
        return {"ok": False, "code": outcome.code, "message": outcome.message}

    def _next_call_id(self) -> str:
        self.calls += 1
        return f"{self.ids['actionCallId']}_t{self.calls}"

    async def tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one of the deck's tools as its model's call would run: checked, asked, traced."""
        if name not in self.deck.tools:
            why = f"{name} is not one of {self.deck.name}'s tools ({', '.join(self.deck.tools)})"
            return {"ok": False, "code": "tool", "message": why}
        call = ToolCall(self._next_call_id(), name, json.dumps(arguments))
        parsed = self.runner.parse(call)
        self.recorder.emit(ToolCallStarted(call.id, call.name, call.arguments, parsed.label))
        started = time.monotonic()
        result = ToolResult.error("the tool produced no result")
        reads = parsed.tool is not None and parsed.tool.access_kind == "read"
        async with contextlib.AsyncExitStack() as stack:
            if not reads:
                await stack.enter_async_context(self.asking)
            async with aclosing(self.runner.run(parsed)) as items:
                async for item in items:
                    if isinstance(item, ToolResult):
                        result = item
                    else:
                        self.recorder.emit(item)
        took = result.duration_s if result.duration_s is not None else time.monotonic() - started
        self.recorder.emit(
            ToolCallFinished(call.id, name, result.ok, result.output, took, result.diff)
        )
        if result.ok:
            return {"ok": True, "output": result.output}
        return {"ok": False, "code": "tool", "message": result.output}


def tool_runner(env: DeckHost, deck: Deck, child: Caller) -> CallRunner:
    """The deck's tools, asked for and checked as its model's calls would be (see
    `DeckEnv._agent`): every gate of the parent's (`CallGates.for_child`)."""
    registry = deck_registry(deck, env.extra_tools)
    ctx = dataclasses.replace(env.ctx, state=SessionState(Conversation()), emit=None, nest=None)
    return CallRunner(registry, ctx, env.gates.for_child(child.chain))


def _failed(code: Any, message: Any) -> Outcome:
    """`ctx.fail`: the deck's code (`failed` by default; zizou's own codes are renamed)."""
    name = str(code) if code else "failed"
    if name in RESERVED_CODES or name.startswith("guardrail"):
        name = f"deck_{name}"
    return Outcome(False, code=name, message=str(message or ""))


__all__ = [
    "WORKER_MODULE",
    "WorkerServer",
    "run_compute",
    "start_worker",
    "stop_worker",
    "worker_argv",
]
