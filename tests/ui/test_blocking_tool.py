"""A tool whose work blocks for seconds does not freeze the app: it runs in a worker thread, so
keys typed meanwhile reach the prompt at once, and its progress shows on its row."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from textual.widgets import Static
from ui_harness import MakeApp, send, settle

from zizou.tools import Access, Tool, ToolArgs, ToolContext, ToolResult
from zizou.ui.screens.approval import ApprovalScreen
from zizou.ui.widgets.tool_row import ToolRow

BLOCK_S = 3.0


class BlockArgs(ToolArgs):
    pass


class Block(Tool[BlockArgs]):
    """Blocks its thread for up to three seconds (as a slow edit of a huge file would)."""

    name = "block"
    summary = "Blocks for a while."
    Args = BlockArgs
    label_field = None

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.finished_at: float | None = None

    def access(self, args: BlockArgs, ctx: ToolContext) -> Access:
        return Access("read")

    def work(self, args: BlockArgs, access: Access, ctx: ToolContext) -> ToolResult:
        ctx.progress("working through the file")
        self.started.set()
        self.release.wait(BLOCK_S)  # a blocking call, not an await
        self.finished_at = time.monotonic()
        return ToolResult(ok=True, output="done blocking")


async def test_keys_echo_while_a_tool_blocks_its_thread(make_app: MakeApp, project: Path) -> None:
    call = {"name": "block", "arguments": json.dumps({})}
    app = make_app([{"tool_calls": [call]}, {"text": "finished"}])
    block = Block()
    app.session.kernel.agent.runner.registry.register(block)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: block.started.is_set() and bool(app.query(ToolRow)))
        await pilot.press("h", "i")
        await pilot.pause()
        typed_at = time.monotonic()
        assert app.composer.text == "hi"  # echoed while the tool's thread is still blocked
        assert block.finished_at is None
        row = app.query_one(ToolRow)
        preview = row.query_one(".tool-preview", Static)
        await settle(pilot, lambda: "working through the file" in str(preview.render()))
        block.release.set()
        await settle(pilot, lambda: not app.busy, limit_s=BLOCK_S + 10)
        assert block.finished_at is not None and block.finished_at > typed_at
        assert row.ok and "done blocking" in row.output


class Quiet(Tool[BlockArgs]):
    """Declares nothing about what it touches."""

    name = "quiet"
    summary = "Does something it does not declare."
    Args = BlockArgs
    label_field = None

    def work(self, args: BlockArgs, access: Access, ctx: ToolContext) -> ToolResult:
        return ToolResult(ok=True, output="quietly done")


async def test_a_tool_that_declares_no_access_is_asked_for_in_the_app(make_app: MakeApp) -> None:
    call = {"name": "quiet", "arguments": "{}"}
    app = make_app([{"tool_calls": [call]}, {"text": "ok"}])
    app.session.kernel.agent.runner.registry.register(Quiet())
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        where = str(app.screen.query_one("#approval-where").render())
        assert "quiet does not declare what it touches" in where
        await pilot.press("y")
        await settle(pilot)
        row = app.query_one(ToolRow)
        assert row.ok and "quietly done" in row.output
