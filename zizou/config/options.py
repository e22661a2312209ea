"""One run's options, resolved once, for the full-screen app and `zizou -p` alike.

`resolve_options` reads the command line (`Flags`), the environment, the rules the user saved
for the project and `config.toml`, and returns a frozen `RunOptions`; both front ends are built
from it and nothing else, so they cannot disagree about the model, the limits or the rules.
Every setting has its default here, once (the fields of `RunOptions`; the `[retry]` and
`[timeouts]` sections keep theirs in `zizou.providers.settings`), and takes the first source
that sets it:

    flag > environment > project > user config (config.toml) > default

The environment sets only the model (`$ZIZOU_MODEL`), as `ANTHROPIC_MODEL` does for Claude Code
and `AIDER_MODEL` for aider, so a shell or CI job can pick a model without editing a file. The
project adds only command rules: the ones the user saved for it ("always allow"), kept in the
user's config dir keyed by the project's path, never read from a file in the repository.
`RunOptions.origins` says which source set each value (`zizou config` prints it).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from zizou.agent.permissions import PermissionMode, Rules, rules_from_allow
from zizou.checks.checkers import CheckSettings
from zizou.config.project_dir import project_dir
from zizou.config.project_rules import ignored_project_file, load_prefixes, load_tool_rules
from zizou.config.settings import (
    BackgroundAfterS,
    CheckpointsMaxAgeDays,
    CheckpointsMaxMb,
    CompactAtPercent,
    GuardSettings,
    HistoryWindow,
    MaxBudgetUsd,
    MaxSteps,
    MaxTokens,
    McpSettings,
    Mode,
    NotifySettings,
    PlanReminderSteps,
    Protocol,
    Settings,
    load_settings,
)
from zizou.env import scrubbed_env
from zizou.errors import UsageError
from zizou.providers.settings import RetrySettings, TimeoutSettings
from zizou.sandbox import SandboxMode, SandboxState, SandboxStatus, detect
from zizou.tools import BUILTIN_MODULES

Origin = Literal["flag", "env", "project", "user config", "default"]
OutputFormat = Literal["text", "json", "stream-json"]
SetupMode = Literal["setup", "reset"] | None  # --setup / --reset: the app's key wizard at start
MODEL_VARIABLE = "ZIZOU_MODEL"
# The settings that more than one source can set, by the precedence above.
LAYERED = (
    "model",
    "max_steps",
    "debug_log",
    "sandbox",
    "sandbox_network",
    "permission_mode",
    "retry",
    "timeouts",
    "history_window",
    "protocol",
    "plan_reminder_steps",
    "checkpoints_max_mb",  # these two: config.toml only, no flag
    "checkpoints_max_age_days",
    "compact_at_percent",  # config.toml only
    "checks",  # config.toml only (a project's .zizou/checks.toml can narrow it)
    "max_budget_usd",
    "max_tokens",
    "guards",  # these two: config.toml only
    "notify",
    "snapshot_commands",  # config.toml only
    "background_after_s",  # config.toml only
    "mcp",  # config.toml only: the [mcp] section
)
Profile = Literal["stateful"] | None  # --profile stateful: history window 1, and the task state


class SessionChoice(BaseModel):
    """Which conversation to run in: a new one, the active one (`-c`), or a given one (`-r`)."""

    model_config = ConfigDict(frozen=True)

    resume: str | None = None
    continue_last: bool = False

    @property
    def resuming(self) -> bool:
        return self.resume is not None or self.continue_last


class Flags(BaseModel):
    """The command line as typed: None, `()` or False is a flag that was not given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cwd: Path | None = None
    model: str | None = None
    api_base: str | None = None
    api_key: SecretStr | None = None
    max_steps: int | None = None
    allow: tuple[str, ...] = ()
    yes: bool = False
    sandbox: SandboxMode | None = None
    sandbox_network: bool | None = None  # --network: True, or not given
    permission_mode: PermissionMode | None = None  # --permission-mode ask|accept-edits|auto
    debug_log: bool | None = None  # --no-debug-log: False, or not given
    resume: str | None = None
    continue_last: bool = False
    output_format: OutputFormat | None = None
    prompt: str | None = None
    setup: SetupMode = None
    open_files: tuple[str, ...] = ()  # --open PATH[:SPEC], repeatable
    history_window: HistoryWindow | None = None  # --history-window N
    protocol: Protocol | None = None  # --protocol auto|tools|json
    profile: Profile = None  # --profile stateful
    state_file: Path | None = None  # --state FILE: the task state loaded, and written back
    mode: Mode | None = None  # --mode build|plan
    trust_hooks: bool = False  # --trust-hooks: trust the project's Python hooks as they are now
    model_force: str | None = None  # `zizou run --model-force ID`: every deck runs on ID
    plan_reminder_steps: PlanReminderSteps | None = None  # not a flag: config.toml only
    compact_at_percent: CompactAtPercent | None = None  # not a flag: config.toml only
    max_budget_usd: MaxBudgetUsd | None = None  # --max-budget-usd N
    max_tokens: MaxTokens | None = None  # --max-tokens N
    mcp: McpSettings | None = None  # not a flag: config.toml only
    mcp_config: tuple[Path, ...] = ()  # --mcp-config FILE, repeatable: more MCP servers


class RunOptions(BaseModel):
    """Everything a run is built from. Constructed directly (tests), it has the defaults and
    no saved rules; `resolve_options` fills it from the user's sources."""

    model_config = ConfigDict(frozen=True)

    root: Path
    model: str = "openai/gpt-4o"
    api_base: str | None = None
    api_key: SecretStr | None = None  # --api-key; the key resolver finds the others
    max_steps: MaxSteps = 15
    rules: Rules = Rules()  # --allow, --yes and the project's saved rules
    sandbox: SandboxMode = "auto"
    sandbox_network: bool = False
    sandbox_status: SandboxStatus | None = None  # what this machine gives (None: detect it)
    permission_mode: PermissionMode = "accept-edits"  # how much asks (core/permissions.py)
    session: SessionChoice = SessionChoice()
    debug_log: bool = True
    output_format: OutputFormat = "text"
    prompt: str | None = None  # the first message (the app) or the one turn (`-p`)
    open_files: tuple[str, ...] = ()  # windows open from the first step: PATH, PATH:10-40...
    history_window: HistoryWindow = "all"  # earlier user turns each request sends, whole
    protocol: Protocol = "auto"  # native tool calls, or the JSON protocol for models without
    profile: Profile = None
    state_file: Path | None = None  # headless: the task state read at start, written at the end
    mode: Mode | None = None  # the mode to start in (None: the resumed session's, else build)
    trust_hooks: bool = False  # trust the project's Python hooks as they are now
    model_force: str | None = None  # every deck's model, whatever its own `model` says
    plan_reminder_steps: PlanReminderSteps = 6  # open plan items reminded every N steps; 0: never
    compact_at_percent: CompactAtPercent = 85  # of the context window: summarise before a turn
    checkpoints_max_mb: CheckpointsMaxMb = 500  # undo's kept bytes, pruned at start-up to this
    checkpoints_max_age_days: CheckpointsMaxAgeDays = 30  # and of those unused this long
    checks: CheckSettings = CheckSettings()  # the syntax check, and the checkers turned on
    max_budget_usd: MaxBudgetUsd | None = None  # dollars one run may spend (None: no cap)
    max_tokens: MaxTokens | None = None  # tokens one run may spend, input and output together
    guards: GuardSettings = GuardSettings()  # the runaway guards
    notify: NotifySettings = NotifySettings()  # the bell and desktop notifications (the app)
    snapshot_commands: bool = True  # keep the project's files before each command, for undo
    background_after_s: BackgroundAfterS = 60  # a command still running is moved to the background
    mcp: McpSettings = McpSettings()  # MCP time-outs and the stdio servers' network
    mcp_config: tuple[Path, ...] = ()  # files of MCP servers named on the command line
    setup: SetupMode = None
    retry: RetrySettings = RetrySettings()
    timeouts: TimeoutSettings = TimeoutSettings()
    warnings: tuple[str, ...] = ()  # said once when the run starts
    origins: Mapping[str, Origin] = Field(default_factory=dict)

    @property
    def api_key_value(self) -> str | None:
        return self.api_key.get_secret_value() if self.api_key is not None else None


def resolve_options(flags: Flags, environ: Mapping[str, str] | None = None) -> RunOptions:
    """The options of this run, by the precedence in the module docstring. A UsageError names
    the fix: a bad `config.toml`, `-C` that is no directory, a bad `--allow`, `--sandbox
    required` where there is no sandbox."""
    environ = os.environ if environ is None else environ
    settings = load_settings()
    values, origins = _layered(flags, settings, environ)
    given = {
        name: value
        for name in (
            "api_base",
            "api_key",
            "output_format",
            "prompt",
            "setup",
            "open_files",
            "profile",
            "state_file",
            "mode",
            "trust_hooks",
            "model_force",
            "mcp_config",
        )
        if (value := getattr(flags, name)) not in (None, (), False)
    }
    session = SessionChoice(resume=flags.resume, continue_last=flags.continue_last)
    origins.update(dict.fromkeys(given, "flag"))
    root = project_root(flags.cwd, session)
    origins["root"] = "flag" if flags.cwd is not None else "default"
    origins["session"] = "flag" if session.resuming else "default"
    if flags.profile == "stateful" and flags.history_window is None:
        values["history_window"], origins["history_window"] = 1, "flag"  # the profile's window
    options = RunOptions(root=root, session=session, **values, **given)
    status = sandbox_status(options.sandbox, options.sandbox_network)
    rules = _flag_rules(flags, status.state)
    merged, warnings = with_saved_rules(root, rules)
    origins["allow"] = "flag" if flags.allow or flags.yes else "default"
    if merged.bash_prefixes != rules.bash_prefixes or merged.saved_tools:
        origins["saved rules"] = "project"
    update = {"sandbox_status": status, "rules": merged, "warnings": tuple(warnings)}
    return options.model_copy(update={**update, "origins": origins})


def _layered(
    flags: Flags, settings: Settings, environ: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Origin]]:
    """The layered settings the sources set, each from the first source that sets it, and
    where every layered setting came from ("default" for those none set)."""
    sources: tuple[tuple[Origin, dict[str, Any]], ...] = (
        ("flag", {n: v for n in LAYERED if (v := getattr(flags, n, None)) is not None}),
        ("env", {"model": environ[MODEL_VARIABLE]} if environ.get(MODEL_VARIABLE) else {}),
        ("user config", {n: getattr(settings, n) for n in settings.model_fields_set}),
    )
    values: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    for name in LAYERED:
        origins[name] = "default"
        for origin, source in sources:
            if name in source:
                values[name], origins[name] = source[name], origin
                break
    return values, origins


def project_root(cwd: Path | None, session: SessionChoice) -> Path:
    """`-C DIR` or the current directory; when resuming (`-c`, `-r`) from a subdirectory, the
    project whose sessions these are, as git finds its repository."""
    root = project_dir(cwd)
    if session.resuming:
        from zizou.sessions import find_project  # its store is not needed to start a new one

        root = find_project(root)
    return root


def sandbox_status(mode: SandboxMode, network: bool) -> SandboxStatus:
    """The sandbox the model's commands run in here; a UsageError when `required` cannot be."""
    status = detect(mode, network=network, env=scrubbed_env(os.environ))
    if mode == "required" and status.state != "on":
        raise UsageError(
            f"sandbox is required, but commands cannot be sandboxed here: {status.problem}; "
            "install bubblewrap, or use --sandbox auto"
        )
    return status


def _flag_rules(flags: Flags, sandbox: SandboxState) -> Rules:
    try:
        return rules_from_allow(flags.allow, BUILTIN_MODULES, yes=flags.yes, sandbox=sandbox)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def with_saved_rules(root: Path, rules: Rules) -> tuple[Rules, list[str]]:
    """`rules` plus the command rules the user saved for this project (kept in the user's config
    dir, never in the project), and a warning when the project ships a rules file of its own."""
    saved = tuple(p for p in load_prefixes(root) if p not in rules.bash_prefixes)
    tools = tuple(t for t in load_tool_rules(root) if t not in rules.saved_tools)
    merged = dataclasses.replace(
        rules,
        bash_prefixes=(*rules.bash_prefixes, *saved),
        saved_tools=(*rules.saved_tools, *tools),
    )
    ignored = ignored_project_file(root)
    return merged, [ignored] if ignored else []


__all__ = [
    "LAYERED",
    "MODEL_VARIABLE",
    "Flags",
    "Origin",
    "OutputFormat",
    "RunOptions",
    "SessionChoice",
    "SetupMode",
    "project_root",
    "resolve_options",
    "sandbox_status",
    "with_saved_rules",
]
