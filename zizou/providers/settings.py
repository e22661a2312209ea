"""How patient a model call is: retries and timeouts. `config.toml`'s `[retry]` and
`[timeouts]` sections are these models; they live here because providers use them and the
config layer sits above the providers."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RetrySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int = Field(default=5, ge=1, le=10)
    base_delay_s: float = Field(default=1.0, ge=0)
    max_delay_s: float = Field(default=30.0, ge=0)
    max_retry_after_s: float = Field(default=60.0, ge=0)


class TimeoutSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    connect_s: float = Field(default=15.0, gt=0)
    first_token_s: float = Field(default=120.0, gt=0)
    idle_s: float = Field(default=90.0, gt=0)


__all__ = ["RetrySettings", "TimeoutSettings"]
