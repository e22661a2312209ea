"""What the app knows about its agent session, kept apart from any widget.

The runtime (agent, tools, prompt, session file, debug log) comes from
`zizou.runtime.build_runtime`, as in headless mode. This adds what only a long-lived front end
needs: running totals, switching the model, starting a new conversation, and why no model is
usable (the key wizard's seam).
"""

from __future__ import annotations

import shlex
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from zizou.core.events import TurnFinished, Usage
from zizou.core.permissions import Rules
from zizou.core.protocols import Model, ModelEvent, ModelRequest
from zizou.errors import ProviderError

if TYPE_CHECKING:
    from zizou.runtime import Runtime, SessionChoice


class ModelFactory(Protocol):
    """Opens a model by id; a key or an address given here wins over the start-up options.
    Raises a UsageError (naming the fix) when no key is found."""

    def __call__(
        self, model_id: str, *, api_key: str | None = None, api_base: str | None = None
    ) -> Model: ...


SetupMode = Literal["setup", "reset"] | None  # --setup / --reset: the key wizard at start


class RuntimeFactory(Protocol):
    """Builds a runtime: a new session, or the one `session` names (-c / -r)."""

    def __call__(
        self, model: Model, rules: Rules, session: SessionChoice | None = None
    ) -> Runtime: ...


class UnavailableModel:
    """Stands in when no model could be opened (no key): every request fails with the fix."""

    def __init__(self, model_id: str, problem: str) -> None:
        self.id = model_id
        self.problem = problem

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        nothing: list[ModelEvent] = []
        for item in nothing:  # an async generator that fails at once
            yield item
        raise ProviderError(self.problem)


@dataclass
class UiSession:
    runtime: Runtime
    root: Path
    model_factory: ModelFactory
    runtime_factory: RuntimeFactory
    model_problem: str | None = None  # why the model is unusable; the key wizard's seam
    model_problem_kind: str | None = None  # "missing_key" opens the wizard; an unknown id not
    totals: Usage = field(default_factory=Usage)
    last_turn: Usage | None = None
    last_request_tokens: int = 0  # the prompt size of the latest step: the context in use
    turns: int = 0  # turns started, as the session file counts them

    @property
    def model_id(self) -> str:
        return self.runtime.agent.model.id

    def record_step(self, usage: Usage) -> None:
        self.totals += usage
        self.last_request_tokens = usage.input_tokens or self.last_request_tokens

    def record_turn_started(self) -> None:
        self.turns += 1

    def record_turn(self, usage: Usage) -> None:
        self.last_turn = usage

    def record_interrupted(self, steps: int, usage: Usage, message: str) -> None:
        """The turn was cancelled, so the loop could not say it ended: tell its recorders (the
        session file, the debug log) what it would have, so a resume sees the same turn."""
        self.last_turn = usage
        ended = TurnFinished("cancelled", "", steps, usage, message)
        for recorder in self.runtime.agent.recorders:
            recorder.emit(ended)

    def resume_hint(self, cwd: Path) -> str | None:
        """How to come back to this conversation, said on quit; None when nothing was saved."""
        from zizou.sessions import find_project

        runtime = self.runtime
        if runtime.writer is None or not runtime.agent.conversation.messages:
            return None
        here = "" if find_project(cwd) == self.root else f"-C {shlex.quote(str(self.root))} "
        return (
            f"Session {runtime.session_id} is saved. Continue it with: zizou {here}-c"
            f"  (or zizou {here}-r {runtime.session_id})"
        )

    def restore(self, totals: Usage, turns: int, last_turn: Usage | None) -> None:
        """The running totals of a resumed session, from its file."""
        self.totals, self.turns, self.last_turn = totals, turns, last_turn

    def switch_model(
        self, model_id: str, *, api_key: str | None = None, api_base: str | None = None
    ) -> None:
        """Use `model_id` from the next request on; a UsageError (no key) leaves all as it was."""
        self.runtime.agent.model = self.model_factory(model_id, api_key=api_key, api_base=api_base)
        self.model_problem = self.model_problem_kind = None

    def new_conversation(self) -> None:
        """A new session with the same model, rules and pinned files; the old one is closed."""
        self._replace(None)

    def resume(self, session_id: str) -> None:
        """Continue a saved session of this project (its history comes back) with the current
        model, rules and pinned files. A UsageError (no such session) leaves all as it was."""
        from zizou.runtime import SessionChoice

        self._replace(SessionChoice(resume=session_id))

    def _replace(self, choice: SessionChoice | None) -> None:
        old = self.runtime
        new = self.runtime_factory(old.agent.model, old.agent.runner.rules, choice)
        new.ctx.workspace.pins = list(old.ctx.workspace.pins)
        self.runtime = new
        old.close()
        self.totals = Usage()
        self.last_turn = None
        self.last_request_tokens = 0
        self.turns = 0


__all__ = ["ModelFactory", "RuntimeFactory", "SetupMode", "UiSession", "UnavailableModel"]
