"""The app and the commands it runs as jobs: `/jobs` lists them with their state and last lines,
reads one and stops one; they outlive `/clear`; and a command row whose output the model saw cut
expands to every line of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import Log
from ui_harness import MakeApp, send, settle

from zizou.agent.permissions import Rules
from zizou.ui.screens.text_viewer import TextViewerScreen
from zizou.ui.widgets.messages import Notice
from zizou.ui.widgets.tool_row import ToolRow

YES = Rules(yes=True)


def run(command: str, **more: Any) -> dict[str, Any]:
    arguments = json.dumps({"command": command, **more})
    return {"tool_calls": [{"name": "run_bash", "arguments": arguments}]}


def said(app: Any) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


async def test_jobs_lists_reads_and_stops_a_background_job(make_app: MakeApp) -> None:
    server = "echo ready; echo serving; sleep 600"
    app = make_app([run(server, background=True), {"text": "started"}], rules=YES)
    try:
        async with app.run_test(size=(110, 40)) as pilot:
            await send(pilot, "start the server")
            await settle(pilot)
            await send(pilot, "/jobs")
            await settle(pilot, lambda: "Background jobs" in said(app))
            listed = said(app)
            assert "Background jobs (1 running, 0 ended):" in listed
            assert "c1 · running for" in listed and server in listed
            assert "      ready\n      serving" in listed
            await send(pilot, "/jobs c1")
            await settle(pilot, lambda: isinstance(app.screen, TextViewerScreen))
            assert isinstance(app.screen, TextViewerScreen)
            assert app.screen.text == "ready\nserving"
            await pilot.press("escape")
            await send(pilot, "/jobs kill c1")
            await settle(pilot, lambda: "Stopped job c1" in said(app))
            job = app.session.kernel.jobs.get("c1")
            assert job is not None and job.state == "killed"
            await send(pilot, "/jobs kill c1")
            await settle(pilot, lambda: "has already ended" in said(app))
            await send(pilot, "/jobs kill c9")
            await settle(pilot, lambda: "There is no background job 'c9' (jobs: c1)" in said(app))
    finally:
        app.session.kernel.close()


async def test_jobs_says_when_there_are_none(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(110, 40)) as pilot:
        await send(pilot, "/jobs")
        await settle(pilot, lambda: "No background jobs" in said(app))


async def test_a_background_job_outlives_clear(make_app: MakeApp) -> None:
    app = make_app([run("sleep 600", background=True), {"text": "started"}], rules=YES)
    try:
        async with app.run_test(size=(110, 40)) as pilot:
            await send(pilot, "start it")
            await settle(pilot)
            old = app.session.kernel
            await send(pilot, "/clear")
            await settle(pilot, lambda: app.session.kernel is not old)
            job = app.session.kernel.jobs.get("c1")
            assert job is not None and not job.done
            assert old.jobs.get("c1") is None
    finally:
        assert app.session.kernel.close() == ["c1 (sleep 600)"]


async def test_a_cut_output_expands_to_every_line(make_app: MakeApp) -> None:
    app = make_app([run("seq 1 200000"), {"text": "counted"}], rules=YES)
    try:
        async with app.run_test(size=(110, 40)) as pilot:
            await send(pilot, "count")
            await settle(pilot)
            [row] = [r for r in app.query(ToolRow) if r.tool == "run_bash"]
            assert "2,000 of 200,000 lines shown" in row.output
            row.expanded = True
            await settle(pilot, lambda: bool(row.query(Log)) and row.query_one(Log).line_count > 0)
            log = row.query_one(Log)
            assert log.line_count == 200_000
            assert log.lines[149_999] == "150000" and log.lines[-1] == "200000"
            assert log.region.height <= 20  # scrolled inside the row, not the whole chat
    finally:
        app.session.kernel.close()


async def test_an_output_shown_whole_expands_as_before(make_app: MakeApp) -> None:
    app = make_app([run("seq 1 3"), {"text": "counted"}], rules=YES)
    async with app.run_test(size=(110, 40)) as pilot:
        await send(pilot, "count")
        await settle(pilot)
        [row] = [r for r in app.query(ToolRow) if r.tool == "run_bash"]
        row.expanded = True
        await pilot.pause()
        assert row.full_output is None and not row.query(Log)


async def test_a_long_output_of_the_users_own_command_is_shared_with_the_rest_named(
    make_app: MakeApp,
) -> None:
    app = make_app()
    try:
        async with app.run_test(size=(110, 40)) as pilot:
            await send(pilot, "!seq 1 200000")
            await settle(pilot)
            [row] = app.query(ToolRow)
            [note] = app.session.kernel.state.conversation.records
            shared = note.shell.result  # type: ignore[attr-defined]
            assert shared.splitlines()[:2] == [
                "exit code 0",
                "[2,000 of 200,000 lines shown (head and tail); read the rest with "
                'read_output(id="c1", start_line=1001, end_line=199000)]',
            ]
            job = app.session.kernel.jobs.get("c1")
            assert job is not None and job.spool.lines == 200_000
            await settle(pilot, lambda: bool(row.query(Log)) and row.query_one(Log).line_count > 0)
            assert row.query_one(Log).line_count == 200_000  # the row opens expanded
    finally:
        app.session.kernel.close()


async def test_a_background_jobs_row_says_when_it_ended(make_app: MakeApp, project: Path) -> None:
    # the job runs until the test has seen it running (outside the sandbox, so that it sees
    # the file the test makes then)
    job_command = "until [ -e go ]; do sleep 0.02; done; echo made"
    script = [run(job_command, background=True), {"text": "started"}]
    app = make_app(script, rules=Rules(yes=True, sandbox="off"))
    try:
        async with app.run_test(size=(110, 40)) as pilot:
            await send(pilot, "start it")
            await settle(pilot)
            (row,) = app.query(ToolRow)
            assert "job c1: running in the background" in str(row._header())
            (project / "go").touch()
            job = app.session.kernel.jobs.get("c1")
            assert job is not None and await job.wait(30)
            await settle(pilot, lambda: "job c1 ended · exit code 0" in str(row._header()))
            assert "running in the background" not in str(row._header())
    finally:
        app.session.kernel.close()
