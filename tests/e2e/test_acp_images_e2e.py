"""Images in an editor's prompt, through the real `zizou acp`: attached to the user's message
for a model that takes images (and kept: a loaded session shows them again); refused, with
what to do, for a model that does not, before any request is made."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from acp import RequestError, image_block, text_block
from acp_harness import RecordingClient, new_session, zizou_acp
from loopback import LoopbackServer

# A 1x1 PNG.
PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000100e5270de40000000049454e44ae426082"
    )
).decode()


async def test_an_image_goes_to_a_model_that_takes_images(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"text": "a single pixel"}]) as srv:
        client = RecordingClient()
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            prompt = [text_block("what is this?"), image_block(PIXEL, "image/png")]
            answer = await conn.prompt(session_id=session.session_id, prompt=prompt)
        [request] = srv.chat_requests
        loaded = RecordingClient()
        async with zizou_acp(loaded, srv.base_url, zizou_home, project) as (conn, _):
            await conn.initialize(protocol_version=1)
            await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
    assert answer.stop_reason == "end_turn" and client.text() == "a single pixel"
    [user] = [m for m in request["messages"] if m["role"] == "user"]
    assert user["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL}"}},
    ]
    shown = [u["content"] for u in loaded.of_kind("user_message_chunk")]
    assert shown[0] == {"type": "text", "text": "what is this?"}
    assert shown[1]["type"] == "image" and shown[1]["data"] == PIXEL


async def test_a_model_without_images_refuses_the_prompt_and_says_what_to_do(
    project: Path, zizou_home: Path
) -> None:
    with LoopbackServer([{"text": "text only"}]) as srv:
        client = RecordingClient()
        extra = ("--model", "openai/gpt-3.5-turbo")
        async with zizou_acp(client, srv.base_url, zizou_home, project, *extra) as (conn, _):
            session = await new_session(conn, project)
            prompt = [text_block("what is this?"), image_block(PIXEL, "image/png")]
            with pytest.raises(RequestError) as refused:
                await conn.prompt(session_id=session.session_id, prompt=prompt)
            asked = len(srv.chat_requests)
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
    assert refused.value.code == -32602 and asked == 0
    message = str(refused.value.data)
    assert "openai/gpt-3.5-turbo does not take images" in message and "Model setting" in message
    assert answer.stop_reason == "end_turn"
