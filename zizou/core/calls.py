"""Running one tool call: parse and validate its arguments, check permission, run it.

Every way a call can go wrong (malformed JSON, arguments that fail the tool's model, an unknown
tool, an unsafe path, a denial, a crash inside the tool) becomes a `ToolResult` the model reads.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from pydantic import ValidationError

from zizou.core.events import PermissionRequested
from zizou.core.permissions import Decision, Rules, decide
from zizou.core.protocols import Approver, PermissionRequest, ToolCall
from zizou.errors import PathError
from zizou.tools import Registry, Tool, ToolContext, ToolResult


class CallRunner:
    """Runs tool calls against a registry, asking the approver where the rules say to."""

    def __init__(
        self, registry: Registry, ctx: ToolContext, approver: Approver, rules: Rules
    ) -> None:
        self.registry = registry
        self.ctx = ctx
        self.approver = approver
        self.rules = rules

    async def run(self, call: ToolCall) -> AsyncIterator[PermissionRequested | ToolResult]:
        """Run `call`: yields a PermissionRequested when the approver is asked, and last of all
        the ToolResult."""
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
        if decision.verdict == "deny":
            yield ToolResult.error(f"refused: {decision.reason}")
            return
        if decision.verdict == "ask":
            request = _request(call, tool, parsed, decision, self.ctx)
            yield PermissionRequested(
                call.id,
                tool.name,
                request.summary,
                request.detail,
                decision.suggested_rule,
                decision.protected,
            )
            approval = await self.approver.ask(request)
            if approval.verdict == "deny":
                why = f": {approval.reason}" if approval.reason else ""
                yield ToolResult.error(f"the user did not approve this call{why}")
                return
            if approval.verdict == "always":
                self.rules = _always(self.rules, tool.name, decision.suggested_rule)
            if approval.network and request.network_choice:
                yield await _run_tool(tool, parsed, dataclasses.replace(self.ctx, network=True))
                return
        yield await _run_tool(tool, parsed, self.ctx)


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
        tool.name == "run_bash"
        and sandbox is not None
        and sandbox.active
        and not (ctx.network or sandbox.status.network)
    )
    return PermissionRequest(
        call.id,
        tool.name,
        summary,
        detail,
        decision.suggested_rule,
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


def _always(rules: Rules, tool: str, rule: str | None) -> Rules:
    """The rules after the user chose "always allow" for this call."""
    if tool == "run_bash" and rule:
        return dataclasses.replace(rules, bash_prefixes=(*rules.bash_prefixes, rule))
    if tool == "run_bash":
        return rules
    return dataclasses.replace(rules, allowed_tools=rules.allowed_tools | {tool})


def model_text(result: ToolResult) -> str:
    """The tool message content the model reads."""
    return result.output if result.ok else f"Error: {result.output}"
