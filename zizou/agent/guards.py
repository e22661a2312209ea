"""The runaway guards of a turn: what stops a loop that would otherwise burn tokens for nothing.

Each is a setting (`[guards]` in config.toml) with a safe default, and each stops the turn with
a message that says what happened and which setting raises the limit:

- the same tool call, with the same arguments, `max_repeated_calls` times in a row (3);
- calls to tools that do not exist, `unknown_tool_limit` times in a row (3; not a setting);
- the conversation compacted automatically more than `max_compactions_per_turn` times in one
  turn (2): the summary before a turn and each shortening after a context overflow count;
- more than `max_model_calls_per_turn` model calls in one turn (100), the main agent's and
  every nested deck's together (counted by `core/spending.py`, which sees them all).

A guard raises `StopTurn`; the loop ends the turn with its `reason` and message, its history
kept valid.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from zizou.contracts.events import FinishReason
from zizou.contracts.protocols import ToolCall
from zizou.errors import ZizouError

SETTINGS_HINT = "[guards] in config.toml"


class GuardSettings(BaseModel):
    """`[guards]` in config.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_repeated_calls: int = Field(default=3, ge=2, le=100)
    max_compactions_per_turn: int = Field(default=2, ge=0, le=20)
    max_model_calls_per_turn: int = Field(default=100, ge=1, le=10_000)


class StopTurn(ZizouError):
    """Ends the turn where it stands: `reason` is the turn's finish reason, the message says
    why and what to change."""

    def __init__(self, reason: FinishReason, message: str) -> None:
        super().__init__(message)
        self.reason: FinishReason = reason


class RepeatGuard:
    """The same call (tool and arguments) `limit` times in a row stops the turn."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.last: tuple[str, str] | None = None
        self.streak = 0

    def check(self, name: str, canonical_arguments: str) -> None:
        key = (name, canonical_arguments)
        self.streak = self.streak + 1 if key == self.last else 1
        self.last = key
        if self.streak >= self.limit:
            raise StopTurn(
                "loop_guard",
                f"the model called {name} with the same arguments {self.streak} times in a row, "
                "so the turn was stopped; rephrase the request or give more detail (the limit "
                f"is max_repeated_calls in {SETTINGS_HINT}).",
            )


class UnknownToolGuard:
    """Calls to tools that do not exist, `limit` times in a row, stop the turn."""

    def __init__(self, limit: int, tool_names: Callable[[], list[str]]) -> None:
        self.limit = limit
        self.tool_names = tool_names  # the tools there are, for the message
        self.names: list[str] = []

    def check(self, call: ToolCall, known: bool) -> None:
        if known:
            self.names.clear()
            return
        self.names.append(call.name)
        if len(self.names) >= self.limit:
            names = ", ".join(repr(name) for name in dict.fromkeys(self.names))
            raise StopTurn(
                "loop_guard",
                f"the model called tools that do not exist {len(self.names)} times in a row "
                f"({names}), so the turn was stopped; the tools are: "
                f"{', '.join(self.tool_names())}. Try another model, or rephrase the request.",
            )


def compactions_exceeded(done: int, limit: int) -> StopTurn:
    """The stop when the history would have to be compacted once more than `limit` allows."""
    return StopTurn(
        "loop_guard",
        f"the conversation no longer fits the context window and was already compacted {done} "
        f"time{'s' if done != 1 else ''} in this turn, the limit (max_compactions_per_turn in "
        f"{SETTINGS_HINT}), so the turn was stopped; start a new session (/clear), close "
        "workspace windows, or ask for less at once.",
    )


__all__ = [
    "GuardSettings",
    "RepeatGuard",
    "StopTurn",
    "UnknownToolGuard",
    "compactions_exceeded",
]
