"""The spending cap in the app: the spend against the cap in the status bar, the warning at 80%,
and the question before a call would pass the cap (raise it and go on, or stop)."""

from __future__ import annotations

import json
from pathlib import Path

from ui_harness import MakeApp, send, settle

from zizou.ui.screens.confirm import ConfirmScreen

CAP = 20_000  # tokens: the scripted model has no price, so the cap is in tokens


def listing(prompt_tokens: int) -> dict[str, object]:
    call = {"name": "list_dir", "arguments": json.dumps({"path": "."})}
    return {"tool_calls": [call], "prompt_tokens": prompt_tokens, "completion_tokens": 1_000}


def notices(app: object) -> list[str]:
    return [str(n.render()) for n in app.query("Notice")]  # type: ignore[attr-defined]


async def test_the_status_bar_shows_the_spend_and_warns_at_80_percent(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app([listing(15_000), {"text": "done"}], options={"max_tokens": 40_000})
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.status.spend == ("0/40.0k tok", 0.0)
        await send(pilot, "look around")
        await settle(pilot)
        spent, share = app.status.spend
        assert spent.endswith("/40.0k tok") and share > 0.4
        assert "tok" in str(app.status.render())
        await send(pilot, "/cost")
        await settle(pilot)
        assert any("of 40,000 tokens spent in this run." in n for n in notices(app))
    assert app.session.kernel.spending.tokens >= 16_000


async def test_a_call_that_would_pass_the_cap_asks_and_yes_raises_it(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app([listing(15_000), {"text": "done"}], options={"max_tokens": CAP})
    async with app.run_test(size=(120, 34)) as pilot:
        await send(pilot, "look around")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        assert screen.question.startswith("Raise the spending cap to ")
        assert "of the cap of 20,000 tokens" in screen.detail
        assert any("% of the spending cap is used" in n for n in notices(app))
        await pilot.press("y")
        await settle(pilot)
        spending = app.session.kernel.spending
        assert spending.caps.max_tokens is not None and spending.caps.max_tokens > CAP
        assert app.session.kernel.agent.conversation.messages[-1]["content"] == "done"


async def test_no_stops_the_turn_at_the_cap(make_app: MakeApp, project: Path) -> None:
    app = make_app([listing(15_000), {"text": "never"}], options={"max_tokens": CAP})
    async with app.run_test(size=(120, 34)) as pilot:
        await send(pilot, "look around")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await settle(pilot)
        said = notices(app)
        assert any(
            "stopped before a model call that would pass the spending cap" in n for n in said
        )
        model = app.session.kernel.agent.model
        assert len(model.requests) == 1  # type: ignore[attr-defined]
        assert app.session.kernel.spending.caps.max_tokens == CAP
