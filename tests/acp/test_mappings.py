"""What the editor is offered and told: permission options, prompt text, stop reasons, the
editor's MCP servers (pure)."""

from __future__ import annotations

from pathlib import Path

from acp import embedded_text_resource, resource_block, resource_link_block, text_block
from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer

from zizou.acp.client_servers import server_entries
from zizou.acp.permissions import options_for
from zizou.acp.prompt_text import prompt_text
from zizou.acp.updates import stop_reason
from zizou.contracts.events import TurnFinished
from zizou.contracts.protocols import PermissionRequest

ROOT = Path("/work/project")


def test_allow_always_is_offered_as_the_app_offers_it_and_says_what_it_saves() -> None:
    command = PermissionRequest(
        "c1", "run_bash", "pytest -q", suggested_rules=("pytest",), kind="exec"
    )
    names = {o.kind: o.name for o in options_for(command, ROOT)}
    assert set(names) == {"allow_once", "allow_always", "reject_once", "reject_always"}
    assert names["allow_always"].startswith("Always allow `pytest` in this project")
    protected = PermissionRequest(
        "c2", "write_file", "write_file .env", protected=True, kind="write"
    )
    assert "allow_always" not in {o.kind for o in options_for(protected, ROOT)}
    unsaveable = PermissionRequest("c3", "run_bash", "eval x", kind="exec", reason="eval")
    assert "allow_always" not in {o.kind for o in options_for(unsaveable, ROOT)}


def test_prompt_blocks_become_the_turns_text() -> None:
    blocks = [
        text_block("explain "),
        resource_link_block("a.py", "file:///work/project/a.py"),
        resource_block(embedded_text_resource("file:///work/project/b.py", "x = 1")),
    ]
    text = prompt_text(blocks)
    assert text.startswith("explain `/work/project/a.py`")
    assert '<context from="/work/project/b.py">\nx = 1\n</context>' in text


def test_stop_reasons() -> None:
    done = TurnFinished("done", "ok", 1)
    assert stop_reason(done, "stop") == "end_turn"
    assert stop_reason(done, "length") == "max_tokens"
    assert stop_reason(done, "content_filter") == "refusal"
    assert stop_reason(TurnFinished("max_steps", "", 15), None) == "max_turn_requests"
    assert stop_reason(TurnFinished("cancelled", "", 1), None) == "cancelled"
    assert stop_reason(TurnFinished("budget", "", 1), None) == "max_tokens"


def test_the_editors_servers_in_the_mcp_json_form() -> None:
    servers = [
        McpServerStdio(
            name="t", command="/bin/t", args=["-v"], env=[EnvVariable(name="A", value="1")]
        ),
        HttpMcpServer(
            type="http", name="h", url="http://x/mcp", headers=[HttpHeader(name="K", value="v")]
        ),
        SseMcpServer(type="sse", name="s", url="http://x/sse", headers=[]),
    ]
    assert server_entries(servers) == {
        "mcpServers": {
            "t": {"command": "/bin/t", "args": ["-v"], "env": {"A": "1"}},
            "h": {"type": "http", "url": "http://x/mcp", "headers": {"K": "v"}},
        }
    }
