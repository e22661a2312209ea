"""The model's reasoning in the loop: passed on as ReasoningDeltas where it streamed, before the
text of its step, and never part of the reply, the turn's answer or the history."""

from __future__ import annotations

from pathlib import Path

from scripted_agent import call, collect, make_agent

from zizou.contracts.events import ModelReplied, ReasoningDelta, TextDelta, TurnFinished


async def test_reasoning_streams_before_its_text_and_stays_out_of_the_history(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("A\n")
    replies = [
        {"reasoning": "Read it first.", "tool_calls": [call("read_file", path="a.txt")]},
        {"reasoning": "It holds A.", "text": "It says A."},
    ]
    agent, model = make_agent(tmp_path, replies)
    events = await collect(agent, "what is in a.txt?")
    streamed = [e for e in events if isinstance(e, ReasoningDelta | TextDelta)]
    kinds = [type(e).__name__ for e in streamed]
    assert kinds == ["ReasoningDelta"] * 6 + ["TextDelta"] * 3
    thought = "".join(e.text for e in streamed if isinstance(e, ReasoningDelta))
    assert thought == "Read it first.It holds A."
    replied = [e.text for e in events if isinstance(e, ModelReplied)]
    assert replied == ["", "It says A."]
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "It says A."
    sent = repr(model.requests[1].messages) + repr(agent.conversation.messages)
    assert "Read it first." not in sent and "It holds A." not in sent
