"""The decks from the app: `/decks` lists them, and why a deck file was left out; `/run DECK
[INPUT]` runs one directly, not through the model.

A run is shown as a tool call of the model's would be: a deck row (`◆ greet · deck · "Ada"`)
that holds the run's calls (`zizou.ui.widgets.deck_row`), then ✓ or ✗ with the time it took,
and the output (or the error's code and message) as a notice. It runs in a worker of the group
Esc stops (the turn's), with the session held, so what is sent meanwhile queues as during a
turn; its approvals are asked as any are. It waits for no turn: while one runs, it says so.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from zizou.decks.display import nested_line, output_text, signature
from zizou.decks.tools import Outcome as DeckOutcome
from zizou.decks.tools import input_from_text, short_input
from zizou.errors import UsageError
from zizou.ui.host import SessionChanged
from zizou.ui.outcome import Outcome
from zizou.ui.slash_registry import slash
from zizou.ui.widgets.deck_row import DeckRow

if TYPE_CHECKING:
    from zizou.contracts.events import Nested
    from zizou.decks.run import DeckEnv
    from zizou.decks.spec import Deck, DeckSet
    from zizou.ui.host import Host
    from zizou.ui.opening import Opening
    from zizou.ui.turns import TurnController
    from zizou.ui.widgets.chat_view import ChatView
    from zizou.ui.widgets.tool_row import ToolRow

USAGE = "/run DECK [INPUT]: JSON for a deck that takes an object, text for one that takes text."
BUSY = "A turn is running: /run once it ends (Esc stops it)."
UNAVAILABLE = "Decks are not available in this session."
NO_DECKS = "No decks here."
MAKE_ONE = "`zizou decks new NAME` writes one in .zizou/decks/; /decks lists it then."
LISTED_FIX = "/run NAME [INPUT] runs one; the model calls them as tools."
WORKER_GROUP = "turn"  # the group Esc and Ctrl+C stop (`zizou.ui.app_keys.STOPPABLE`)


class DeckCommands:
    def __init__(self, host: Host, opening: Opening, chat: ChatView, turns: TurnController) -> None:
        self.host = host
        self.opening = opening
        self.chat = chat
        self.turns = turns

    @property
    def env(self) -> DeckEnv | None:
        return self.opening.current.kernel.decks

    @slash(
        "decks", help="list the decks (sub-agents), and the deck files left out", section="tools"
    )
    async def decks(self, args: list[str]) -> None:
        """/decks: every deck, then each file left out and why."""
        env = self.env
        if env is None:
            await self.chat.add_notice(UNAVAILABLE, "warning")
            return
        text, fix = decks_listing(env.decks)
        await self.chat.add_notice(text, "warning" if env.decks.problems else "info", fix)

    @slash(
        "run",
        "DECK [INPUT]",
        help="run a deck on an input (JSON or text), not via the model",
        section="tools",
        raw=True,
    )
    async def run(self, text: str) -> None:
        """/run DECK [INPUT]: check the deck and its input (as typed: JSON keeps its spaces),
        then run it in a worker."""
        name, _, rest = text.strip().partition(" ")
        args = [name] if name else []
        env = self.env
        if self.turns.busy:
            await self.chat.add_notice(BUSY, "warning")
            return
        if env is None:
            await self.chat.add_notice(UNAVAILABLE, "warning")
            return
        if not args:
            names = ", ".join(sorted(env.decks.decks)) or "none"
            await self.chat.add_notice(f"Which deck? The decks: {names}.", "warning", USAGE)
            return
        try:
            deck = self.opening.current.kernel.find_deck(args[0], self.opening.root)
            value = input_from_text(deck, rest.strip() or None)
        except UsageError as exc:
            await self.chat.add_notice(sentence(str(exc)), "warning", USAGE)
            return
        self.opening.hold()  # what is sent meanwhile queues, as during a turn
        self.host.run_worker(self._run(env, deck, value), group=WORKER_GROUP, exit_on_error=False)

    async def _run(self, env: DeckEnv, deck: Deck, value: Any) -> None:
        label = f"deck · {short_input(value)}"
        call_id = "run-" + secrets.token_hex(4)
        arguments = json.dumps(value, ensure_ascii=False)
        row = DeckRow(call_id, deck.name, arguments, summary=label, runs=lambda: env.runs)
        await self.chat.add(row)
        self.turns.set_status(f"running the deck {deck.name}…")
        started = time.monotonic()
        try:
            try:
                nest = shown_on(row, self.turns.set_status)
                outcome = await self.opening.current.kernel.run_deck(
                    deck, value, title=f"/run {deck.name}", nest=nest, kept_for_undo=False
                )
            except Exception as exc:  # a bug in the run: said, not lost in a worker
                outcome = DeckOutcome(False, code="runtime", message=str(exc))
            await self._show(deck, row, outcome, time.monotonic() - started)
        except asyncio.CancelledError:
            if self.chat.is_attached:  # else the app is closing: there is no screen to update
                await self._stopped(deck, row, time.monotonic() - started)
            raise
        finally:
            self._count(env)
            if self.chat.is_attached:
                await self.turns.ready()  # what was sent meanwhile goes now
                self.host.post_message(SessionChanged())

    async def _show(self, deck: Deck, row: ToolRow, outcome: DeckOutcome, took: float) -> None:
        if outcome.ok:
            text = output_text(outcome.output)
            await row.show_outcome(Outcome(True, text), took)
            await self.chat.add_notice(f"{deck.name} returned:\n{text}", "success")
        else:
            error = f"{outcome.code}: {outcome.message}"
            await row.show_outcome(Outcome(False, error), took)
            await self.chat.add_notice(f"{deck.name} failed — {error}", "error")

    async def _stopped(self, deck: Deck, row: ToolRow, took: float) -> None:
        await row.show_outcome(Outcome(False, "not run: stopped", "interrupted"), took)
        self.turns.queue.paused = bool(len(self.turns.queue))  # as after a stopped turn
        await self.chat.add_notice(
            f"Stopped the run of {deck.name}.", "warning", "/run runs it again."
        )

    def _count(self, env: DeckEnv) -> None:
        """What the run's model calls cost counts in the session's totals (/cost)."""
        if self.opening.session is not None:
            self.opening.session.totals += env.deck_calls.usage


def shown_on(row: ToolRow, status: Callable[[str], None] | None = None) -> Any:
    """The `nest` of a run: its calls go into a deck row's list (a suspense message to
    `status` too); under any other row, each event worth a line shows as its latest line."""

    def nest(event: Nested) -> None:
        if isinstance(row, DeckRow):
            message = row.nested(event)
            if message is not None and status is not None:
                status(message)
        elif (line := nested_line(event)) is not None:
            row.show_progress(line)

    return nest


def decks_listing(found: DeckSet) -> tuple[str, str]:
    """What `/decks` says, and the hint under it."""
    decks = sorted(found.decks.values(), key=lambda d: d.name)
    lines = [f"Decks ({len(decks)}):"] if decks else [NO_DECKS]
    for deck in decks:
        about = f" · {deck.description}" if deck.description else ""
        lines.append(f"  {deck.name} · {deck.origin} · {signature(deck)}{about}")
    if found.problems:
        lines.append(f"Left out ({len(found.problems)}):")
        lines += [f"  {problem}" for problem in found.problems]
    if found.warnings:
        lines.append(f"Warnings ({len(found.warnings)}):")
        lines += [f"  {warning}" for warning in found.warnings]
    return "\n".join(lines), LISTED_FIX if decks else MAKE_ONE


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "\n")) else ".")


__all__ = ["DeckCommands", "decks_listing", "shown_on"]
