"""The sandbox as the app shows it: a standing note when commands cannot be sandboxed, and the
approval dialog's `w`, which lets one command use the network."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from ui_harness import scripted_factory, send, settle

from zizou.agent.permissions import Rules
from zizou.config.options import RunOptions
from zizou.config.project_rules import save_prefix
from zizou.providers.fake import ScriptedModel
from zizou.sandbox import SandboxStatus, detect
from zizou.ui.app import ZizouApp
from zizou.ui.approver import TuiApprover
from zizou.ui.key_setup import KeyServices
from zizou.ui.launch import build_ui_session
from zizou.ui.screens.approval import ApprovalScreen
from zizou.ui.widgets.messages import Notice
from zizou.ui.widgets.status_bar import StatusBar

needs_sandbox = pytest.mark.usefixtures("sandbox_on")


def app_with(root: Path, replies: list[dict[str, object]], sandbox: SandboxStatus) -> ZizouApp:
    model = ScriptedModel(replies, id="scripted")
    approver = TuiApprover(root, save_prefix)
    rules = Rules(sandbox=sandbox.state)
    options = RunOptions(
        root=root, model="scripted", debug_log=False, sandbox_status=sandbox, rules=rules
    )
    session = build_ui_session(options, approver, models=scripted_factory(model), persist=False)
    session.kernel.prompt.write_compiled = False
    return ZizouApp(session, approver, fade=False, keys=KeyServices(environ={}))


def bash(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "run_bash", "arguments": json.dumps({"command": command})}]}


async def test_without_a_sandbox_the_app_says_so_and_offers_no_rule(project: Path) -> None:
    missing = SandboxStatus("auto", problem="bwrap (bubblewrap) is not installed")
    app = app_with(project, [bash("touch made.txt"), {"text": "ok"}], missing)
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot, lambda: app.opening.ready)
        await settle(pilot)
        assert "no sandbox" in app.query_one(StatusBar).warning
        notices = [n.message for n in app.query(Notice)]
        assert sum("no sandbox for commands" in n for n in notices) == 1
        await send(pilot, "list")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        assert screen.view.always is None and screen.view.network is None
        await pilot.press("y")
        await settle(pilot)


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(2)
    server.settimeout(10)

    def accept() -> None:
        for _ in range(2):
            try:
                server.accept()[0].close()
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


@needs_sandbox
async def test_w_lets_one_command_use_the_network(project: Path, listener: int) -> None:
    probe = (
        'python3 -c \'import socket; socket.create_connection(("127.0.0.1", '
        f'{listener}), timeout=3); print("reached")\''
    )
    app = app_with(project, [bash(probe), bash(probe), {"text": "ok"}], detect())
    async with app.run_test(size=(110, 30)) as pilot:
        await send(pilot, "probe twice")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and screen.view.network is not None
        assert "sandboxed" in str(screen.view.always)
        await pilot.press("w")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("y")
        await settle(pilot)
        model = app.session.kernel.agent.model
        results = [
            str(m["content"])
            for m in model.requests[-1].messages  # type: ignore[attr-defined]
            if m["role"] == "tool"
        ]
    assert "reached" in results[0]
    assert "reached" not in results[1]
