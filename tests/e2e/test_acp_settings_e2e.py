"""The session's settings through the real `zizou acp`: the editor is offered the model and the
mode as config options, and a model it picks is the one the next request goes to."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, text_block
from acp_harness import RecordingClient, new_session, zizou_acp
from loopback import LoopbackServer


def option(options: Any, option_id: str) -> Any:
    [found] = [o for o in options if o.id == option_id]
    return found


async def test_the_model_the_editor_picks_gets_the_next_request(
    project: Path, zizou_home: Path
) -> None:
    script = [{"text": "from the first", "match": "one"}, {"text": "from the second"}]
    with LoopbackServer(script) as srv:
        client = RecordingClient()
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            sid = session.session_id
            model = option(session.config_options, "model")
            offered = [choice.value for choice in model.options]
            await conn.prompt(session_id=sid, prompt=[text_block("one")])
            changed = await conn.set_config_option(
                config_id="model", session_id=sid, value="openai/gpt-4o-mini"
            )
            await conn.prompt(session_id=sid, prompt=[text_block("two")])
            with pytest.raises(RequestError) as refused:
                await conn.set_config_option(config_id="model", session_id=sid, value="no/such")
        models = [request["model"] for request in srv.chat_requests]
    assert model.current_value == "openai/gpt-4o" and offered[0] == "openai/gpt-4o"
    assert "openai/gpt-4o-mini" in offered
    assert not any(value.startswith("anthropic/") for value in offered)  # no key: not offered
    assert option(changed.config_options, "model").current_value == "openai/gpt-4o-mini"
    assert models == ["gpt-4o", "gpt-4o-mini"]
    assert refused.value.code == -32602


async def test_the_mode_is_a_setting_too(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"text": "planning"}]) as srv:
        client = RecordingClient()
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            sid = session.session_id
            mode = option(session.config_options, "mode")
            changed = await conn.set_config_option(config_id="mode", session_id=sid, value="plan")
            await conn.prompt(session_id=sid, prompt=[text_block("plan it")])
        [request] = srv.chat_requests
    assert mode.current_value == "build" and [c.value for c in mode.options] == ["build", "plan"]
    assert option(changed.config_options, "mode").current_value == "plan"
    tools = {tool["function"]["name"] for tool in request["tools"]}
    assert "read_file" in tools and "write_file" not in tools
