"""What the app knows about its agent session, kept apart from any widget.

The session itself (agent, tools, prompt, session file, debug log, and the operations on them)
is a `zizou.session.kernel.Session` from `build_session`, as in headless mode. This adds what only a
long-lived front end needs: running totals, switching the model by id, going on in a new or a
resumed conversation, and why no model is usable (the key wizard's seam).
"""

from __future__ import annotations

import shlex
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from zizou.agent.permissions import Rules
from zizou.config.options import RunOptions, SetupMode
from zizou.contracts.events import Usage
from zizou.contracts.protocols import Model, ModelEvent, ModelRequest
from zizou.errors import ProviderError

if TYPE_CHECKING:
    from zizou.contracts.state import Subscriber
    from zizou.session.assembly import SessionChoice
    from zizou.session.kernel import Session


class ModelFactory(Protocol):
    """Opens a model by id; a key or an address given here wins over the start-up options.
    Raises a UsageError (naming the fix) when no key is found."""

    def __call__(
        self, model_id: str, *, api_key: str | None = None, api_base: str | None = None
    ) -> Model: ...


class SessionFactory(Protocol):
    """Builds the kernel of a new session, or of the saved one `session` names (-c / -r)."""

    def __call__(
        self, model: Model, rules: Rules, session: SessionChoice | None = None
    ) -> Session: ...


class UnavailableModel(Model):
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
    kernel: Session
    root: Path
    model_factory: ModelFactory
    session_factory: SessionFactory
    model_problem: str | None = None  # why the model is unusable; the key wizard's seam
    model_problem_kind: str | None = None  # "missing_key" opens the wizard; an unknown id not
    totals: Usage = field(default_factory=Usage)
    last_turn: Usage | None = None
    last_request_tokens: int = 0  # the prompt size of the latest step: the context in use
    turns: int = 0  # turns started, as the session file counts them
    # Told every change of the workspace, in this kernel and in each one adopted later.
    watchers: list[Subscriber] = field(default_factory=list)
    options: RunOptions | None = None  # the settings it started with (`/config`)

    @property
    def model_id(self) -> str:
        return self.kernel.model.id

    @property
    def context_window(self) -> int | None:
        """The model's context window in tokens: its own word, else litellm's model map (read
        once, without importing litellm); None when neither knows the model."""
        from zizou.providers.catalog import model_info

        model = self.kernel.model
        window = getattr(model, "context_window", None)
        if window is None and (info := model_info(model.id)) is not None:
            window = info.context_window
        return window if isinstance(window, int) and window > 0 else None

    def watch_workspace(self, subscriber: Subscriber) -> None:
        """Tell `subscriber` each change of the workspace (from whichever thread makes it)."""
        self.watchers.append(subscriber)
        self.kernel.watch_state(subscriber)

    def record_step(self, usage: Usage) -> None:
        self.totals += usage
        self.last_request_tokens = usage.input_tokens or self.last_request_tokens

    def record_turn_started(self) -> None:
        self.turns += 1

    def record_turn(self, usage: Usage) -> None:
        self.last_turn = usage

    def resume_hint(self, cwd: Path) -> str | None:
        """How to come back to this conversation, said on quit; None when nothing was saved."""
        from zizou.sessions import find_project

        kernel = self.kernel
        if kernel.writer is None or not kernel.conversation.messages:
            return None
        here = "" if find_project(cwd) == self.root else f"-C {shlex.quote(str(self.root))} "
        return (
            f"Session {kernel.session_id} is saved. Continue it with: zizou {here}-c"
            f"  (or zizou {here}-r {kernel.session_id})"
        )

    def restore(self, totals: Usage, turns: int, last_turn: Usage | None) -> None:
        """The running totals of a resumed session, from its file."""
        self.totals, self.turns, self.last_turn = totals, turns, last_turn

    def switch_model(
        self, model_id: str, *, api_key: str | None = None, api_base: str | None = None
    ) -> None:
        """Use `model_id` from the next request on; a UsageError (no key) leaves all as it was."""
        model = self.model_factory(model_id, api_key=api_key, api_base=api_base)
        self.kernel.switch_model(model)
        self.model_problem = self.model_problem_kind = None

    def open_successor(self, resume: str | None = None) -> Session:
        """A session for a new conversation, or for the saved session `resume` (its history
        loaded), with the current model and rules. It reads and writes files, so the app calls
        it in a thread; `adopt` then puts it in place. A UsageError (no such session) leaves
        all as it was."""
        from zizou.session.assembly import SessionChoice

        old = self.kernel
        choice = SessionChoice(resume=resume) if resume is not None else None
        return self.session_factory(old.model, old.rules, choice)

    def adopt(self, kernel: Session) -> None:
        """Go on in `kernel` (from `open_successor`), with the same open windows unless it has
        its own (a resumed session keeps those) and the same background jobs; the old one is
        closed and the running totals start again, but not the run's spend: its caps hold for the
        whole run of the app."""
        for watcher in self.watchers:
            kernel.watch_state(watcher)
        self.kernel.hand_over(kernel)  # jobs, spend, windows: the old session closes
        self.kernel = kernel
        self.totals = Usage()
        self.last_turn = None
        self.last_request_tokens = 0
        self.turns = 0


__all__ = ["ModelFactory", "SessionFactory", "SetupMode", "UiSession", "UnavailableModel"]
