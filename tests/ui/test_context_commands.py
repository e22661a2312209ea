"""`/compact` and `/init` in the app: the summary is shown, the next request is sent from it and
the session's recorders are told; a failure leaves the conversation whole; `/init` explores
read-only and writes ZIZOU.md only once approved."""

from __future__ import annotations

import json
from pathlib import Path

from ui_harness import MakeApp, send, settle

from zizou.agent.summary import SUMMARY_HEADER
from zizou.contracts.events import Compacted
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.screens.approval import ApprovalScreen
from zizou.ui.widgets.messages import Notice
from zizou.ui.widgets.status_bar import StatusBar


class Listener:
    def __init__(self, into: list[object]) -> None:
        self.into = into

    def emit(self, event: object) -> None:
        self.into.append(event)

    def begin_turn(self, *args: object) -> None:
        pass

    def record_request(self, *args: object) -> None:
        pass


def said(app: ZizouApp) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


def model(app: ZizouApp) -> ScriptedModel:
    found = app.session.kernel.agent.model
    assert isinstance(found, ScriptedModel)
    return found


async def test_compact_shows_the_summary_and_the_next_request_starts_from_it(
    make_app: MakeApp,
) -> None:
    app = make_app(
        [
            {"text": "A long first answer. " * 200},
            {"text": "## Goal\nGreet by name."},
            {"text": "Next answer."},
        ]
    )
    recorded: list[object] = []
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(pilot)
        app.session.kernel.agent.recorders.append(Listener(recorded))  # type: ignore[arg-type]
        await send(pilot, "make greet take a name")
        await settle(pilot, lambda: len(model(app).requests) == 1)
        await settle(pilot)
        await send(pilot, "/compact keep the file names")
        await settle(pilot, lambda: "Compacted (you asked)" in said(app))
        assert "## Goal" in said(app) and "Greet by name." in said(app)
        assert "ctx" not in str(app.query_one(StatusBar).render())  # the old size no longer holds
        summary_request = model(app).requests[1]
        assert "keep the file names" in summary_request.messages[0]["content"]
        await send(pilot, "go on")
        await settle(pilot, lambda: len(model(app).requests) == 3)
        await settle(pilot)
        sent = model(app).requests[2].messages
        assert sent[0]["content"] == f"{SUMMARY_HEADER}\n\n## Goal\nGreet by name."
        assert [m["role"] for m in sent] == ["user", "assistant", "user"]
        # The recorders (the session file is one) were told, with the new history.
        told = [e for e in recorded if isinstance(e, Compacted)]
        assert len(told) == 1 and "Greet by name." in json.dumps(told[0].messages)


async def test_a_failed_compaction_says_so_and_keeps_the_conversation(make_app: MakeApp) -> None:
    app = make_app([{"text": "first"}, {"status": 500}])
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(pilot)
        await send(pilot, "hello")
        await settle(pilot, lambda: len(model(app).requests) == 1)
        await settle(pilot)
        await send(pilot, "/compact")
        await settle(pilot, lambda: "was not compacted" in said(app))
        messages = app.session.kernel.agent.conversation.messages
        assert [m["content"] for m in messages] == ["hello", "first"]


def write(path: str, content: str) -> dict[str, object]:
    arguments = json.dumps({"path": path, "content": content})
    return {"tool_calls": [{"name": "write_file", "arguments": arguments}]}


async def test_init_explores_read_only_and_writes_zizou_md_once_approved(
    make_app: MakeApp, project: Path
) -> None:
    listing = {"tool_calls": [{"name": "list_dir", "arguments": json.dumps({"path": "."})}]}
    app = make_app(
        [
            listing,
            write("notes.txt", "elsewhere"),
            write("ZIZOU.md", "# greet\nRun `pytest`.\n"),
            {"text": "ZIZOU.md is written."},
        ]
    )
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(pilot)
        await send(pilot, "/init")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        requests = model(app).requests
        offered = {tool["function"]["name"] for tool in requests[0].tools}
        assert "write_file" in offered and not offered & {"edit_file", "run_bash", "delete_file"}
        assert "ZIZOU.md" in requests[0].system and "INIT" in requests[0].system
        await pilot.press("y")
        await settle(pilot)
        assert (project / "ZIZOU.md").read_text() == "# greet\nRun `pytest`.\n"
        assert not (project / "notes.txt").exists()
        results = [m["content"] for m in model(app).requests[2].messages if m["role"] == "tool"]
        assert "/init writes only ZIZOU.md" in results[-1]


async def test_init_in_plan_mode_says_to_build_first(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(pilot)
        app.session.kernel.state.set_mode("plan", "user")
        await send(pilot, "/init")
        await settle(pilot, lambda: "Shift+Tab to build first" in said(app))
        assert model(app).requests == []
