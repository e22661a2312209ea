"""`/status` says what the session runs with: model, key source, sandbox, permission mode and
mode, MCP servers and context use."""

from __future__ import annotations

import re
from pathlib import Path

from ui_harness import MakeApp, send, settle

from zizou.ui.widgets.messages import Notice


def said(app: object) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))  # type: ignore[attr-defined]


async def test_status_says_what_the_session_runs_with(make_app: MakeApp, zizou_home: Path) -> None:
    app = make_app([{"text": "ok", "prompt_tokens": 1200, "completion_tokens": 5}])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "/status")
        await settle(pilot, lambda: "Permission mode:" in said(app))
        text = re.sub(" +", " ", said(app))  # the values start in one column
        assert "Model: scripted" in text
        assert "Permission mode: accept-edits" in text
        assert "Mode: build" in text
        assert "MCP servers: none (`zizou mcp add` adds one)" in text
        assert "Context: no request yet" in text
        assert "Sandbox:" in text
        await send(pilot, "hi")
        await settle(pilot)
        await send(pilot, "/status")
        await settle(pilot, lambda: "1.2k tokens in the last request" in said(app))
        await send(pilot, "/model other model-x")
        await send(pilot, "/status")
        await settle(pilot, lambda: "none: /keys other sets one" in said(app))
