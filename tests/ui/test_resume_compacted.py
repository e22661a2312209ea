"""A session whose history was shortened to fit the context window resumes in the app with its
whole story and its totals, as a session that was never shortened does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_first_hour_app import persisted_app
from ui_harness import settle

from zizou.ui.widgets.messages import UserMessage

SESSION = "20260101-120000-abc123"


def line(**record: Any) -> str:
    return json.dumps(record)


def write_session(root: Path) -> None:
    first = {"role": "user", "content": "read the big file"}
    answer = {"role": "assistant", "content": "It is long."}
    second = {"role": "user", "content": "now summarise it"}
    done = {"role": "assistant", "content": "A summary."}
    ts = "2026-01-01T12:00:00Z"
    lines = [
        line(kind="meta", v=1, id=SESSION, created=ts, model="scripted"),
        line(kind="turn", event="started", ts=ts),
        line(kind="message", message=first),
        line(kind="message", message=answer),
        line(kind="turn", event="finished", ts=ts, reason="done",
             usage={"input_tokens": 100, "output_tokens": 10}),
        line(kind="turn", event="started", ts=ts),
        line(kind="message", message=second),
        line(kind="compacted", ts=ts, dropped=1, messages=[first, second]),
        line(kind="message", message=done),
        line(kind="turn", event="finished", ts=ts, reason="done",
             usage={"input_tokens": 50, "output_tokens": 5}),
    ]  # fmt: skip
    sessions = root / ".zizou" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / f"{SESSION}.jsonl").write_text("\n".join(lines) + "\n")
    (root / ".zizou" / "info.json").write_text(json.dumps({"active_session": SESSION}))


async def test_a_shortened_session_resumes_with_its_story_and_totals(project: Path) -> None:
    write_session(project)
    app = persisted_app(project, [], resume=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: app.opening.ready)
        await settle(pilot)
        session = app.session
        assert session.kernel.session_id == SESSION
        assert [m["content"] for m in session.kernel.agent.conversation.messages] == [
            "read the big file",
            "now summarise it",
            "A summary.",
        ]
        shown = [m.text for m in app.query(UserMessage)]
        assert shown == ["read the big file", "now summarise it"]  # what was said, whole
        assert session.turns == 2
        assert (session.totals.input_tokens, session.totals.output_tokens) == (150, 15)
