"""MCP servers in the app, against the SDK-written fault server: `/mcp` and `/mcp NAME`, a
server's prompt as a slash command, a resource attached with `@SERVER:URI`, both completed in
the prompt, and a failure said in the conversation with the fix."""

from __future__ import annotations

from pathlib import Path

from mcp_harness import config_text, fault
from ui_harness import MakeApp, send, settle

from zizou.ui.completion import Context
from zizou.ui.widgets.messages import Notice


def said(app: object) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))  # type: ignore[attr-defined]


async def test_mcp_lists_servers_and_a_prompt_and_a_resource_reach_the_model(
    make_app: MakeApp, zizou_home: Path
) -> None:
    (zizou_home / "mcp.json").write_text(config_text(fault=fault()))
    app = make_app([{"text": "reviewed"}, {"text": "read it"}])
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            servers = app.session.kernel.mcp.servers  # type: ignore[union-attr]
            await settle(pilot, lambda: servers.statuses()[0].state == "ready", limit_s=60)
            await send(pilot, "/mcp")
            await settle(pilot)
            assert "fault · user · ready · 8 tools (1 left out" in said(app)
            await send(pilot, "/mcp fault")
            await settle(pilot)
            text = said(app)
            assert "mcp__fault__echo: [fault] Says the text back." in text
            assert "resource @fault:note://readme" in text
            assert "prompt /mcp__fault__review topic" in text

            completer = app.composer.completer
            prompts = completer.suggest(Context("command", "mcp__fault__r", 0, 14))
            assert [s.value for s in prompts] == ["/mcp__fault__review "]
            resources = completer.suggest(Context("file", "fault:no", 0, 9))
            assert resources[0].value == "@fault:note://readme " and not resources[0].file

            model = app.session.kernel.agent.model
            await send(pilot, "/mcp__fault__review the parser")
            await settle(pilot, lambda: len(model.requests) == 1)  # type: ignore[attr-defined]
            await settle(pilot)
            assert model.requests[-1].messages[-1] == {  # type: ignore[attr-defined]
                "role": "user",
                "content": "Please review the parser carefully.",
            }
            await send(pilot, "summarise @fault:note://readme please")
            await settle(pilot, lambda: len(model.requests) == 2)  # type: ignore[attr-defined]
            await settle(pilot)
            sent = model.requests[-1].messages[-1]["content"]  # type: ignore[attr-defined]
            assert sent.startswith("summarise @fault:note://readme please\n\n<resource server=")
            assert "The readme says: ship it." in sent
            assert "Attached fault:note://readme." in said(app)
    finally:
        app.session.kernel.close_servers()


async def test_a_server_that_fails_is_said_with_the_fix(
    make_app: MakeApp, zizou_home: Path
) -> None:
    (zizou_home / "mcp.json").write_text(config_text(gone={"command": "no-such-mcp-xyz"}))
    app = make_app()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, lambda: "The MCP server gone failed" in said(app), limit_s=60)
            await send(pilot, "/mcp")
            await settle(pilot)
            assert "gone · user · failed:" in said(app)
            await send(pilot, "/mcp__gone__x")
            await settle(pilot)
            assert "No MCP prompt /mcp__gone__x." in said(app)
    finally:
        app.session.kernel.close_servers()
