"""Esc twice at an idle, empty prompt opens /rewind's list of turns; with text in the prompt it
does not."""

from __future__ import annotations

import json
from typing import Any

from ui_harness import MakeApp, send, settle

from zizou.agent.permissions import Rules
from zizou.ui.screens.picker import PickerScreen


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


async def test_esc_twice_at_an_idle_prompt_opens_rewind(make_app: MakeApp) -> None:
    script = [call("write_file", path="f1.txt", content="1\n"), {"text": "did 1"}]
    app = make_app(script, rules=Rules(yes=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "write file 1")
        await settle(pilot)
        app.composer.set_text("half a thought")
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, PickerScreen)
        app.composer.set_text("")
        await pilot.press("escape", "escape")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert [e.label for e in picker.entries] == ["write file 1"]
