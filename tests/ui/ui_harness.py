"""Building the app around a scripted model in a scratch project, and driving it with Pilot."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from zizou.config.project_rules import save_prefix
from zizou.core.permissions import Rules
from zizou.core.protocols import Model
from zizou.errors import UsageError
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.approver import TuiApprover
from zizou.ui.launch import TuiOptions, build_session

SESSION_ID = "20250101-120000-abc123"

MakeApp = Callable[..., ZizouApp]


def scripted_factory(model: ScriptedModel) -> Callable[[str], Model]:
    def open_model(model_id: str) -> Model:
        if model_id == model.id:
            return model
        if model_id.startswith("nokey/"):
            raise UsageError(f"no key for nokey: set NOKEY_API_KEY to use {model_id}")
        return ScriptedModel([{"text": f"hello from {model_id}"}], id=model_id)

    return open_model


def build_app(
    root: Path,
    replies: Iterable[dict[str, Any]] = (),
    *,
    rules: Rules | None = None,
    first_prompt: str | None = None,
) -> ZizouApp:
    model = ScriptedModel(replies)
    approver = TuiApprover(root, save_prefix)
    options = TuiOptions(root, model=model.id, debug_log=False)
    session = build_session(
        options, approver, rules or Rules(), models=scripted_factory(model), persist=False
    )
    session.runtime.session_id = SESSION_ID
    session.runtime.prompt.write_compiled = False
    return ZizouApp(session, approver, first_prompt=first_prompt, fade=False)


async def settle(pilot: Any, until: Callable[[], bool] | None = None, limit_s: float = 15) -> None:
    """Let the app work until `until()` holds (or it is idle), within a generous limit."""
    app: ZizouApp = pilot.app
    steps = int(limit_s / 0.02)
    for _ in range(steps):
        await pilot.pause(0.02)
        done = until() if until is not None else not app.busy and not _running(app)
        if done:
            await pilot.pause()
            return
    raise AssertionError("the app did not settle")


def _running(app: ZizouApp) -> bool:
    return any(w.group in ("turn", "shell") and not w.is_finished for w in app.workers)


async def send(pilot: Any, text: str) -> None:
    """Type `text` into the prompt and press Enter."""
    app: ZizouApp = pilot.app
    app.composer.set_text(text)
    await pilot.press("enter")
