"""MCP tools in the agent's loop, with a stand-in for the servers: each call asked for like a
command, rules that name MCP tools, images for the models that take them, and a tool whose
server stopped answered with why."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from scripted_agent import call, collect, make_agent

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.permissions import Rules
from zizou.contracts.events import PermissionDecided, ToolCallFinished
from zizou.contracts.images import NOT_SHOWN
from zizou.contracts.messages import ImagePart
from zizou.contracts.protocols import Approval
from zizou.mcp.tool import McpTool, mcp_tool
from zizou.providers.fake import ScriptedModel
from zizou.session.unattended import HeadlessApprover
from zizou.tools.base import ToolResult

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n0000").decode()
STATUS = {
    "name": "git_status",
    "description": "Shows the working tree status.",
    "inputSchema": {"type": "object", "properties": {"repo_path": {"type": "string"}}},
    "annotations": {"readOnlyHint": True},
}


class Servers:
    """The manager's two faces the loop sees: a tool source, and the calls' target."""

    def __init__(self, result: ToolResult, stopped: str | None = None) -> None:
        self.result = result
        self.stopped = stopped
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        self._tools: tuple[McpTool, ...] = (
            () if stopped else (mcp_tool("git", STATUS, self, set()),)
        )

    def tools(self) -> tuple[McpTool, ...]:
        return self._tools

    def missing(self, name: str) -> str | None:
        return self.stopped if name.startswith("mcp__git__") else None

    async def call_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> ToolResult:
        self.calls.append((server, tool, arguments))
        return self.result


def agent_with(tmp_path: Path, servers: Servers, replies: list[Any], **kwargs: Any) -> Any:
    agent, model = make_agent(tmp_path, replies, **kwargs)
    agent.runner.registry.attach(servers)
    return agent, model


STATUS_CALL = call("mcp__git__git_status", repo_path=".")


async def test_an_mcp_call_is_asked_for_and_shows_what_the_server_says(tmp_path: Path) -> None:
    servers = Servers(ToolResult(True, "On branch main"))
    approver = ScriptedApprover([Approval("once")])
    agent, model = agent_with(
        tmp_path, servers, [{"tool_calls": [STATUS_CALL]}, {"text": "clean"}], approver=approver
    )
    events = await collect(agent, "status?")
    [request] = approver.requests
    assert request.kind == "mcp" and request.tool == "mcp__git__git_status"
    assert '"read_only_hint": true' in (request.detail or "")
    assert servers.calls == [("git", "git_status", {"repo_path": "."})]
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.ok and finished.output == "On branch main"
    assert "mcp__git__git_status" in [t["function"]["name"] for t in model.requests[0].tools]


async def test_a_rule_approves_without_asking_and_headless_says_which_rule(
    tmp_path: Path,
) -> None:
    servers = Servers(ToolResult(True, "ok"))
    rules = Rules(allowed_tools=frozenset({"mcp__git__*"}))
    agent, _ = agent_with(
        tmp_path, servers, [{"tool_calls": [STATUS_CALL]}, {"text": "done"}], rules=rules
    )
    events = await collect(agent, "go")
    [decided] = [e for e in events if isinstance(e, PermissionDecided)]
    assert (decided.by, decided.rules) == ("--allow", ("mcp__git__*",))

    denied = Servers(ToolResult(True, "never"))
    replies = [{"tool_calls": [STATUS_CALL]}, {"text": "done"}]
    agent, _ = agent_with(tmp_path, denied, replies, approver=HeadlessApprover())
    events = await collect(agent, "go")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert not finished.ok and denied.calls == []
    assert "--allow mcp__git__git_status" in finished.output
    assert "--allow 'mcp__git__*'" in finished.output


async def test_arguments_are_checked_against_the_servers_schema(tmp_path: Path) -> None:
    servers = Servers(ToolResult(True, "x"))
    bad = call("mcp__git__git_status", repo_path=3)
    agent, _ = agent_with(
        tmp_path, servers, [{"tool_calls": [bad]}, {"text": "done"}], rules=Rules(yes=True)
    )
    events = await collect(agent, "go")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert not finished.ok and "repo_path: 3 is not of type 'string'" in finished.output
    assert servers.calls == []


async def test_a_stopped_servers_tool_is_answered_with_why(tmp_path: Path) -> None:
    servers = Servers(ToolResult(True, "x"), stopped="the MCP server git is not running: boom")
    agent, _ = agent_with(
        tmp_path, servers, [{"tool_calls": [STATUS_CALL]}, {"text": "done"}], rules=Rules(yes=True)
    )
    events = await collect(agent, "go")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert not finished.ok and finished.output == "the MCP server git is not running: boom"


class SeeingModel(ScriptedModel):
    takes_images = True


async def test_images_go_to_a_model_that_takes_them_and_are_named_to_others(
    tmp_path: Path,
) -> None:
    image = ImagePart(mime="image/png", data=PNG)
    result = ToolResult(True, "[image 1: image/png, 12 bytes]", images=(image,))
    replies = [{"tool_calls": [STATUS_CALL]}, {"text": "I see it"}]

    seeing = SeeingModel(list(replies))
    agent, _ = agent_with(tmp_path, Servers(result), [], rules=Rules(yes=True), model=seeing)
    await collect(agent, "look")
    messages = seeing.requests[1].messages
    tool_at = next(i for i, m in enumerate(messages) if m["role"] == "tool")
    follow = messages[tool_at + 1]
    assert follow["role"] == "user"
    assert follow["content"][1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{PNG}"},
    }
    assert agent.conversation.records[-2].images == (image,)  # kept once, in the record

    blind = ScriptedModel(list(replies))
    agent, _ = agent_with(tmp_path, Servers(result), [], rules=Rules(yes=True), model=blind)
    await collect(agent, "look")
    messages = blind.requests[1].messages
    [tool] = [m for m in messages if m["role"] == "tool"]
    assert tool["content"].endswith(NOT_SHOWN)
    assert all(isinstance(m.get("content"), str | None) for m in messages)
