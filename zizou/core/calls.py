"""Running one tool call: parse and validate its arguments, check permission, run it.

Every way a call can go wrong (malformed JSON, arguments that fail the tool's model, an unknown
tool, an unsafe path, a denial, a crash inside the tool) becomes a `ToolResult` the model reads.
Every call that asked, that a rule or `--yes` let through, or that the policy refused yields a
`PermissionDecided` saying what decided it.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import AsyncIterator
from typing import Any, Literal

from pydantic import ValidationError

from zizou.core.events import PermissionDecided, PermissionRequested
from zizou.core.permissions import RUN_BASH, Decision, Rules, decide
from zizou.core.protocols import Approval, Approver, PermissionRequest, ToolCall
from zizou.errors import PathError
from zizou.tools import Registry, Tool, ToolContext, ToolResult

RunnerItem = PermissionRequested | PermissionDecided | ToolResult


class CallRunner:
    """Runs tool calls against a registry, asking the approver where the rules say to."""

    def __init__(
        self, registry: Registry, ctx: ToolContext, approver: Approver, rules: Rules
    ) -> None:
        self.registry = registry
        self.ctx = ctx
        self.approver = approver
        self.rules = rules

    async def run(self, call: ToolCall) -> AsyncIterator[RunnerItem]:
        """Run `call`: yields a PermissionRequested when the approver is asked, a
        PermissionDecided once the call is allowed or denied, and last of all the ToolResult."""
        tool = self.registry.get(call.name)
        if tool is None:
            known = ", ".join(self.registry.names())
            yield ToolResult.error(f"unknown tool {call.name!r}; the tools are: {known}")
            return
        parsed = _parse_args(tool, call.arguments)
        if isinstance(parsed, ToolResult):
            yield parsed
            return
        try:
            access = tool.access(parsed, self.ctx)
        except PathError as exc:
            yield ToolResult.error(str(exc))
            return
        decision = decide(tool.name, access, self.rules)
        ctx = self.ctx
        sandbox = self.rules.sandbox if access.kind == "exec" else None
        if decision.verdict != "ask":
            if decision.verdict == "deny" or decision.by != "policy":  # not a plain read or write
                yield _ruled(call.id, tool.name, decision, sandbox)
            if decision.verdict == "deny":
                yield ToolResult.error(f"refused: {decision.reason}")
                return
        else:
            request = _request(call, tool, parsed, decision, self.ctx)
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
                self.rules = _always(self.rules, tool.name, decision.suggested_rules)
            if approval.network and request.network_choice:
                ctx = dataclasses.replace(self.ctx, network=True)  # this call alone
        yield await _run_tool(tool, parsed, ctx)


def _parse_args(tool: Tool[Any], raw: str) -> Any:
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
        return tool.Args.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
            for err in exc.errors()
        )
        return ToolResult.error(f"invalid arguments for {tool.name}: {problems}")


def _request(
    call: ToolCall, tool: Tool[Any], args: Any, decision: Decision, ctx: ToolContext
) -> PermissionRequest:
    fields = args.model_dump()
    if "command" in fields:
        summary = str(fields["command"])
    else:
        summary = f"{tool.name} {fields.get('path', '')}".strip()
    try:
        detail = tool.preview(args, ctx)
    except Exception as exc:  # a preview is a courtesy; the request still goes to the user
        detail = f"(no preview: {exc})"
    sandbox = ctx.sandbox
    network_choice = (
        tool.name == RUN_BASH
        and sandbox is not None
        and sandbox.active
        and not (ctx.network or sandbox.status.network)
    )
    return PermissionRequest(
        call.id,
        tool.name,
        summary,
        detail,
        decision.suggested_rules,
        decision.protected,
        decision.rule_scope,
        network_choice,
        decision.reason,
    )


async def _run_tool(tool: Tool[Any], args: Any, ctx: ToolContext) -> ToolResult:
    started = time.monotonic()
    try:
        result = await tool.run(args, ctx)
    except Exception as exc:  # a bug in a tool must not end the turn
        detail = f"{type(exc).__name__}: {exc}"
        result = ToolResult.error(f"{tool.name} failed unexpectedly: {detail}")
    return dataclasses.replace(result, duration_s=time.monotonic() - started)


def _always(rules: Rules, tool: str, suggested: tuple[str, ...]) -> Rules:
    """The rules after the user chose "always allow" for this call."""
    if tool == RUN_BASH:
        new = tuple(rule for rule in suggested if rule not in rules.bash_prefixes)
        return dataclasses.replace(rules, bash_prefixes=(*rules.bash_prefixes, *new))
    return dataclasses.replace(rules, allowed_tools=rules.allowed_tools | {tool})


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
    if tool != RUN_BASH:
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
    return result.output if result.ok else f"Error: {result.output}"
