"""What a compute deck's worker and a deck's error handlers need of the session's deck runner
(`zizou.decks.run.DeckEnv`): its project, decks and parent parts, and a way to run one more
deck. A narrow protocol, so that those modules do not import the runner that imports them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from zizou.agent.gates import CallGates
    from zizou.contracts.events import Nested
    from zizou.decks.child import NestedLog
    from zizou.decks.spec import Deck, DeckSet
    from zizou.decks.tools import ActionInfo, Caller, Outcome
    from zizou.tools import ToolContext, ToolSource


class DeckHost(Protocol):
    """The runner a deck runs under."""

    decks: DeckSet

    @property
    def root(self) -> Path: ...

    @property
    def ctx(self) -> ToolContext: ...

    @property
    def gates(self) -> CallGates: ...

    @property
    def debug_log(self) -> NestedLog | None: ...

    @property
    def extra_tools(self) -> ToolSource | None: ...

    async def call(
        self,
        deck: Deck,
        action: ActionInfo,
        value: Any,
        caller: Caller,
        nest: Callable[[Nested], None] | None,
    ) -> Outcome:
        """Run `deck` as the action `action` of `caller` on `value`."""
        ...
