"""Start the full-screen app from the command line: draw its first frame, then resolve the run's
options (`RunOptions`), open the model and build the same session kernel headless mode builds
(the rules the user saved for the project are in the options), in a thread, while the app is
already on screen.

Nothing here imports litellm, pydantic or the session at import: the first frame needs only
Textual and the app's widgets. What the command line asks that only the resolved options can
judge (resuming a session with -r or -c, `--allow`, `--sandbox`) is resolved before any screen,
so a mistake there is reported in the shell, not after a flash of the app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zizou.errors import UsageError

if TYPE_CHECKING:
    from zizou.agent.permissions import Rules
    from zizou.config.options import RunOptions, SessionChoice
    from zizou.contracts.protocols import Approver, Model
    from zizou.mcp.setup import McpSetup
    from zizou.session.kernel import Session
    from zizou.ui.session import ModelFactory, SessionFactory, SetupMode, UiSession


STYLES_DIR = "styles"  # in zizou's cache dir: the stylesheets as parsed at the last start


@dataclass(frozen=True)
class AppStart:
    """The app's start as the command line gives it. `resolve` reads the rest of the run's
    options (config.toml, the saved rules): before any screen when `check_first`, else in the
    thread that opens the session once the first frame is up."""

    root: Path
    resolve: Callable[[], RunOptions]
    check_first: bool = False  # -r/-c, --allow, --sandbox: judged before any screen
    prompt: str | None = None
    setup: SetupMode = None
    api_base: str | None = None


def run_tui(start: AppStart, *, typed_ahead: str = "") -> int:
    """Run the app until the user quits; the exit code. `typed_ahead`: the keys typed before
    the app could read them (see early_keys)."""
    from zizou.collector import collect_less_often

    collect_less_often()  # from here: the imports below run fewer collections
    from zizou.ui.app import ZizouApp
    from zizou.ui.approver import TuiApprover
    from zizou.ui.key_setup import KeyServices
    from zizou.ui.opening import PendingSession, Warmup
    from zizou.ui.parsed_styles import ParsedStyles
    from zizou.user_dirs import user_cache_dir

    options = start.resolve() if start.check_first else None
    root = options.root if options is not None else start.root  # -c finds the project up
    approver = TuiApprover(root, _save_prefix, _save_tool_rule)

    def open_session() -> UiSession:  # in a thread, once the first frame is up
        return build_ui_session(options or start.resolve(), approver)

    # Resuming opens the session first, so a wrong -r / -c is reported before any screen.
    resuming = options is not None and options.session.resuming
    app = ZizouApp(
        open_session() if resuming else PendingSession(root, open_session),
        approver,
        first_prompt=start.prompt,
        typed_ahead=typed_ahead,
        warmup=Warmup(_preload),
        setup=start.setup,
        keys=KeyServices(api_base=start.api_base),
        styles=ParsedStyles(user_cache_dir() / STYLES_DIR),
    )
    stopped: list[str] = []
    try:
        code = app.run()
    finally:
        if app.opening.session is not None:
            stopped = app.opening.session.kernel.close()
            app.opening.session.kernel.close_servers()
    if stopped:  # the screen is gone: what zizou ended on its way out
        from zizou.session.unattended import stopped_jobs

        print(f"zizou: {stopped_jobs(stopped)}")
    if app.opening.session is not None and (hint := app.opening.session.resume_hint(Path.cwd())):
        print(hint)  # and how to come back
    if app.opening.error is not None:
        raise app.opening.error
    return code or 0


def _save_prefix(root: Path, prefix: str) -> bool:
    from zizou.config.project_rules import save_prefix

    return save_prefix(root, prefix)


def _save_tool_rule(root: Path, tool: str) -> bool:
    from zizou.config.project_rules import save_tool_rule

    return save_tool_rule(root, tool)


def model_factory(options: RunOptions) -> ModelFactory:
    """Models as `options` say (address, key, retries, timeouts), unless a switch gives its own
    key or address (the key wizard)."""

    def open_it(model_id: str, *, api_key: str | None = None, api_base: str | None = None) -> Model:
        from zizou.config.model_choice import open_model

        return open_model(
            model_id,
            api_base or options.api_base,
            api_key or options.api_key_value,
            retry=options.retry,
            timeouts=options.timeouts,
            protocol=options.protocol,
        )

    return open_it


def session_factory(
    options: RunOptions, approver: Approver, *, persist: bool = True
) -> SessionFactory:
    """Sessions as `options` describe them, with the app's current rules and the session it
    asks for (None: a new one)."""

    shared: list[McpSetup] = []  # the MCP servers, started once and kept by /clear

    def build(model: Model, rules: Rules, session: SessionChoice | None = None) -> Session:
        from zizou.config.options import SessionChoice
        from zizou.session.assembly import build_session

        chosen = options.model_copy(update={"rules": rules, "session": session or SessionChoice()})
        kernel = build_session(
            chosen,
            model,
            approver,
            persist=persist,
            mcp=shared[0] if shared else None,
            owns_mcp=False,  # the app stops the servers when it quits
        )
        if not shared and kernel.mcp is not None:
            shared.append(kernel.mcp)
        return kernel

    return build


def build_ui_session(
    options: RunOptions,
    approver: Approver,
    *,
    models: ModelFactory | None = None,
    persist: bool = True,
) -> UiSession:
    """The session kernel as headless mode builds it, plus what the app tracks. A missing key does
    not stop the app: it opens and says what to do (the key wizard's seam)."""
    from zizou.ui.session import UiSession, UnavailableModel

    models = models or model_factory(options)
    problem: str | None = None
    kind: str | None = None
    try:
        model = models(options.model)
    except UsageError as exc:
        problem, kind = str(exc), getattr(exc, "kind", "usage")
        model = UnavailableModel(options.model, problem)
    kernels = session_factory(options, approver, persist=persist)
    kernel = kernels(model, options.rules, options.session)
    return UiSession(
        kernel,
        options.root,
        models,
        kernels,
        model_problem=problem,
        model_problem_kind=kind,
        options=options,
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


__all__ = ["AppStart", "build_ui_session", "model_factory", "run_tui", "session_factory"]
