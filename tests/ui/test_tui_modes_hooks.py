"""Hooks in the app: `/hooks` lists them, and a project's Python hook that waits for trust is
shown at start-up (its file, new or changed, its hash, its code) and runs once trusted; keys
typed as the dialog opens go to the prompt, not to the dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ui_harness import MakeApp, clock_of, send, settle

from zizou.hooks.sources import TrustStore
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.screens.guarded import GuardedScreen
from zizou.ui.screens.hook_trust import HookTrustScreen
from zizou.ui.widgets.messages import Notice

HOOK = ".zizou/hooks/marker.py"
MARKER = """\
def render(p):
    p.system("MARKER", "the marker hook ran at step %d" % p.ctx.step_number)
"""


@pytest.fixture
def hooks(project: Path, zizou_home: Path) -> Path:
    """A project hook to trust, a user's Markdown hook, and a user's Python hook that fails."""
    (project / ".zizou" / "hooks").mkdir(parents=True)
    (project / HOOK).write_text(MARKER)
    (zizou_home / "hooks").mkdir()
    (zizou_home / "hooks" / "remind.md").write_text("---\ndo:\n  remind: Keep it short.\n---\n")
    (zizou_home / "hooks" / "broken.py").write_text("raise ValueError('nope')\n")
    return project / HOOK


def said(app: ZizouApp) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


def model(app: ZizouApp) -> ScriptedModel:
    found = app.session.kernel.agent.model
    assert isinstance(found, ScriptedModel)
    return found


async def trust_dialog(pilot: Any) -> HookTrustScreen:
    await settle(pilot, lambda: isinstance(pilot.app.screen, HookTrustScreen))
    screen = pilot.app.screen
    assert isinstance(screen, HookTrustScreen)
    clock_of(pilot.app).advance(GuardedScreen.ARM_S)  # on screen long enough to answer
    await pilot.pause()
    return screen


async def test_the_trust_dialog_shows_the_hook_and_y_trusts_and_loads_it(
    make_app: MakeApp, hooks: Path, zizou_home: Path
) -> None:
    app = make_app([{"text": "hi"}])
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await trust_dialog(pilot)
        source = dialog.source
        assert source.name == HOOK and not dialog.changed
        shown = str(dialog.query_one("#trust-about").render())
        assert f"new: never trusted · sha256 {source.sha256[:12]}" in shown
        assert "the marker hook ran" in str(
            dialog.query_one("#trust-code").query_one("Static").render()
        )
        assert "was not run" not in said(app)  # the dialog asks instead of the warning
        await send(pilot, "hello")  # a message sent now waits for the answer
        assert not model(app).requests and [i.text for i in app.queue.items] == ["hello"]
        clock_of(app).advance(GuardedScreen.PAUSE_S)  # typing disarmed it until a pause
        await pilot.press("y")
        await settle(pilot, lambda: "Trusted .zizou/hooks/marker.py" in said(app))
        await settle(pilot, lambda: bool(model(app).requests))
        await settle(pilot)
        assert "the marker hook ran at step 1" in model(app).requests[0].system
        assert app.session.kernel.untrusted == []
        assert TrustStore(zizou_home).status(source) == "trusted"


async def test_no_leaves_it_untrusted_and_hooks_lists_every_hook(
    make_app: MakeApp, hooks: Path
) -> None:
    app = make_app([{"text": "hi"}, {"text": "again"}])
    async with app.run_test(size=(120, 40)) as pilot:
        await trust_dialog(pilot)
        await pilot.press("n")
        await settle(pilot, lambda: "stays untrusted for this session" in said(app))
        await send(pilot, "/hooks")
        await settle(pilot, lambda: "Hooks loaded" in said(app))
        listing = app.query(Notice).last().message
        assert "  builtin:modes · python · builtin" in listing
        assert "  user:remind.md · markdown · user" in listing
        assert "Not loaded (1):\n  user:broken.py: failed to load (ValueError: nope)" in listing
        assert "Waiting for your trust (1), not run:" in listing
        assert f"  {HOOK} · not trusted · sha256 " in listing
        assert f"For instance: /hooks trust {HOOK}" in said(app)
        await send(pilot, "hi")
        await settle(pilot)
        assert "marker hook" not in model(app).requests[0].system
        await send(pilot, "/hooks trust marker.py")  # the file name is enough
        await trust_dialog(pilot)
        await pilot.press("y")
        await settle(pilot, lambda: "Trusted .zizou/hooks/marker.py" in said(app))
        await send(pilot, "again")
        await settle(pilot)
        assert "the marker hook ran" in model(app).requests[1].system


async def test_hooks_trust_names_what_it_cannot_trust(make_app: MakeApp, hooks: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await trust_dialog(pilot)
        await pilot.press("escape")
        await settle(pilot, lambda: "stays untrusted" in said(app))
        await send(pilot, "/hooks trust user:remind.md")
        await settle(pilot, lambda: "is loaded already" in said(app))
        await send(pilot, "/hooks trust nothing.py")
        await settle(pilot, lambda: "No hook named 'nothing.py'" in said(app))
        assert f"Waiting for your trust: {HOOK}." in said(app)
        await send(pilot, "/hooks trust")
        await settle(pilot, lambda: "Which hook?" in said(app))
        await send(pilot, "/hooks bogus")
        await settle(pilot, lambda: "Unknown /hooks 'bogus'" in said(app))


async def test_a_changed_hook_says_so(make_app: MakeApp, hooks: Path, zizou_home: Path) -> None:
    from zizou.hooks.runtime import HookSource

    old = HookSource(HOOK, "project", "python", "x", hooks.resolve(), "0" * 64)
    TrustStore(zizou_home).trust(old)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = await trust_dialog(pilot)
        assert dialog.changed
        assert "CHANGED since you trusted it" in str(dialog.query_one("#trust-about").render())
        await pilot.press("n")
        await send(pilot, "/hooks")
        await settle(pilot, lambda: "changed since trusted" in said(app))


async def test_keys_typed_as_the_dialog_opens_go_to_the_prompt(
    make_app: MakeApp, hooks: Path
) -> None:
    app = make_app([{"text": "heard"}])
    clock = clock_of(app)
    clock.hold()  # however slow the machine, no time passes between the dialog and the keys
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, HookTrustScreen))
        await pilot.press(*"yes", "enter")  # typed on: the y is not an answer
        assert isinstance(app.screen, HookTrustScreen)
        assert app.session.kernel.untrusted  # not trusted
        assert [item.text for item in app.queue.items] == ["yes"]  # sent, and waiting
        clock.advance(GuardedScreen.ARM_S + GuardedScreen.PAUSE_S)
        await pilot.press("n")
        clock.release()
        await settle(pilot, lambda: bool(model(app).requests))
        await settle(pilot)
        assert {"role": "user", "content": "yes"} in model(app).requests[0].messages
        assert "marker hook" not in model(app).requests[0].system


async def test_quitting_with_the_dialog_open_is_clean(make_app: MakeApp, hooks: Path) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await trust_dialog(pilot)
        await pilot.press("ctrl+c", "ctrl+c")
        await settle(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0


async def test_a_trust_that_cannot_be_saved_says_so(
    make_app: MakeApp, hooks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zizou.errors import UsageError
    from zizou.session.kernel import Session

    def unwritable(self: Session, source: object) -> str | None:
        raise UsageError("cannot save the trusted hooks file: read-only file system")

    monkeypatch.setattr(Session, "trust_hook", unwritable)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await trust_dialog(pilot)
        await pilot.press("y")
        await settle(pilot, lambda: "was not trusted: cannot save" in said(app))
        assert app.query(Notice).last().has_class("-error")
        assert app.session.kernel.untrusted and app.opening.ready
