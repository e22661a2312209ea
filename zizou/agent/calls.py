"""Running one tool call: parse and validate its arguments once, resolve what it touches once,
check permission, run it.

`prepare` turns the model's raw call into a `ResolvedCall`: the tool, its validated arguments,
and its Access with the files it touches already opened. The approval is built from that object
and the tool's work is handed the very same one, so what the person approved is what runs.
Every way a call can go wrong (malformed JSON, arguments that fail the tool's model, an unknown
tool, an unsafe path, a denial, a crash inside the tool) becomes a `ToolResult` the model reads.
A name with one obvious reading (`readFile`, `functions.read_file`, arguments glued to the name;
see core/call_repair.py) runs as that tool: logged, and said in the result's first line.
Every call that asked, that a rule or `--yes` let through, or that the policy refused yields a
`PermissionDecided` saying what decided it; a running tool's progress lines come as
`ToolProgress` events. Once a write or delete is allowed, the `ChangeRecorder` (checkpoints, for
undo) keeps each file it touches right before it runs, and notes what it left after; once a
command is allowed, it keeps the project's files before it runs and what it changed after.
A call stopped while it runs (Esc, Ctrl+C: the turn is cancelled) is not said to have not run:
the tool is cancelled and may answer with what it did so far (run_bash: how long the command
ran and what it printed), or the stop is said with how long it ran; the loop takes that
account (`take_stopped`) to answer the call in the history.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import threading
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from pydantic import ValidationError

from zizou.agent.call_repair import repair_call
from zizou.agent.change_checks import after_checks, before_checks, prepare_checks
from zizou.agent.command_watch import end_watch, end_watch_now, start_watch
from zizou.agent.gates import CallGates
from zizou.agent.permissions import RUN_BASH, Decision, Rules, decide
from zizou.confined import PathHandle
from zizou.contracts.events import Nested, PermissionDecided, PermissionRequested, ToolProgress
from zizou.contracts.messages import ERROR_PREFIX
from zizou.contracts.protocols import (
    Approval,
    Approver,
    PermissionRequest,
    ToolCall,
)
from zizou.errors import PathError
from zizou.tools import Access, Registry, Tool, ToolArgs, ToolContext, ToolResult
from zizou.tools.base import ArgsProblem

RunnerItem = PermissionRequested | PermissionDecided | ToolProgress | Nested | ToolResult
CHANGING = ("write", "delete")  # the access kinds whose files are kept before the call runs
SLOW_WATCH_S = 1.0  # a command's snapshot taking longer is said (the first in a large project)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ParsedCall:
    """A model's tool call read once: its tool and validated arguments, or why not."""

    call: ToolCall  # as it runs: with the repaired name and arguments, if they were repaired
    tool: Tool[Any] | None
    args: ToolArgs | None
    problem: ToolResult | None  # set when the call cannot run as sent
    called_as: str | None = None  # the name the model sent, when it was repaired

    @property
    def note(self) -> str | None:
        """The line that tells the model its call was repaired, if it was."""
        if self.called_as is None:
            return None
        sent = " ".join(self.called_as.split())
        sent = sent if len(sent) <= 80 else sent[:79] + "…"
        return f"(called as {sent}; ran {self.call.name})"

    @property
    def label(self) -> str:
        """The call in a person's words: its main argument (the path, the command)."""
        if self.tool is not None and self.args is not None:
            return self.tool.label(self.args)
        return self.call.arguments

    def canonical(self) -> str:
        """The arguments in one spelling, for spotting the same call made again."""
        if self.args is not None:
            return json.dumps(self.args.model_dump(mode="json"), sort_keys=True)
        return self.call.arguments


@dataclass(frozen=True)
class ResolvedCall:
    """A call ready to decide on and run: parsed, validated and resolved, files opened."""

    call: ToolCall
    tool: Tool[Any]
    args: ToolArgs
    access: Access


class CallRunner:
    """Runs tool calls against a registry, asking the approver where the rules say to."""

    def __init__(self, registry: Registry, ctx: ToolContext, gates: CallGates) -> None:
        """`gates`: everything a call obeys beyond its arguments (core/gates.py), complete:
        nothing is set on a runner after it is made."""
        self.registry = registry
        self.ctx = ctx
        self.gates = gates
        self.offered: frozenset[str] | None = None  # this step's tools; None: all of them
        self.hidden: dict[str, str] = {}  # why each tool the step hides is hidden
        # The calls stopped while they ran, by id: their tool's name and what they did.
        self._stopped: dict[str, tuple[str, ToolResult]] = {}

    @property
    def approver(self) -> Approver:
        return self.gates.approver  # one ask at a time, however many calls run

    @property
    def rules(self) -> Rules:
        """The session's rules as they are now ("always allow" included)."""
        return self.gates.rules

    def take_stopped(self) -> dict[str, tuple[str, ToolResult]]:
        """The calls stopped while they ran since the last take (the loop answers them), by
        id: the tool's name and its result, which says the call was stopped."""
        stopped, self._stopped = self._stopped, {}
        return stopped

    def offer(self, offered: tuple[str, ...], hidden: dict[str, str]) -> None:
        """The tools this step offers (from the step plan): a call to any other tool of the
        registry, an old name of a hidden one included, is refused before any permission
        check, `--yes` or not."""
        aliases = {
            t.name for t in self.registry if t.alias_of is not None and t.alias_of in offered
        }
        self.offered = frozenset(offered) | aliases
        self.hidden = hidden

    def _not_offered(self, name: str) -> str | None:
        """Why a call to the registered tool `name` may not run in this step, if it may not."""
        tool = self.registry.get(name)
        if self.offered is None or name in self.offered or tool is None:
            return None
        target = tool.alias_of
        why = self.hidden.get(name) or (self.hidden.get(target) if target else None)
        if why is None and tool.offered_once:
            why = f"it is offered once {tool.offered_once}"
        return f"{name} is not offered in this step ({why or 'it is not one of its tools'})"

    def _not_read_only(self, tool: Tool[Any] | None) -> str | None:
        """Why `tool` may not run while only tools that read may, if it may not."""
        read_only = self.gates.read_only
        if tool is None or tool.access_kind == "read" or read_only is None:
            return None
        why = read_only()
        return None if why is None else f"{tool.name} is not offered in this step ({why})"

    def parse(self, call: ToolCall) -> ParsedCall:
        """Read the call once: which tool (its name repaired when it has one obvious reading),
        and its arguments validated against its `Args`."""
        called_as = None
        repaired = self.repaired(call)
        if repaired is not call:
            log.warning(
                "repaired the tool call %s: called as %r, ran %s with %s",
                call.id,
                call.name,
                repaired.name,
                repaired.arguments[:200],
            )
            call, called_as = repaired, call.name
        tool = self.registry.get(call.name)
        if tool is None and (why := self.registry.why_missing(call.name)) is not None:
            return ParsedCall(call, None, None, ToolResult.error(why))
        if tool is None:
            known = ", ".join(self.registry.names())
            problem = ToolResult.error(f"unknown tool {call.name!r}; the tools are: {known}")
            return ParsedCall(call, None, None, problem)
        parsed = _parse_args(tool, call.arguments)
        if isinstance(parsed, ToolResult):
            return ParsedCall(call, tool, None, parsed, called_as)
        return ParsedCall(call, tool, parsed, None, called_as)

    def repaired(self, call: ToolCall) -> ToolCall:
        """`call` with its name (and glued arguments) repaired, or `call` itself when it needs
        no repair or has no single reading. Pure: it neither logs nor notes anything."""
        if self.registry.get(call.name) is not None:
            return call  # the name is a tool's: nothing to mend (the usual case, every call)
        repair = repair_call(call.name, call.arguments, self.registry.names())
        if repair is None:
            return call
        return dataclasses.replace(call, name=repair.name, arguments=repair.arguments)

    async def run(self, parsed: ParsedCall) -> AsyncGenerator[RunnerItem, None]:
        """Run the call: yields a PermissionRequested when the approver is asked, a
        PermissionDecided once the call is allowed or denied, its progress, and last of all
        the ToolResult (its first line the repair note, when the call's name was repaired)."""
        note = parsed.note
        async with aclosing(self._run(parsed)) as items:
            async for item in items:
                if note is not None and isinstance(item, ToolResult):
                    item = dataclasses.replace(item, output=f"{note}\n{item.output}")
                yield item

    async def _run(self, parsed: ParsedCall) -> AsyncGenerator[RunnerItem, None]:
        refused = self._not_offered(parsed.call.name) or self._not_read_only(parsed.tool)
        if refused is not None:
            yield ToolResult.error(refused)
            return
        if parsed.problem is not None or parsed.tool is None or parsed.args is None:
            yield parsed.problem or ToolResult.error("the call could not be read")
            return
        try:
            access = parsed.tool.access(parsed.args, self.ctx)
        except PathError as exc:
            yield ToolResult.error(str(exc))
            return
        try:
            resolved = ResolvedCall(parsed.call, parsed.tool, parsed.args, access)
            async with aclosing(self._decide_and_run(resolved)) as items:
                async for item in items:
                    yield item
        finally:
            access.close()

    async def _decide_and_run(self, resolved: ResolvedCall) -> AsyncGenerator[RunnerItem, None]:
        call, tool, access = resolved.call, resolved.tool, resolved.access
        decision = await self._tightened(resolved, decide(tool.name, access, self.rules))
        ctx = self.ctx
        sandbox = self.rules.sandbox if access.kind == "exec" else None
        if decision.verdict != "ask":
            if decision.verdict == "deny" or decision.by != "policy":  # not a plain read or write
                yield _ruled(call.id, tool.name, decision, sandbox)
            if decision.verdict == "deny":
                yield ToolResult.error(f"refused: {decision.reason}")
                return
        else:
            request = _request(resolved, decision, self.ctx, self.gates.chain)
            yield PermissionRequested(
                call.id,
                tool.name,
                request.summary,
                request.detail,
                request.suggested_rules,
                request.protected,
            )
            approval = await self.approver.ask(request)
            yield _answered(call.id, tool.name, approval, request, sandbox)
            if approval.verdict == "deny":
                why = f": {approval.reason}" if approval.reason else ""
                yield ToolResult.error(f"the user did not approve this call{why}")
                return
            if approval.verdict == "always":
                self.gates.book.always(tool.name, access, decision.suggested_rules)
            if approval.network and request.network_choice:
                ctx = dataclasses.replace(ctx, network=True)  # this call alone
        async with aclosing(self._run_kept(resolved, ctx)) as items:
            async for item in items:
                yield item

    async def _run_kept(
        self, resolved: ResolvedCall, ctx: ToolContext
    ) -> AsyncGenerator[RunnerItem, None]:
        """Run the allowed call; a write or delete has its files kept first (for undo), through
        the handles it resolved, and what it left noted after, however it ended. A command has
        the project's files kept before it runs, and what it changed kept before its result
        is given (however it ended)."""
        call, tool, access = resolved.call, resolved.tool, resolved.access
        changes = self.gates.changes if access.kind in CHANGING else None
        if changes is not None:
            for handle in access.handles:
                keep = partial(_kept, changes, handle.rel, partial(changes.before_change, handle))
                problem = await asyncio.to_thread(keep)  # it reads, hashes and syncs: not here
                if problem:
                    note = f"{handle.rel} is not kept for undo: {problem}"
                    yield ToolProgress(call.id, tool.name, note)
        watch = None
        if access.kind == "exec":
            label = access.command or tool.label(resolved.args)
            watching = start_watch(self.gates.changes, label, access.watched)
            starting = asyncio.ensure_future(watching)
            try:
                if not (await asyncio.wait({starting}, timeout=SLOW_WATCH_S))[0]:  # a first one
                    yield ToolProgress(call.id, tool.name, "keeping the project's files for undo…")
                watch = await starting
            except BaseException:  # cancelled: the command never runs
                starting.cancel()
                raise
            if watch is not None and watch.problem:
                note = f"the files it changes are not kept for undo: {watch.problem}"
                yield ToolProgress(call.id, tool.name, note)
        checked = self._checked(access)
        if checked and self.gates.checks is not None:
            await before_checks(self.gates.checks, checked)

        ended: list[ToolResult] = []  # the result, however the call ended

        def stopped(result: ToolResult) -> None:
            self._stopped[call.id] = (tool.name, result)
            ended.append(result)

        try:
            async with aclosing(_run_tool(resolved, ctx, stopped)) as items:
                async for item in items:
                    if isinstance(item, ToolResult):
                        ended.append(item)
                    if isinstance(item, ToolResult) and watch is not None:
                        problem, watch = await end_watch(watch, item.applied), None
                        if problem:
                            yield ToolProgress(call.id, tool.name, problem)
                    if isinstance(item, ToolResult):
                        item = await self._after_checks(access, checked, item)
                    yield item
        finally:  # cancelled before the result: kept all the same
            end_watch_now(watch, ended[-1].applied if ended else None)
            if changes is not None:
                for handle in access.handles:
                    _kept(changes, handle.rel, partial(changes.after_change, handle))

    def _checked(self, access: Access) -> list[PathHandle]:
        """The files of a write call that the checks look at."""
        checks = self.gates.checks
        return list(access.handles) if checks is not None and access.kind == "write" else []

    async def _after_checks(
        self, access: Access, checked: list[PathHandle], result: ToolResult
    ) -> ToolResult:
        """The call's result with what the checks found its change brought; after a read,
        the checks prepare for a change to the file."""
        checks = self.gates.checks
        if checks is None:
            return result
        if checked:
            return await after_checks(checks, checked, result)
        if access.kind == "read":
            await prepare_checks(checks, access.handles)
        return result

    async def _tightened(self, resolved: ResolvedCall, decision: Decision) -> Decision:
        """The rules' decision, tightened by the tool policy (hooks): a call the rules refuse
        stays refused; one they allow or ask for may be refused, or asked for. The policy is
        asked in a thread: a hook may run a command (a settings hook) for seconds."""
        policy = self.gates.policy
        if policy is None or decision.verdict == "deny":
            return decision
        arguments = resolved.args.model_dump(mode="json")
        name, kind = resolved.tool.name, resolved.access.kind
        verdict = await asyncio.to_thread(policy.before_tool, name, arguments, kind)
        if verdict is None:
            return decision
        reason = f"{verdict.source}: {verdict.reason}"
        if verdict.verdict == "deny":
            return Decision("deny", reason, by=verdict.source)
        if decision.verdict == "ask":
            return dataclasses.replace(decision, reason=f"{decision.reason}; {reason}")
        return Decision("ask", reason, suggested_rules=())


def _kept(recorder: object, rel: str, step: Callable[[], str | None]) -> str | None:
    """One step of the change recorder; its failure is logged and said, never the call's."""
    try:
        return step()
    except Exception as exc:
        log.exception("%s failed on %s", type(recorder).__name__, rel)
        return f"{type(exc).__name__}: {exc}"


def _parse_args(tool: Tool[Any], raw: str) -> ToolArgs | ToolResult:
    try:
        data = json.loads(raw or "{}")
    except ValueError as exc:
        return ToolResult.error(
            f"the arguments for {tool.name} are not valid JSON ({exc}); you sent: {raw[:500]!r}. "
            "Send one JSON object matching the tool's schema."
        )
    if not isinstance(data, dict):
        return ToolResult.error(f"the arguments for {tool.name} must be a JSON object")
    try:
        return tool.parse_args(data)
    except ArgsProblem as exc:
        return ToolResult.error(f"invalid arguments for {tool.name}: {exc}")
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
            for err in exc.errors()
        )
        return ToolResult.error(f"invalid arguments for {tool.name}: {problems}")


def _request(
    resolved: ResolvedCall, decision: Decision, ctx: ToolContext, chain: tuple[str, ...] = ()
) -> PermissionRequest:
    """What the person is asked, from the resolved call: the command, or the resolved paths."""
    tool, access = resolved.tool, resolved.access
    if access.kind == "exec" and access.command is not None:
        summary = access.command
    else:
        summary = f"{tool.name} {' '.join(access.paths) or tool.label(resolved.args)}".strip()
    try:
        detail = tool.preview(resolved.args, access, ctx)
    except Exception as exc:  # a preview is a courtesy; the request still goes to the user
        log.warning("the preview of %s failed: %s", tool.name, exc)
        detail = f"(no preview: {exc})"
    sandbox = ctx.sandbox
    network_choice = (
        access.kind == "exec"
        and sandbox is not None
        and sandbox.active
        and not (ctx.network or sandbox.status.network)
    )
    return PermissionRequest(
        resolved.call.id,
        tool.name,
        summary,
        detail,
        decision.suggested_rules,
        decision.protected,
        decision.rule_scope,
        network_choice,
        decision.reason,
        access.kind,
        chain,
    )


async def _run_tool(
    resolved: ResolvedCall, ctx: ToolContext, stopped: Callable[[ToolResult], None]
) -> AsyncGenerator[RunnerItem, None]:
    """The tool's work, with its progress lines as they come (from any thread), then its
    result. A tool that raises is a failed result the model reads; its traceback is logged.
    Stopped before its result (the turn was cancelled, or closed), the tool is cancelled, and
    what it did is given to `stopped`: its own account of the stop, or how long it ran."""
    call, tool = resolved.call, resolved.tool
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | Nested] = asyncio.Queue()

    home = threading.get_ident()

    def emit(item: str | Nested) -> None:
        if threading.get_ident() == home:  # a deck's events, from this loop: in order, now
            lines.put_nowait(item)
        else:  # a worker thread's progress line
            loop.call_soon_threadsafe(lines.put_nowait, item)

    def item(line: str | Nested) -> ToolProgress | Nested:
        if isinstance(line, Nested):  # a deck's event: shown under this call
            return dataclasses.replace(line, call_id=call.id)
        return ToolProgress(call.id, tool.name, line)

    started = time.monotonic()
    work = asyncio.ensure_future(
        tool.execute(resolved.args, resolved.access, dataclasses.replace(ctx, emit=emit, nest=emit))
    )
    waiter: asyncio.Future[str | Nested] | None = None
    result: ToolResult | None = None
    try:
        while not work.done():
            waiter = asyncio.ensure_future(lines.get())
            await asyncio.wait({work, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if waiter.done():
                yield item(waiter.result())
            else:
                waiter.cancel()
        await asyncio.sleep(0)  # the lines a worker thread sent just before it ended
        while not lines.empty():
            yield item(lines.get_nowait())
        result = work.result()
    except Exception as exc:  # a bug in a tool must not end the turn
        log.exception("the tool %s raised", tool.name)  # its traceback, in the debug log
        result = ToolResult.error(f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}")
    finally:
        if waiter is not None and not waiter.done():
            waiter.cancel()
        if not work.done():  # the turn was cancelled: the tool stops too, and cleans up
            work.cancel()
            with contextlib.suppress(BaseException):
                await work
        if result is None:
            stopped(_stopped_result(work, tool.name, time.monotonic() - started))
    yield dataclasses.replace(result, duration_s=time.monotonic() - started)


def _stopped_result(work: asyncio.Future[ToolResult], name: str, ran_s: float) -> ToolResult:
    """What a call stopped while it ran did: the tool's own account when it gave one (it
    handled the cancellation), else that it was interrupted, and after how long."""
    if work.done() and not work.cancelled() and work.exception() is None:
        return dataclasses.replace(work.result(), duration_s=ran_s)
    if work.done() and not work.cancelled():
        log.error("the tool %s failed as it was stopped", name, exc_info=work.exception())
    text = (
        f"interrupted after {ran_s:.1f} s: the turn was stopped while {name} ran, so it may "
        "have done part of its work; check before you repeat it"
    )
    return dataclasses.replace(ToolResult.error(text), duration_s=ran_s)


def _ruled(call_id: str, tool: str, decision: Decision, sandbox: str | None) -> PermissionDecided:
    """The audit record of a call decided without asking: by a rule, `--yes` or the policy."""
    verdict: Literal["allow", "deny"] = "deny" if decision.verdict == "deny" else "allow"
    return PermissionDecided(
        call_id, tool, verdict, decision.by, decision.reason, decision.rules, sandbox
    )


def _answered(
    call_id: str, tool: str, approval: Approval, request: PermissionRequest, sandbox: str | None
) -> PermissionDecided:
    """The audit record of the approver's answer: which key, and what "always" saved."""
    if approval.verdict == "deny":
        why = approval.reason or "n or Esc (denied), no reason given"
        return PermissionDecided(call_id, tool, "deny", approval.by, why, (), sandbox)
    if approval.verdict == "once":
        network = approval.network and request.network_choice
        how = "w (allow once, with the network)" if network else "y (allow once)"
        return PermissionDecided(call_id, tool, "allow", approval.by, how, (), sandbox)
    if request.kind == "mcp":
        return PermissionDecided(
            call_id, tool, "allow", approval.by, "a (always allow): saved for this project", (tool,)
        )
    if request.kind != "exec":
        return PermissionDecided(
            call_id, tool, "allow", approval.by, "a (always allow, this session)", (tool,)
        )
    saved = tuple(f"{RUN_BASH}:{rule}" for rule in request.suggested_rules)
    return PermissionDecided(
        call_id,
        tool,
        "allow",
        approval.by,
        "a (always allow): these rules were saved",
        saved,
        sandbox,
    )


def model_text(result: ToolResult) -> str:
    """The tool message content the model reads."""
    return result.output if result.ok else f"{ERROR_PREFIX}{result.output}"
