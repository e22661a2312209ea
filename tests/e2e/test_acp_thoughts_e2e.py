"""The model's reasoning in the editor: the real `zizou acp` process sends it as
`agent_thought_chunk` updates as it streams, before the tool call or the answer that follows
it, apart from the answer's `agent_message_chunk`s; the model is never sent it back."""

from __future__ import annotations

import json
from pathlib import Path

from acp import text_block
from acp_harness import RecordingClient, new_session, zizou_acp
from loopback import LoopbackServer

FIRST_THOUGHT = "The notes file should say what they want."
SECOND_THOUGHT = "It says hi, so I say hi back."


async def test_reasoning_goes_out_as_thought_chunks_in_the_order_it_streamed(
    project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("hi\n")
    read = {"name": "read_file", "arguments": json.dumps({"path": "notes.txt"})}
    script = [
        {"reasoning": FIRST_THOUGHT, "tool_calls": [read]},
        {"reasoning": SECOND_THOUGHT, "text": "Hi to you too."},
    ]
    client = RecordingClient()
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            prompt = [text_block("what do my notes want?")]
            answer = await conn.prompt(session_id=session.session_id, prompt=prompt)
        sent = srv.chat_requests
    assert answer.stop_reason == "end_turn"
    assert client.text() == "Hi to you too."
    thoughts = client.of_kind("agent_thought_chunk")
    assert all(u["content"]["type"] == "text" for u in thoughts)
    assert "".join(u["content"]["text"] for u in thoughts) == FIRST_THOUGHT + SECOND_THOUGHT
    kinds = [u["sessionUpdate"] for u in client.updates if u["sessionUpdate"] != "tool_call_update"]
    runs = [kind for n, kind in enumerate(kinds) if n == 0 or kinds[n - 1] != kind]
    assert runs[-4:] == [
        "agent_thought_chunk",
        "tool_call",
        "agent_thought_chunk",
        "agent_message_chunk",
    ]
    assert FIRST_THOUGHT not in json.dumps(sent[1])
