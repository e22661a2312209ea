"""Building the app around a scripted model in a scratch project, and driving it with Pilot."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from waiting import scaled

from zizou.agent.permissions import Rules
from zizou.config.options import RunOptions, with_saved_rules
from zizou.config.project_rules import save_prefix
from zizou.contracts.protocols import Model
from zizou.errors import UsageError
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.approver import TuiApprover
from zizou.ui.key_setup import KeyServices
from zizou.ui.launch import build_ui_session
from zizou.ui.session import ModelFactory, SetupMode, UiSession

SESSION_ID = "20250101-120000-abc123"

MakeApp = Callable[..., ZizouApp]


class OpenedModel(ScriptedModel):
    """A model the app switched to, with the key and address it was opened with."""

    def __init__(self, model_id: str, api_key: str | None, api_base: str | None) -> None:
        super().__init__([{"text": f"hello from {model_id}"}], id=model_id)
        self.api_key = api_key
        self.api_base = api_base


def scripted_factory(model: ScriptedModel, missing: tuple[str, ...] = ("nokey/",)) -> ModelFactory:
    """The scripted model under its id; others answer "hello from ID". Models whose id starts
    with one of `missing` have no key unless one is given, as `open_model` would say."""

    def open_model(
        model_id: str, *, api_key: str | None = None, api_base: str | None = None
    ) -> Model:
        if model_id == model.id:
            return model
        if model_id.startswith(missing) and api_key is None:
            provider = model_id.partition("/")[0]
            var = f"{provider.upper()}_API_KEY"
            raise UsageError(f"No key for {provider}: run `zizou keys set {provider}` or set {var}")
        return OpenedModel(model_id, api_key, api_base)

    return open_model


def scripted_session(
    root: Path,
    replies: Iterable[dict[str, Any]] = (),
    *,
    rules: Rules | None = None,
    model_id: str = "scripted",
    missing: tuple[str, ...] = ("nokey/",),
    options: dict[str, Any] | None = None,
) -> tuple[UiSession, TuiApprover]:
    """A session around a scripted model, as the app would open it, and its approver;
    `options`: more of the run's options (a spending cap...)."""
    model = ScriptedModel(replies, id="scripted")
    approver = TuiApprover(root, save_prefix)
    merged, warnings = with_saved_rules(root, rules or Rules())  # as resolve_options does
    run = RunOptions(
        root=root,
        model=model_id,
        debug_log=False,
        rules=merged,
        warnings=tuple(warnings),
        **(options or {}),
    )
    models = scripted_factory(model, missing)
    session = build_ui_session(run, approver, models=models, persist=False)
    session.kernel.session_id = SESSION_ID
    session.kernel.prompt.write_compiled = False
    return session, approver


class TestClock:
    """The app's clock in tests: the monotonic clock, which a test moves on at once
    (`advance`) instead of waiting, so that a dialog is armed when the test says so, and
    stops (`hold`) where however slow the machine no time may pass."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.held: float | None = None

    def __call__(self) -> float:
        return self.held if self.held is not None else time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        if self.held is not None:
            self.held += seconds
        else:
            self.offset += seconds

    def hold(self) -> None:
        self.held = self()

    def release(self) -> None:
        if self.held is not None:
            self.offset, self.held = self.held - time.monotonic(), None


def clock_of(app: ZizouApp) -> TestClock:
    clock = app.typing.now
    assert isinstance(clock, TestClock)
    return clock


def build_app(
    root: Path,
    replies: Iterable[dict[str, Any]] = (),
    *,
    rules: Rules | None = None,
    first_prompt: str | None = None,
    model_id: str = "scripted",
    missing: tuple[str, ...] = ("nokey/",),
    setup: SetupMode = None,
    keys: KeyServices | None = None,
    typed_ahead: str = "",
    options: dict[str, Any] | None = None,
) -> ZizouApp:
    session, approver = scripted_session(
        root, replies, rules=rules, model_id=model_id, missing=missing, options=options
    )
    notify = (options or {}).get("notify")  # the app's own: the bell and notifications
    keys = keys or KeyServices(environ={})
    return ZizouApp(
        session,
        approver,
        first_prompt=first_prompt,
        typed_ahead=typed_ahead,
        fade=False,
        setup=setup,
        keys=keys,
        notify=notify,
        clock=TestClock(),
    )


async def settle(pilot: Any, until: Callable[[], bool] | None = None, limit_s: float = 30) -> None:
    """Let the app work until `until()` holds (or it is idle), within a generous limit (longer
    with ZIZOU_TEST_TIMEOUT_SCALE): it returns as soon as the condition holds, so a busy
    machine only makes it wait longer."""
    app: ZizouApp = pilot.app
    steps = int(scaled(limit_s) / 0.02)
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
