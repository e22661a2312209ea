"""The lines of a session file, validated with pydantic when a session is loaded."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT_VERSION = 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class MetaRecord(_Record):
    kind: Literal["meta"] = "meta"
    v: int = FORMAT_VERSION
    id: str
    created: str  # ISO 8601, UTC
    model: str | None = None


class MessageRecord(_Record):
    kind: Literal["message"] = "message"
    message: dict[str, Any]


class TurnRecord(_Record):
    kind: Literal["turn"] = "turn"
    event: Literal["started", "finished"]
    ts: str
    reason: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)


Record = MetaRecord | MessageRecord | TurnRecord
