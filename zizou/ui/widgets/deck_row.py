"""The row of a deck's call: `◆ greet · deck · "Ada" · 2.3s ✓`, holding the calls of the deck's
run as they happen, indented under it: one sub-row per tool call of the child, and a
grandchild's run under the child's call that started it.

Collapsed, the row shows the run's latest line (`zizou.decks.display`); expanded (Enter, a
click, Ctrl+O), the whole list. The list keeps at most SUB_ROWS calls: older ones are counted
("⋯ 12 earlier calls"). A suspense message shows at once; a run that says nothing for QUIET_S
seconds shows "still working: …" until it does. `t` opens the run's transcript.

The events of a run name its chain of decks and its actionCallId, not the call that started it:
a run first heard of is put under the oldest running deck call of its parent's run, by the
deck's name when one fits (a suspense handler's run, which no call started, gets a sub-row of
its own).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from zizou.contracts.events import (
    DeckSuspense,
    Nested,
    PermissionDecided,
    PermissionRequested,
    ToolCallFinished,
    ToolCallStarted,
)
from zizou.decks.display import INTO, nested_line
from zizou.ui.host import ShowScreen
from zizou.ui.text import one_line
from zizou.ui.widgets.tool_row import ToolRow

if TYPE_CHECKING:
    from zizou.decks.run import RunRecord

SUB_ROWS = 200  # the calls a deck row keeps, over its whole tree
QUIET_S = 10.0  # a run silent this long shows that it is still working
INDENT = "  "
TRANSCRIPT_HINT = "t opens the run's transcript (Tab selects this row)"

Runs = Callable[[], Mapping[str, "RunRecord"]]


def is_deck_label(label: str) -> bool:
    """Deck tools label their calls `deck · INPUT` (`call_deck`: `deck NAME · INPUT`)."""
    return label == "deck" or label.startswith("deck ")


@dataclass(eq=False)
class SubCall:
    """One tool call of a deck's run; `run` is the run it started, when it called a deck."""

    call_id: str
    name: str
    label: str
    ok: bool | None = None
    duration_s: float | None = None
    waiting: bool = False
    run: Run | None = None

    @property
    def is_deck(self) -> bool:
        return is_deck_label(self.label)


@dataclass(eq=False)
class Run:
    """A deck's run as the row knows it: its calls, and how many older ones were let go."""

    chain: tuple[str, ...]
    action_call_id: str = ""
    calls: list[SubCall] = field(default_factory=list)
    earlier: int = 0
    finished: bool = False
    suspense: str | None = None

    def find(self, call_id: str) -> SubCall | None:
        return next((call for call in reversed(self.calls) if call.call_id == call_id), None)

    def unbound(self, deck: str) -> SubCall | None:
        """The oldest running deck call without a run, by `deck`'s name if one fits."""
        free = [c for c in self.calls if c.is_deck and c.run is None and c.ok is None]
        return next((c for c in free if c.name == deck), free[0] if free else None)


class DeckTree:
    """The calls of a deck's run and of the runs under it, from its `Nested` events."""

    def __init__(self, deck: str) -> None:
        self.root = Run((deck,))
        self.runs: dict[str, Run] = {}  # the runs under the root, by actionCallId
        self.order: deque[tuple[Run, SubCall]] = deque()  # every call kept, oldest first
        self.dropped = 0  # calls let go to keep within SUB_ROWS

    def add(self, nested: Nested) -> None:
        run = self._run(nested.chain, nested.action_call_id)
        match nested.event:
            case ToolCallStarted(call_id=call_id, name=name, label=label):
                self._keep(run, SubCall(call_id, name, one_line(label, 60)))
            case ToolCallFinished(call_id=call_id, ok=ok, duration_s=took):
                if (call := run.find(call_id)) is not None:
                    call.ok, call.duration_s, call.waiting = ok, took, False
                    if call.run is not None:
                        call.run.finished = True
            case PermissionRequested(call_id=call_id):
                if (call := run.find(call_id)) is not None:
                    call.waiting = True
            case PermissionDecided(call_id=call_id):
                if (call := run.find(call_id)) is not None:
                    call.waiting = False
            case DeckSuspense(message=message):
                run.suspense = message
            case _:
                pass

    @property
    def size(self) -> int:
        return len(self.order)

    def waiting(self) -> bool:
        """A call somewhere in the tree waits for the person's approval."""
        return any(call.waiting and call.ok is None for _, call in self.order)

    def activity(self) -> str:
        """What the run is doing, as far as the row knows: the deepest running deck, and the
        call it is running, if any."""
        run = self.root
        while True:
            running = [c for c in run.calls if c.ok is None]
            deeper = next((c.run for c in reversed(running) if c.run is not None), None)
            if deeper is None or deeper.finished:
                break
            run = deeper
        what = INTO.join(run.chain)
        running = [c for c in run.calls if c.ok is None]
        if running:
            call = running[-1]
            what += f"{INTO}{call.name} {call.label}".rstrip()
        return what

    def run_ids(self) -> list[str]:
        """The actionCallIds of the runs shown, the root's first, in the order shown."""
        ids = [self.root.action_call_id] if self.root.action_call_id else []
        return ids + [run.action_call_id for run in self._under(self.root)]

    def lines(self) -> list[Text]:
        lines: list[Text] = []
        self._render(self.root, 0, lines)
        return lines

    def _under(self, run: Run) -> Iterator[Run]:
        for call in run.calls:
            if call.run is not None:
                yield call.run
                yield from self._under(call.run)

    def _render(self, run: Run, depth: int, lines: list[Text]) -> None:
        indent = INDENT * depth
        if run.suspense and not run.finished:
            lines.append(Text(f"{indent}{run.suspense}", style="italic"))
        if run.earlier:
            lines.append(Text(f"{indent}⋯ {run.earlier} earlier calls", style="dim italic"))
        for call in run.calls:
            lines.append(call_line(call, indent))
            if call.run is not None:
                self._render(call.run, depth + 1, lines)

    def _keep(self, run: Run, call: SubCall) -> None:
        run.calls.append(call)
        self.order.append((run, call))
        while len(self.order) > SUB_ROWS:
            old_run, old = self.order.popleft()
            self.dropped += 1
            if old in old_run.calls:
                old_run.calls.remove(old)
                old_run.earlier += 1
        while len(self.runs) > SUB_ROWS:
            self.runs.pop(next(iter(self.runs)))

    def _run(self, chain: tuple[str, ...], action_call_id: str) -> Run:
        """The run `action_call_id` (of the deck at the end of `chain`), put under the call
        that started it when it is new."""
        if action_call_id == self.root.action_call_id or not action_call_id:
            return self.root
        if (run := self.runs.get(action_call_id)) is not None:
            return run
        if len(chain) <= 1 and not self.root.action_call_id:
            self.root.action_call_id = action_call_id
            self.root.chain = chain or self.root.chain
            return self.root
        parent = self._parent(chain[:-1])
        deck = chain[-1] if chain else self.root.chain[-1]
        call = parent.unbound(deck)
        if call is None:  # a handler's run: no call of its parent started it
            call = SubCall("", deck, "deck")
            self._keep(parent, call)
        run = Run(chain, action_call_id)
        call.run = run
        self.runs[action_call_id] = run
        return run

    def _parent(self, chain: tuple[str, ...]) -> Run:
        if len(chain) <= 1:
            return self.root
        same = [run for run in self.runs.values() if run.chain == chain]
        running = [run for run in same if not run.finished]
        return (running or same or [self.root])[-1]


def call_line(call: SubCall, indent: str) -> Text:
    """A sub-row: `■ read_file · notes.txt · 0.1s ✓`, `◆` for a deck's call."""
    style = {None: "yellow", True: "green", False: "red"}[call.ok]
    text = Text(indent)
    text.append("◆ " if call.is_deck else "■ ", style=style)
    text.append(call.name, style="bold")
    if call.label:
        text.append(f" · {call.label}")
    if call.ok is None:
        text.append(" · waiting for approval" if call.waiting else " · …", style="dim")
    else:
        took = f"{call.duration_s:.1f}s " if call.duration_s is not None else ""
        text.append(f" · {took}")
        text.append("✓" if call.ok else "✗", style=style)
    return text


class DeckRow(ToolRow):
    """A tool row for a deck's call, holding the calls of the deck's run (see the module)."""

    MARK: ClassVar[str] = "◆"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("t", "transcript", "Transcript", show=False)]

    def __init__(
        self,
        call_id: str,
        name: str,
        arguments: str,
        *,
        summary: str | None = None,
        runs: Runs | None = None,
    ) -> None:
        super().__init__(call_id, name, arguments, summary=summary)
        self.add_class("-deck")
        self.calls = DeckTree(name)
        self.runs = runs  # the session's kept deck runs, for the transcript
        self.heard = time.monotonic()  # when the run last said something
        self.suspended = False  # a suspense message was shown: no "still working" then

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="tool-header")
        yield Static(classes="tool-preview")
        yield Static(classes="deck-tree")
        yield Static(classes="tool-body")

    def nested(self, event: Nested) -> str | None:
        """Take an event of the run; a suspense message comes back, for the status bar too."""
        self.calls.add(event)
        self.heard = time.monotonic()
        message = None
        if isinstance(event.event, DeckSuspense):
            self.suspended = True
            message = f"{INTO.join(event.event.chain)}: {event.event.message}"
        line = nested_line(event)
        if line is not None:
            self.show_progress(line)
        if self.expanded:
            self._show_tree()
        return message

    @property
    def has_more(self) -> bool:
        return self.calls.size > 0 or super().has_more

    def _header(self) -> Text:
        text = super()._header()
        if self.ok is not None and self.calls.size:
            calls = self.calls.size + self.calls.dropped
            text.append(f" · {calls} call{'s' * (calls != 1)}", style="dim")
        return text

    def _refresh_header(self) -> None:
        super()._refresh_header()
        if self.ok is None and not self.waiting and not self.suspended:
            quiet = time.monotonic() - self.heard
            if quiet > QUIET_S and not self.calls.waiting():
                self.show_progress(f"still working: {self.calls.activity()} ({quiet:.0f} s)")

    def watch_expanded(self, expanded: bool) -> None:
        super().watch_expanded(expanded)
        if expanded:
            self._show_tree()

    def _show_tree(self) -> None:
        if not self.is_mounted:
            return
        text = Text("\n").join(self.calls.lines()) if self.calls.size else Text("no calls yet")
        text.append(f"\n{TRANSCRIPT_HINT}", style="dim italic")
        self.query_one(".deck-tree", Static).update(text)

    def action_transcript(self) -> None:
        """The conversations of the row's runs, as they are now."""
        from zizou.ui.screens.deck_transcript import DeckTranscriptScreen

        kept = self.runs() if self.runs is not None else {}
        records = [kept[run_id] for run_id in self.calls.run_ids() if run_id in kept]
        self.post_message(ShowScreen(DeckTranscriptScreen(self.tool, records)))


__all__ = ["DeckRow", "DeckTree", "call_line", "is_deck_label"]
