"""Start the full-screen app: open the model, load the project's saved rules, build the same
runtime headless mode builds, and run the app.

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
    from zizou.ui.session import ModelFactory, RuntimeFactory, UiSession


@dataclass(frozen=True)
class TuiOptions:
    root: Path
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    max_steps: int = 15
    prompt: str | None = None
    session: SessionChoice | None = None
    debug_log: bool = True


def run_tui(options: TuiOptions, rules: Rules) -> int:
    """Run the app until the user quits; the exit code."""
    from zizou.config.project_rules import load_prefixes, save_prefix
    from zizou.ui.app import ZizouApp
    from zizou.ui.approver import TuiApprover

    saved = tuple(p for p in load_prefixes(options.root) if p not in rules.bash_prefixes)
    rules = dataclasses.replace(rules, bash_prefixes=(*rules.bash_prefixes, *saved))
    approver = TuiApprover(options.root, save_prefix)
    session = build_session(options, approver, rules)
    try:
        app = ZizouApp(session, approver, first_prompt=options.prompt, preload=_preload)
        code = app.run()
    finally:
        session.runtime.close()
    return code or 0


def model_factory(api_base: str | None, api_key: str | None = None) -> ModelFactory:
    def open_it(model_id: str) -> Model:
        from zizou.config.model_choice import open_model

        return open_model(model_id, api_base, api_key)

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
    """The runtime as headless mode builds it, plus what the app tracks. A missing key does not
    stop the app: it opens and says what to do (the key wizard's seam)."""
    from zizou.config.model_choice import default_model_id
    from zizou.ui.session import UiSession, UnavailableModel

    models = models or model_factory(options.api_base, options.api_key)
    model_id = options.model or default_model_id()
    problem: str | None = None
    try:
        model = models(model_id)
    except UsageError as exc:
        problem = str(exc)
        model = UnavailableModel(model_id, problem)
    runtimes = runtime_factory(options, approver, persist=persist)
    runtime = runtimes(model, rules, options.session)
    return UiSession(runtime, options.root, models, runtimes, model_problem=problem)


def _preload() -> None:
    """Import litellm in a background thread (it takes about two seconds)."""
    from zizou.providers.litellm_model import preload

    preload()


__all__ = ["TuiOptions", "build_session", "model_factory", "run_tui", "runtime_factory"]
