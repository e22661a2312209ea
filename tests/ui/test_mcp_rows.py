"""An MCP tool's row shows the first lines of its result, as a command's row shows its last, and
expands to the whole result with Ctrl+O (or Enter, or a click), like the other rows."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_harness import config_text, fault
from ui_harness import MakeApp, send, settle

from zizou.agent.permissions import Rules
from zizou.ui.widgets.tool_row import ToolRow

YES = Rules(yes=True)


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


async def test_an_mcp_row_shows_its_result_and_ctrl_o_expands_it(
    make_app: MakeApp, zizou_home: Path
) -> None:
    (zizou_home / "mcp.json").write_text(config_text(fault=fault()))
    replies = [call("mcp__fault__big", chars=200), {"text": "counted"}]
    app = make_app(replies, rules=YES)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            servers = app.session.kernel.mcp.servers  # type: ignore[union-attr]
            await settle(pilot, lambda: servers.statuses()[0].state == "ready", limit_s=60)
            await send(pilot, "count")
            await settle(pilot)
            row = app.query(ToolRow).last()
            assert row.tool == "mcp__fault__big" and row.ok
            preview = str(row.query_one(".tool-preview").render())
            assert preview.startswith("000000000\n000000001\n")
            assert "15 more lines · click or ctrl+o to expand" in preview
            assert row.has_class("-preview")
            await pilot.press("ctrl+o")
            await settle(pilot, lambda: row.expanded)
            body = str(row.query_one(".tool-body").render())
            assert "000000019" in body
            await pilot.press("ctrl+o")
            await settle(pilot, lambda: not row.expanded)
    finally:
        app.session.kernel.close()
