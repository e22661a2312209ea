"""The one place a session is put together: the model, the tools and their context, the
prompt, the rules every call obeys (`CallGates`), the session file, the debug log, hooks,
checkpoints, checks, decks and MCP servers, each given to what uses it at construction.

Every front end (the app, `zizou -p`, `zizou run`, `zizou acp`) calls `build_session` with the
same `RunOptions`, so they run the very same loop under the same limits and rules; a deck's
child derives its parts from these (`CallGates.for_child`).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from zizou.agent.calls import CallRunner
from zizou.agent.gates import CallGates
from zizou.agent.loop import Agent, AgentConfig
from zizou.agent.prompt import PromptBuilder
from zizou.agent.spending import CapGate, SpendCaps, Spending, costs_of
from zizou.checkpoints import Checkpoints
from zizou.checks.checkers import narrowed
from zizou.checks.service import EditChecks
from zizou.checks.syntax import what_breaks
from zizou.config.claude_setup import claude_setup
from zizou.config.options import RunOptions, SessionChoice
from zizou.config.setup_report import SetupRecorder
from zizou.confined import open_handle
from zizou.contracts.conversation import Conversation
from zizou.contracts.instructions import InstructionSet
from zizou.contracts.messages import Message
from zizou.contracts.protocols import Approver, Model, TurnRecorder
from zizou.contracts.state import MAX_STICKY, SessionState
from zizou.contracts.task_state import (
    SCHEMA_FILE,
    SchemaError,
    SchemaUnreadable,
    TaskState,
    builtin_schema,
    load_schema,
)
from zizou.contracts.windows import WindowError, parse_cli_spec
from zizou.contracts.workspace import Window
from zizou.decks.loader import load_decks
from zizou.decks.run import DeckEnv, DeckParent, Models, main_tools
from zizou.decks.tracing import DeckTracing
from zizou.env import scrubbed_env
from zizou.errors import PathError, UsageError
from zizou.hooks.init import init_hook
from zizou.hooks.modes import MODES, modes_hook, read_only_reason
from zizou.hooks.runtime import HookRuntime, HookSource
from zizou.hooks.sources import TrustStore, admit, discover
from zizou.mcp.connection import Launch
from zizou.mcp.setup import McpSetup, open_servers
from zizou.repomap import repo_map_for
from zizou.sandbox import Sandbox, detect, hidden_dirs_for
from zizou.session.kernel import Session
from zizou.sessions import SessionStore, SessionWriter
from zizou.sessions.records import StateRecord
from zizou.sessions.store import LoadedSession
from zizou.sessions.task_replay import replay_task_state
from zizou.tools import Registry, Tool, ToolContext, default_registry
from zizou.tools.jobs import JobTable, next_job_number
from zizou.tools.jobs.left_running import JobRecord
from zizou.tools.jobs.left_running import sweep as sweep_left_running
from zizou.tools.open_in_workspace import open_window
from zizou.tools.read_file import FileProblem
from zizou.trace import DebugLog, Redactor, ensure_excluded, open_debug_log, session_secrets
from zizou.user_dirs import user_config_dir


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class SessionRedaction:
    """Redacts the session file and the compiled prompt as the debug log is redacted: the
    running model's key, every key zizou has loaded and secret env values, asked again at each
    write, so a key loaded after start-up (the key wizard, a model switch) is masked too."""

    def __init__(self) -> None:
        self.agent: Agent | None = None  # set once built; until then, the loaded keys only
        self._redactor = Redactor(source=self._secrets)

    def _secrets(self) -> list[str | None]:
        return session_secrets(self.agent.model if self.agent is not None else None)

    def __call__(self, text: str) -> str:
        self._redactor.refresh()
        return self._redactor.redact(text)


def build_session(
    options: RunOptions,
    model: Model,
    approver: Approver,
    *,
    persist: bool = True,
    mcp: McpSetup | None = None,
    owns_mcp: bool = True,
    tools: Sequence[Tool[Any]] = (),
) -> Session:
    """The session `options` describe, around `model`, asking `approver`; `persist=False` keeps
    no session file (tests). The MCP servers start in the background at the end (`mcp`: the
    servers of an earlier session of the app, kept); `owns_mcp=False` leaves stopping them to
    the caller (the app stops them when it quits). `tools` take the place of the built-in tools
    of their names."""
    root = options.root
    ensure_excluded(root)  # zizou-debug.log and .zizou/ are never committed by accident
    registry = default_registry(tools)
    env = scrubbed_env(os.environ)
    status = options.sandbox_status or detect(
        options.sandbox, network=options.sandbox_network, env=env
    )
    boxed = Sandbox(root, status, hidden_dirs_for(user_config_dir()))
    redact = SessionRedaction()  # session files never hold a key
    session_id, state, writer, opened, loaded = _open_session_file(
        root, model.id, options.session, persist, redact
    )
    schema_error, task_warnings = _task_state(root, state, loaded.state if loaded else ())
    instructions = InstructionSet.load(root)
    state.sticky = tuple(
        name
        for name in (loaded.sticky if loaded else ())[:MAX_STICKY]
        if (found := instructions.get(name)) is not None and found.sticky
    )
    ctx = ToolContext(
        root=root,
        env=env,
        sandbox=boxed,
        code_map=repo_map_for(root),
        state=state,
        instructions=instructions,
        jobs=JobTable(options.background_after_s, _first_job(state), JobRecord(root)),
        breaking=what_breaks if options.checks.refuse_breaking else None,
    )
    context_window = getattr(model, "context_window", None)
    prompt = PromptBuilder(
        root,
        registry,
        state,
        context_window=context_window,
        instructions=instructions,
        redact=redact,  # nor does the compiled prompt written to .zizou/compiled/
        commands_note=status.commands_note(),
    )
    open_files(root, state, options.open_files)
    warnings = [*options.warnings, *opened, *task_warnings, *instructions.warnings]
    warnings += sweep_left_running(root)  # what a zizou that died here left running
    if status.warning():
        warnings.append(str(status.warning()))
    _restore_modes(state, loaded, options)
    hooks, untrusted = _hooks(options, registry, state, warnings)
    boxing = (boxed, env, session_id)  # Claude Code's settings: their hooks and rules
    claude = claude_setup(root, options.rules, hooks, boxing, options.trust_hooks)
    untrusted += claude.waiting
    warnings += claude.problems
    checkpoints = _checkpoints(options, session_id, state, writer, loaded)
    checks = _checks(options, boxed, env, warnings)
    gates = CallGates.of(
        approver,
        claude.widen(dataclasses.replace(options.rules, permission_mode=options.permission_mode)),
        policy=hooks,
        read_only=partial(read_only_reason, state),
        changes=checkpoints,
        checks=checks,
    )
    runner = CallRunner(registry, ctx, gates)
    spending = _spending(options, model, approver)
    later = _Later()  # the agent, for the parts made before it that ask for it as they run
    log = None
    if options.debug_log:
        log = open_debug_log(root, later, prompt, {"sandbox": status.describe()})
    servers = mcp or _mcp(options, boxed, env, warnings)
    registry.attach(servers.servers)
    decks = _decks(options, ctx, gates, later, spending, redact, log, servers, warnings)
    for tool in main_tools(decks):
        if registry.get(tool.name) is None:
            registry.register(tool)
    # The recorders in order: hooks first (they follow the turn's calls for `ctx.last_tool`),
    # the session file, the debug log, checkpoints (a new turn clears what could be redone),
    # the decks (the cap on model calls is per turn, theirs too).
    recorders: list[TurnRecorder] = [hooks]
    recorders += [r for r in (writer, log) if r is not None]
    recorders += [SetupRecorder(root)] if log is not None else []  # into the open log
    recorders += [checkpoints, decks]
    agent = Agent(
        model,
        runner,
        prompt,
        state.conversation,
        _limits(options),
        recorders,
        hooks,
        spending=spending,
        checks=checks,
        turns=loaded.turns if loaded is not None else 0,  # a hook's turn_number goes on
    )
    later.agent = redact.agent = agent
    session = Session(
        session_id,
        agent,
        ctx,
        prompt,
        writer,
        warnings,
        log,
        schema_error,
        hooks,
        untrusted,
        checkpoints,
        decks,
        servers,
        owns_mcp,
    )
    servers.servers.start()  # in the background: nothing waits for a server
    return session


class _Later:
    """The agent, once it is made: what is made before it (its debug log, the decks' model
    resolution) asks here as it runs, never while it is built."""

    agent: Agent | None = None

    def __call__(self) -> Agent:
        if self.agent is None:
            raise LookupError("the agent is not made yet")
        return self.agent


def _limits(options: RunOptions) -> AgentConfig:
    window = None if options.history_window == "all" else options.history_window
    guards = options.guards
    return AgentConfig(
        max_steps=options.max_steps,
        history_window=window,
        compact_threshold=options.compact_at_percent / 100 or None,
        loop_guard_repeats=guards.max_repeated_calls,
        max_compactions=guards.max_compactions_per_turn,
    )


def _mcp(
    options: RunOptions, sandbox: Sandbox, env: dict[str, str], warnings: list[str]
) -> McpSetup:
    setup = mcp_setup(options, sandbox, env)
    warnings.extend(setup.warnings)
    return setup


def mcp_setup(
    options: RunOptions, sandbox: Sandbox | None = None, env: dict[str, str] | None = None
) -> McpSetup:
    """The MCP servers the configuration files name, not started yet: stdio servers run in
    the commands' sandbox, from the commands' scrubbed environment. A flag file that cannot
    be read is a usage error."""
    env = scrubbed_env(os.environ) if env is None else env
    if sandbox is None:
        status = options.sandbox_status or detect(options.sandbox, env=env)
        sandbox = Sandbox(options.root, status, hidden_dirs_for(user_config_dir()))
    launch = Launch(
        root=options.root,
        settings=options.mcp,
        env=env,
        environ=dict(os.environ),
        sandbox=sandbox if sandbox.active and options.mcp.sandbox else None,
        network=options.mcp.network or options.sandbox_network,
    )
    try:
        return open_servers(options.root, user_config_dir(), options.mcp_config, launch)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _decks(
    options: RunOptions,
    ctx: ToolContext,
    gates: CallGates,
    agent: Callable[[], Agent],
    spending: Spending,
    redact: Callable[[str], str],
    log: DebugLog | None,
    mcp: McpSetup,
    warnings: list[str],
) -> DeckEnv:
    """The project's, the user's and the built-in decks, each a tool of the main agent; a bad
    deck is left out with a warning (`zizou decks check` says what is wrong). Their runs get
    the main runner's gates, derived (`CallGates.for_child`), and the run's spending."""
    config_dir = user_config_dir()
    found = load_decks(
        options.root,
        config_dir,
        trust=TrustStore(config_dir),
        trust_all=options.trust_hooks,
    )
    warnings.extend(found.warnings)
    warnings.extend(
        f"a deck was left out: {problem} (see `zizou decks check`)" for problem in found.problems
    )
    models = Models(lambda: agent().model, partial(_deck_model, options), options.model_force)
    parent = DeckParent(ctx, gates, models, spending, extra_tools=mcp.servers)
    return DeckEnv(found, parent, DeckTracing(options.root, redact=redact, debug_log=log))


def _checks(
    options: RunOptions, sandbox: Sandbox, env: Mapping[str, str], warnings: list[str]
) -> EditChecks | None:
    """The session's checks: the syntax check and the checkers the user turned on, as the
    project's `.zizou/checks.toml` narrows them; None when all are off."""
    settings, said = narrowed(options.checks, options.root)
    warnings += said
    if not settings.syntax and not settings.commands and not settings.presets:
        return None
    return EditChecks(options.root, settings, sandbox, env)


def _spending(options: RunOptions, model: Model, approver: Approver) -> Spending:
    """The run's spending: its caps (`--max-budget-usd`, `--max-tokens`) and the per-turn cap
    on model calls, priced by litellm's model map; the approver is asked before a call would
    pass a cap when it can be (the app's). A dollar cap on a model the map does not price is a
    usage error: it could not be kept."""
    from zizou.providers.catalog import model_info

    caps = SpendCaps(
        options.max_budget_usd, options.max_tokens, options.guards.max_model_calls_per_turn
    )
    if caps.max_usd is not None and costs_of(model_info(model.id)) is None:
        raise UsageError(
            f"litellm does not know the price of {model.id}, so --max-budget-usd cannot be "
            "kept; cap its tokens with --max-tokens N (max_tokens in config.toml) instead"
        )
    gate = approver if isinstance(approver, CapGate) else None
    return Spending(caps, model_info, gate)


def _deck_model(options: RunOptions, model_id: str) -> Model:
    """A deck's own model, opened as the session's is: the session's `--api-base` and
    `--api-key` go only to a model of the same provider."""
    from zizou.config.model_choice import open_model
    from zizou.providers.catalog import provider_of

    same = provider_of(model_id) == provider_of(options.model)
    return open_model(
        model_id,
        options.api_base if same else None,
        options.api_key_value if same else None,
        retry=options.retry,
        timeouts=options.timeouts,
        protocol=options.protocol,
    )


def _checkpoints(
    options: RunOptions,
    session_id: str,
    state: SessionState,
    writer: SessionWriter | None,
    loaded: LoadedSession | None,
) -> Checkpoints:
    """The session's checkpoints (what undo restores), the project's store pruned first."""
    lines = loaded.checkpoints if loaded is not None else ()
    state_lines = loaded.state_lines if loaded is not None else None
    checkpoints = Checkpoints(
        options.root, session_id, state.conversation, writer, lines, state_lines
    )
    state.subscribe(checkpoints.record_state)  # undo takes back what a turn set, files or not
    if not options.snapshot_commands:
        checkpoints.shadow = None
    try:
        checkpoints.prune(options.checkpoints_max_mb, options.checkpoints_max_age_days)
    except (OSError, PathError) as exc:  # a read-only or unsafe `.zizou`: nothing to prune
        logging.getLogger(__name__).warning("the checkpoints were not pruned: %s", exc)
    return checkpoints


def _restore_modes(state: SessionState, loaded: LoadedSession | None, options: RunOptions) -> None:
    """The mode and the hooks' state the session left, then `--mode`."""
    if loaded is not None:
        state.hook_state = {hook: dict(values) for hook, values in loaded.hook_state.items()}
        if loaded.mode in MODES:
            state.mode = loaded.mode
    if options.mode is not None:
        state.set_mode(options.mode, "cli")


def _hooks(
    options: RunOptions, registry: Registry, state: SessionState, warnings: list[str]
) -> tuple[HookRuntime, list[HookSource]]:
    """The session's hooks: the built-in modes, the user's, and the project's; a project's
    Python hook runs only once the user trusted its exact content (`--trust-hooks`, `zizou
    hooks trust`, the app's dialog). The others wait in the second value, each with a warning."""
    hooks = HookRuntime(registry, state)
    hooks.add(modes_hook(options.plan_reminder_steps))
    hooks.add(init_hook())
    config_dir = user_config_dir()
    sources, problems = discover(options.root, config_dir)
    warnings += problems
    trust = TrustStore(config_dir)
    if trust.problem:
        warnings.append(f"no project hook is trusted: {trust.problem}")
    untrusted: list[HookSource] = []
    for source in sources:
        if not admit(hooks, source, trust, options.trust_hooks, warnings.append):
            untrusted.append(source)
    return hooks, untrusted


def open_files(root: Path, state: SessionState, specs: tuple[str, ...]) -> None:
    """`--open PATH[:SPEC]`: each a window in the workspace from the first step; a file or
    window that cannot be opened is a usage error naming it (exit 2)."""
    for raw in specs:
        try:
            path, spec = parse_cli_spec(raw)
            with open_handle(root, path) as handle:
                open_window(handle, spec, state, "user")
        except (WindowError, PathError, FileProblem) as err:
            raise UsageError(f"--open {raw}: {err}") from None
        except OSError as err:
            raise UsageError(f"--open {raw}: {err.strerror or err}") from None


def _task_state(
    root: Path, state: SessionState, records: tuple[StateRecord, ...]
) -> tuple[SchemaError | None, list[str]]:
    """The session's task state: the project's schema (or the built-in one), its zero value,
    then the session's changes replayed. A change that no longer applies (the schema changed
    since) falls back to the last value that was valid, with a warning."""
    warnings: list[str] = []
    try:
        schema = load_schema(root)
    except SchemaUnreadable as err:
        schema = builtin_schema()
        warnings.append(f"{err}; the built-in task state is used instead")
    except SchemaError as err:
        state.task_problem = f"{err}"
        return err, [f"{err}; this session has no task state until it is fixed"]
    except Exception as exc:  # a schema no check foresaw must not stop zizou from starting
        state.task_problem = f"{SCHEMA_FILE} could not be used ({type(exc).__name__}: {exc})"
        return SchemaError(SCHEMA_FILE, str(exc)), [f"{state.task_problem}; no task state"]
    task = TaskState(schema)
    warnings += replay_task_state(task, records)
    state.task = task
    return None, warnings


def _open_session_file(
    root: Path,
    model_id: str,
    choice: SessionChoice,
    persist: bool,
    redact: Callable[[str], str],
) -> tuple[str, SessionState, SessionWriter | None, list[str], LoadedSession | None]:
    """The session's id, its state (resumed, or new), and the writer that keeps it."""
    store = SessionStore(root)
    session_id = None
    if choice.resume:
        session_id = store.resolve(choice.resume)
    elif choice.continue_last:
        session_id = store.active_id()
        if session_id is None:
            raise UsageError("there is no session to continue in this project; drop -c")
    if session_id is None:
        session_id = new_session_id()
        writer, problems = _writer(partial(store.create, session_id, model_id, redact), persist)
        return session_id, _state(writer, [], ()), writer, problems, None
    loaded = store.load(session_id)
    writer, problems = _writer(partial(store.reopen, session_id, redact), persist)
    state = _state(writer, loaded.messages, loaded.windows)
    return session_id, state, writer, loaded.warnings + problems, loaded


def _writer(
    open_writer: Callable[[], SessionWriter], persist: bool
) -> tuple[SessionWriter | None, list[str]]:
    """The session file's writer; none, with a warning, when `.zizou/` is unsafe to write."""
    if not persist:
        return None, []
    try:
        return open_writer(), []
    except PathError as exc:
        return None, [f"{exc}; this session is not saved"]


def _state(
    writer: SessionWriter | None, messages: list[Message], windows: tuple[Window, ...]
) -> SessionState:
    """The session's state as it was left, kept by `writer` from now on."""
    state = SessionState(Conversation(messages, writer.append_message if writer else None))
    state.restore(windows)
    if writer is not None:
        state.subscribe(writer.record_state)
    return state


def _first_job(state: SessionState) -> int:
    """The number of the session's first job: past the ids a resumed conversation names."""
    messages = state.conversation.messages
    return next_job_number(str(m.get("content") or "") for m in messages if m.get("role") == "tool")


__all__ = [
    "Session",
    "SessionChoice",
    "SessionRedaction",
    "build_session",
    "mcp_setup",
    "new_session_id",
]
