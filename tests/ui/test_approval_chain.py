"""The approval dialog for a chained command: "always" offers a rule for every program in the
chain and saves them all, so the same command runs unasked next time; when a segment cannot
have a rule, "always" is not offered and the dialog says why."""

from __future__ import annotations

import json
from pathlib import Path

from ui_harness import MakeApp, send, settle

from zizou.agent.permissions import Rules
from zizou.config.project_rules import load_prefixes
from zizou.ui.screens.approval import ApprovalScreen

CHAIN = "sleep 0; echo finished"


def bash(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "run_bash", "arguments": json.dumps({"command": command})}]}


def keys_text(screen: ApprovalScreen) -> str:
    return str(screen.query_one("#approval-keys").render())


async def test_always_saves_a_rule_for_every_program_in_the_chain(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app([bash(CHAIN), bash(CHAIN), {"text": "done"}])
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "wait, then say so")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        shown = " ".join(keys_text(screen).split())
        assert "always allow `sleep` and `echo` in this project" in shown
        assert "permits any command starting with `sleep` or `echo`, sandboxed" in shown
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalScreen)  # the second run did not ask
        assert load_prefixes(project) == ["sleep", "echo"]
        assert app.session.kernel.agent.runner.rules.bash_prefixes == ("sleep", "echo")
        results = [
            m["content"]
            for m in app.session.kernel.agent.conversation.messages
            if m["role"] == "tool"
        ]
        assert len(results) == 2 and all("finished" in r for r in results), results


async def test_always_is_not_offered_when_a_segment_cannot_have_a_rule(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app([bash("sleep 0; git status"), {"text": "ok"}], rules=Rules(sandbox="off"))
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "check")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        assert screen.view.always is None
        shown = " ".join(keys_text(screen).split())
        assert "always allow is not offered" in shown and "`git` can run other programs" in shown
        assert " a " not in shown
        await pilot.press("a")  # does nothing: there is no rule to save
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await settle(pilot)
        assert load_prefixes(project) == []
