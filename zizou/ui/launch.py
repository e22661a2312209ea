"""Start the full-screen app: open the model, load the rules the user saved for the project, build
the same runtime headless mode builds, and run the app.

Nothing here imports litellm: the model is opened without it, and the app warms it up in a
thread once the first frame is on screen.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zizou.core.permissions import Rules
from zizou.core.protocols import Approver, Model
from zizou.errors import UsageError

if TYPE_CHECKING:
    from zizou.runtime import Runtime, SessionChoice
    from zizou.sandbox import SandboxStatus
    from zizou.ui.session import ModelFactory, RuntimeFactory, SetupMode, UiSession


@dataclass(frozen=True)
class TuiOptions:
    root: Path
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    max_steps: int = 15
    prompt: str | None = None
    resume: str | None = None  # -r ID
    continue_last: bool = False  # -c
    debug_log: bool = True
    setup: SetupMode = None  # --setup: the key wizard at start; --reset: replace the model's key
    typed_ahead: str = ""  # keys typed before the app could read them (see early_keys)
    sandbox: SandboxStatus | None = None  # where the model's commands run (None: detect)

    def session_choice(self) -> SessionChoice:
        from zizou.runtime import SessionChoice  # with the runtime: after the first frame

        return SessionChoice(resume=self.resume, continue_last=self.continue_last)


def run_tui(options: TuiOptions, rules: Rules) -> int:
    """Run the app until the user quits; the exit code."""
    from zizou.config.project_rules import save_prefix
    from zizou.ui.app import ZizouApp
    from zizou.ui.approver import TuiApprover
    from zizou.ui.key_setup import KeyServices
    from zizou.ui.opening import PendingSession, Warmup

    resuming = options.resume is not None or options.continue_last
    if resuming:  # from a subdirectory too, as git finds its repository
        from zizou.sessions import find_project

        options = dataclasses.replace(options, root=find_project(options.root))
    approver = TuiApprover(options.root, save_prefix)

    def open_session() -> UiSession:  # in a thread, once the first frame is up
        return build_session(options, approver, rules)

    # Resuming opens the session first, so a wrong -r / -c is reported before any screen.
    app = ZizouApp(
        open_session() if resuming else PendingSession(options.root, open_session),
        approver,
        first_prompt=options.prompt,
        typed_ahead=options.typed_ahead,
        warmup=Warmup(_preload),
        setup=options.setup,
        keys=KeyServices(api_base=options.api_base),
    )
    try:
        code = app.run()
    finally:
        if app.opening.session is not None:
            app.opening.session.runtime.close()
    if app.opening.session is not None and (hint := app.opening.session.resume_hint(Path.cwd())):
        print(hint)  # the screen is gone: how to come back
    if app.opening.error is not None:
        raise app.opening.error
    return code or 0


def with_saved_rules(root: Path, rules: Rules) -> tuple[Rules, list[str]]:
    """`rules` plus the command rules the user saved for this project (kept in the user's config
    dir, never in the project), and a warning when the project ships a rules file of its own."""
    from zizou.config.project_rules import ignored_project_file, load_prefixes

    saved = tuple(p for p in load_prefixes(root) if p not in rules.bash_prefixes)
    merged = dataclasses.replace(rules, bash_prefixes=(*rules.bash_prefixes, *saved))
    ignored = ignored_project_file(root)
    return merged, [ignored] if ignored else []


def model_factory(base: str | None, key: str | None = None) -> ModelFactory:
    """Models as `--api-base` and `--api-key` say, unless a switch gives its own (the wizard)."""

    def open_it(model_id: str, *, api_key: str | None = None, api_base: str | None = None) -> Model:
        from zizou.config.model_choice import open_model

        return open_model(model_id, api_base or base, api_key or key)

    return open_it


def runtime_factory(
    options: TuiOptions, approver: Approver, *, persist: bool = True
) -> RuntimeFactory:
    def build(model: Model, rules: Rules, session: SessionChoice | None = None) -> Runtime:
        from zizou.runtime import build_runtime

        return build_runtime(
            options.root,
            model,
            approver,
            rules,
            options.max_steps,
            session=session,
            persist=persist,
            debug_log=options.debug_log,
            sandbox=options.sandbox,
        )

    return build


def build_session(
    options: TuiOptions,
    approver: Approver,
    rules: Rules,
    *,
    models: ModelFactory | None = None,
    persist: bool = True,
) -> UiSession:
    """The runtime as headless mode builds it, plus what the app tracks: `rules` with the ones
    the user saved for this project (a rules file the project ships is named once, with the
    session's warnings). A missing key does not stop the app: it opens and says what to do
    (the key wizard's seam)."""
    from zizou.config.model_choice import default_model_id
    from zizou.ui.session import UiSession, UnavailableModel

    models = models or model_factory(options.api_base, options.api_key)
    model_id = options.model or default_model_id()
    problem: str | None = None
    kind: str | None = None
    try:
        model = models(model_id)
    except UsageError as exc:
        problem, kind = str(exc), getattr(exc, "kind", "usage")
        model = UnavailableModel(model_id, problem)
    runtimes = runtime_factory(options, approver, persist=persist)
    merged, ignored = with_saved_rules(options.root, rules)
    runtime = runtimes(model, merged, options.session_choice())
    runtime.warnings.extend(ignored)
    return UiSession(
        runtime, options.root, models, runtimes, model_problem=problem, model_problem_kind=kind
    )


WARM_MODULES = (
    "openai.resources",  # litellm's OpenAI client imports it at the first request
    "textual.widgets._markdown",  # the first answer's Markdown
    "zizou.ui.widgets.frozen_markdown",  # and Rich's, once an answer grows long
)


def _preload() -> None:
    """In a background thread: import litellm (it takes about two seconds), and what the first
    request and answer would otherwise import on the UI thread, stalling the screen for half a
    second mid-stream."""
    import importlib

    from zizou.providers.litellm_model import preload

    preload()
    for name in WARM_MODULES:
        importlib.import_module(name)


__all__ = [
    "TuiOptions",
    "build_session",
    "model_factory",
    "run_tui",
    "runtime_factory",
    "with_saved_rules",
]
