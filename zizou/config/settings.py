"""User settings from `<user config dir>/config.toml`, validated with pydantic.

A setting the file leaves out is None here: the defaults, and which source wins when the command
line or the environment sets the same thing, live in `zizou.config.options`. A missing file is
fine; a malformed one is a UsageError that names the file and the problem. `ZIZOU_HOME` moves
the config dir (tests point it at a temp dir).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zizou.agent.guards import GuardSettings
from zizou.agent.permissions import PermissionMode
from zizou.checks.checkers import CheckSettings
from zizou.errors import UsageError
from zizou.mcp.settings import McpSettings
from zizou.providers.settings import RetrySettings, TimeoutSettings
from zizou.user_dirs import user_config_dir

MaxSteps = Annotated[int, Field(ge=1, le=500)]  # the step cap per turn, wherever it is set
HistoryWindow = Annotated[int, Field(ge=0, le=10_000)] | Literal["all"]
Protocol = Literal["auto", "tools", "json"]
Mode = Literal["build", "plan"]
PlanReminderSteps = Annotated[int, Field(ge=0, le=500)]
CompactAtPercent = Annotated[int, Field(ge=0, le=99)]
CheckpointsMaxMb = Annotated[int, Field(ge=1, le=1_000_000)]
CheckpointsMaxAgeDays = Annotated[int, Field(ge=1, le=36_500)]
MaxBudgetUsd = Annotated[float, Field(gt=0, le=1_000_000)]  # dollars a run may spend
MaxTokens = Annotated[int, Field(ge=1_000, le=10_000_000_000)]  # tokens a run may spend


class NotifySettings(BaseModel):
    """`[notify]`: how zizou calls you back to the terminal when a turn that ran longer than
    `after_s` finishes, or an approval waits: the bell, and a desktop notification (OSC 9 or
    OSC 777; "auto": where the terminal is known to show one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bell: bool = True
    desktop: Literal["auto", "osc9", "osc777", "off"] = "auto"
    after_s: float = Field(default=30.0, ge=0, le=86_400)


BackgroundAfterS = Annotated[int, Field(ge=0, le=86_400)]


class Settings(BaseModel):
    """`config.toml` as written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = None
    debug_log: bool | None = None
    max_steps: MaxSteps | None = None
    # Commands the model runs: "auto" sandboxes them where the OS can, "required" refuses to
    # run them otherwise, "off" runs them unsandboxed (the user's explicit choice).
    sandbox: Literal["auto", "required", "off"] | None = None
    sandbox_network: bool | None = None  # let sandboxed commands use the network
    # How much asks: "ask" (edits and commands), "accept-edits" (commands), "auto" (only what
    # the sandbox does not hold).
    permission_mode: PermissionMode | None = None
    retry: RetrySettings | None = None
    timeouts: TimeoutSettings | None = None
    # How many earlier user turns each request sends, whole ("all": every one).
    history_window: HistoryWindow | None = None
    # How tools are called: "auto" (native tool calls, or the JSON protocol for a model that
    # has none), "tools" or "json".
    protocol: Protocol | None = None
    # Every how many steps of a turn the plan's open items are reminded to the model (0: never).
    plan_reminder_steps: PlanReminderSteps | None = None
    # Before a turn, the conversation is summarised when the previous request used more than
    # this percentage of the model's context window (0: never, only /compact).
    compact_at_percent: CompactAtPercent | None = None
    # The file bytes undo restores from (.zizou/checkpoints/), pruned at start-up: past this
    # many megabytes, oldest first, and when unused for this many days.
    checkpoints_max_mb: CheckpointsMaxMb | None = None
    checkpoints_max_age_days: CheckpointsMaxAgeDays | None = None
    # What is checked after the model changes a file ([checks]: see zizou/checks/checkers.py).
    checks: CheckSettings | None = None
    # What one run may spend, in dollars (models litellm prices) and in tokens (input and
    # output together); past either, the run stops before the call that would cross it.
    max_budget_usd: MaxBudgetUsd | None = None
    max_tokens: MaxTokens | None = None
    guards: GuardSettings | None = None  # the runaway guards (core/guards.py)
    notify: NotifySettings | None = None
    # Snapshot the project's files before each command the model runs, so undo restores what
    # commands changed too (false: commands are not undone).
    snapshot_commands: bool | None = None
    # A command the model runs that is still running after this many seconds is moved to the
    # background, so the turn goes on (0: never).
    background_after_s: BackgroundAfterS | None = None
    # MCP servers: how long to wait for one to start and for a call, and whether the stdio
    # servers may use the network in the sandbox.
    mcp: McpSettings | None = None


def settings_path() -> Path:
    return user_config_dir() / "config.toml"


def load_settings(path: Path | None = None) -> Settings:
    path = path or settings_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}; fix or remove the file") from exc
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise UsageError(f"{path} has invalid settings ({problems}); fix or remove them") from exc


__all__ = [
    "BackgroundAfterS",
    "CheckpointsMaxAgeDays",
    "CheckpointsMaxMb",
    "CompactAtPercent",
    "GuardSettings",
    "HistoryWindow",
    "MaxBudgetUsd",
    "MaxSteps",
    "MaxTokens",
    "McpSettings",
    "Mode",
    "NotifySettings",
    "PlanReminderSteps",
    "Protocol",
    "RetrySettings",
    "Settings",
    "TimeoutSettings",
    "load_settings",
    "settings_path",
]
