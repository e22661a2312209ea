"""What zizou leaves behind for a person to audit: `zizou-debug.log`, redacted, and kept out of git.

`open_debug_log` wires a DebugLog to a live Agent: the keys it must redact and the call
parameters it reports are read from the agent's model at each message, so a model switched
mid-session is logged as it is.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zizou.redact import MARKER, Redactor, env_secrets, loaded_secrets
from zizou.trace.debug_log import DebugLog, PromptRecord
from zizou.trace.git_exclude import ensure_excluded
from zizou.trace.sections import HIDDEN_PARAMETERS

if TYPE_CHECKING:
    from zizou.agent.loop import Agent
    from zizou.contracts.protocols import Model


def session_secrets(
    model: Model | None, environ: Mapping[str, str] | None = None
) -> list[str | None]:
    """Exact values to redact: the model's key, every key zizou loaded, secret env values."""
    keys: list[str | None] = list(model.secrets()) if model is not None else []
    keys += loaded_secrets()
    keys += env_secrets(os.environ if environ is None else environ)
    return keys


def redactor_for(model: Model) -> Redactor:
    """A Redactor that asks again for the loaded keys at every `refresh()`."""
    return Redactor(source=lambda: session_secrets(model))


def model_call_parameters(model: Model) -> dict[str, Any]:
    """How the model is called, never its key."""
    params = model.call_parameters()
    return {k: v for k, v in params.items() if k.lower() not in HIDDEN_PARAMETERS}


def open_debug_log(
    root: Path,
    agent_of: Callable[[], Agent],
    prompt: PromptRecord | None = None,
    extra_parameters: Mapping[str, Any] | None = None,
) -> DebugLog:
    """The debug log of an agent, made before it (it is one of the agent's recorders):
    `agent_of` gives the agent once it is made, asked when the log writes."""

    def parameters() -> dict[str, Any]:
        agent = agent_of()
        spending = agent.spending
        caps = dataclasses.asdict(spending.caps) if spending is not None else None
        return {
            **model_call_parameters(agent.model),
            "max_steps": agent.config.max_steps,
            "loop_guard_repeats": agent.config.loop_guard_repeats,
            "max_compactions": agent.config.max_compactions,
            "spending_caps": caps,
            **(extra_parameters or {}),
        }

    def secrets() -> list[str | None]:
        try:
            model = agent_of().model
        except LookupError:  # asked as the log is made, before its agent: the keys loaded
            return session_secrets(None)
        return session_secrets(model)

    redactor = Redactor(source=secrets)
    return DebugLog(root, redactor, prompt=prompt, call_parameters=parameters)


__all__ = [
    "MARKER",
    "DebugLog",
    "Redactor",
    "ensure_excluded",
    "model_call_parameters",
    "open_debug_log",
    "redactor_for",
    "session_secrets",
]
