"""One row per tool call: `■ name · short args · duration ✓/✗`, which expands (Enter, a click, or
Ctrl+O for every cut output) to the full arguments and output. Under the row, a running call
shows the latest progress line its tool reports, a finished command the last lines it printed,
and an MCP tool the first lines of its result; edits and writes show their diff, and under it
the problems the change brought (new syntax problems, the checkers' new diagnostics:
`zizou.checks`). A command whose output the model saw cut expands to its whole output, every
line, in a scrollable log inside the row (read from the output zizou kept; `full_output` is how
the row gets it).

The row's time counts from when the call could run: a call waiting for approval says so, and the
clock starts again once it is approved. A finished call shows what the conversation recorded
for it (`zizou.ui.outcome`), so a resumed session shows it the same way.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Log, Static

from zizou.agent.permissions import MCP_PREFIX
from zizou.checks.report import split_report
from zizou.plural import counted
from zizou.ui.outcome import Outcome, Preview, command_preview, result_preview
from zizou.ui.text import clean, one_line, pretty_arguments
from zizou.ui.widgets.diff_view import DiffView

if TYPE_CHECKING:
    from zizou.tools.jobs import Job

OUTPUT_PREVIEW_CHARS = 20_000
COMMAND_TOOLS = frozenset({"run_bash", "$"})  # rows that show the tail of their output
EXPAND_HINT = "click or ctrl+o to expand"


class ToolRow(Widget, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle_row", "Expand", show=False)
    ]

    MARK: ClassVar[str] = "■"  # the header's first character
    expanded: reactive[bool] = reactive(False)

    def __init__(
        self,
        call_id: str,
        name: str,
        arguments: str,
        *,
        summary: str | None = None,
        show_arguments: bool = True,
    ) -> None:
        super().__init__(classes="-running")
        self.show_arguments = show_arguments
        self.call_id = call_id
        self.tool = name
        self.arguments = arguments
        self.summary = one_line(summary if summary is not None else arguments, 60)
        self.started = time.monotonic()
        self.ok: bool | None = None
        self.output = ""
        self.note: str | None = None  # "denied", "interrupted", ...
        self.duration_s: float | None = None
        self.waiting = False
        self.preview: Preview | None = None
        self._timer: Timer | None = None
        # The whole output, when the model saw only part of it and zizou still keeps it.
        self.full_output: Callable[[], str | None] | None = None
        self._full: Log | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="tool-header")
        yield Static(classes="tool-preview")
        yield Static(classes="tool-body")

    def on_mount(self) -> None:
        if self.ok is None:
            self._timer = self.set_interval(1.0, self._refresh_header)

    @property
    def has_more(self) -> bool:
        """Output lines are hidden above or below the preview."""
        return self.preview is not None and (self.preview.hidden > 0 or self.preview.later > 0)

    def _header(self) -> Text:
        text = Text()
        mark_style = {None: "yellow", True: "green", False: "red"}[self.ok]
        text.append(f"{self.MARK} ", style=mark_style)
        text.append(self.tool, style="bold")
        if self.summary:
            text.append(" · ")
            text.append(self.summary)
        if self.ok is not None:
            text.append(" · ")
            if self.duration_s is not None:
                text.append(f"{self.duration_s:.1f}s ")
            text.append("✓" if self.ok else "✗", style=mark_style)
            if self.note:
                text.append(f" {self.note}", style=mark_style)
            if self.preview is not None and self.preview.status:
                text.append(f" · {self.preview.status}", style="dim")
        elif self.waiting:
            text.append(" · waiting for approval", style="italic")
        else:
            text.append(f" · {time.monotonic() - self.started:.0f}s …", style="dim")
        return text

    def _refresh_header(self) -> None:
        if self.is_mounted:
            self.query_one(".tool-header", Static).update(self._header())

    def awaiting_approval(self, waiting: bool = True) -> None:
        self.waiting = waiting
        self._refresh_header()

    def approved(self) -> None:
        """The call may run now: its clock starts here, not when it was asked about."""
        self.waiting = False
        self.started = time.monotonic()
        self._refresh_header()

    def show_progress(self, text: str) -> None:
        """A running call's latest word on how far it is, in the line under the row."""
        lines = [line for line in clean(text).splitlines() if line.strip()]
        if self.ok is not None or not lines or not self.is_mounted:
            return
        self.query_one(".tool-preview", Static).update(Text(lines[-1]))
        self.set_class(True, "-preview")

    @property
    def elapsed_s(self) -> float | None:
        """How long the call has run so far; None while it waits for approval."""
        return None if self.waiting else time.monotonic() - self.started

    async def finish(
        self, ok: bool, output: str, duration_s: float | None, diff: str | None = None
    ) -> None:
        await self.show_outcome(Outcome(ok, output), duration_s, diff)

    async def show_outcome(
        self, outcome: Outcome, duration_s: float | None, diff: str | None = None
    ) -> None:
        """Show how the call ended; `duration_s` None when it is not known (a resumed session)."""
        self.ok, self.output, self.note = outcome.ok, clean(outcome.output), outcome.note
        self.duration_s = duration_s
        self.waiting = False
        if self._timer is not None:
            self._timer.stop()
        if self.tool in COMMAND_TOOLS and outcome.ran:
            self.preview = command_preview(self.output)
        elif self.tool.startswith(MCP_PREFIX) and outcome.ran:
            self.preview = result_preview(self.output)
        self.set_class(False, "-running")
        self.set_class(not outcome.ok, "-failed")
        self.set_class(False, "-preview")  # a progress line goes; a command's tail may follow
        self._refresh_header()
        self._show_preview()
        if diff:
            await self.mount(DiffView(diff))
        _, found = split_report(self.output) if outcome.ok else ("", "")
        if found:  # what the change broke, under its diff: shown whole, never folded
            await self.mount(Static(Text(found), classes="tool-checks"))
        if self.expanded:
            self._show_body()

    def follow_job(self, job: Job) -> None:
        """The call left `job` running in the background: once it ends, the row says how (a
        worker of the row's, so it stops with the row)."""
        self.run_worker(self._job_ended(job), group="job", exit_on_error=False)

    async def _job_ended(self, job: Job) -> None:
        await job.wait()
        if self.preview is not None:
            self.preview = replace(self.preview, status=f"job {job.id} ended · {job.status()}")
            self._refresh_header()

    def _show_preview(self) -> None:
        if not self.is_mounted or self.preview is None:
            return
        text = Text()  # one row a line: the CSS cuts long ones
        if self.preview.hidden:
            more = f"⋮ {counted(self.preview.hidden, 'earlier line')} · {EXPAND_HINT}\n"
            text.append(more, style="italic")
        text.append("\n".join(self.preview.lines))
        if self.preview.later:
            later = counted(self.preview.later, "more line")
            text.append(f"\n⋮ {later} · {EXPAND_HINT}", style="italic")
        static = self.query_one(".tool-preview", Static)
        static.update(text)
        self.set_class(True, "-preview")

    def action_toggle_row(self) -> None:
        self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        self.expanded = not self.expanded

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        if expanded:
            self._show_body()
        for diff in self.query(DiffView):
            diff.show_all(expanded)

    def _show_body(self) -> None:
        body = Text()
        if self.show_arguments:
            body.append("arguments\n", style="bold")
            body.append(clean(pretty_arguments(self.arguments)) + "\n")
        if self.ok is not None and self.full_output is not None:
            body.append("output", style="bold")
            body.append(" (every line, as the command printed it; scroll inside)", style="dim")
            self.call_later(self._show_full)
        elif self.ok is not None:
            body.append("output\n", style="bold")
            shown = self.output[:OUTPUT_PREVIEW_CHARS]
            body.append(shown or "(no output)")
            if len(self.output) > len(shown):
                body.append(f"\n… {len(self.output) - len(shown):,} more characters", style="dim")
        self.query_one(".tool-body", Static).update(body)

    async def _show_full(self) -> None:
        """The whole output in a log under the body (read once, in a thread: it may be long)."""
        if self._full is not None or self.full_output is None:
            return
        self._full = Log(auto_scroll=False, classes="tool-full")
        await self.mount(self._full)
        text = await asyncio.to_thread(self.full_output)
        if text is None:
            text = f"{self.output}\n[the whole output is no longer kept]"
        self._full.write_lines(text.split("\n"))


__all__ = ["COMMAND_TOOLS", "ToolRow"]
