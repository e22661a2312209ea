"""The protected-path dialog says when a write replaces a file that is there (an existing `.env`
loses its whole content), not only what the new content is."""

from __future__ import annotations

import json
from pathlib import Path

from ui_harness import MakeApp, settle

from zizou.ui.screens.approval import ApprovalScreen


def write(path: str, content: str) -> dict[str, object]:
    arguments = json.dumps({"path": path, "content": content})
    return {"tool_calls": [{"name": "write_file", "arguments": arguments}]}


async def test_writing_over_an_existing_env_says_it_replaces_it(
    make_app: MakeApp, project: Path
) -> None:
    (project / ".env").write_text("API_TOKEN=keep-me\n")
    app = make_app([write(".env", "DEBUG=1\n"), {"text": "done"}])
    async with app.run_test(size=(120, 40)) as pilot:
        app.composer.set_text("set DEBUG")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        view = app.screen.view  # type: ignore[attr-defined]
        assert view.title == "Replace a protected file? (its whole content goes)"
        assert view.body.startswith("@@ replaces the existing file with @@\n+DEBUG=1")
        await pilot.press("escape")
        await settle(pilot)
        assert (project / ".env").read_text() == "API_TOKEN=keep-me\n"
