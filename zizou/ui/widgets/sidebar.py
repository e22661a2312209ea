"""The sidebar: session id, model, tokens, cost, context in use, the plan (a checklist the user
can edit), the workspace's windows, and the start of the system prompt. The app hands it a
`SidebarInfo`; it only renders it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from zizou.ui.plan_edits import PlanItem, plan_items
from zizou.ui.text import clean
from zizou.ui.widgets.plan_checklist import KEYS_HINT, PlanChecklist
from zizou.ui.window_text import anchored, lines_of, reason, share

if TYPE_CHECKING:
    from zizou.contracts.workspace import WindowInfo
    from zizou.ui.session import UiSession

PREVIEW_CHARS = 600  # of the system prompt, unwrapped: the sidebar wraps it to its own width
_BLOCK_START = re.compile(r"[-*>#|]|\d+[.)]\s")  # a line that starts a row of its own


@dataclass(frozen=True)
class SidebarInfo:
    session_id: str = ""
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    context_tokens: int = 0
    context_window: int | None = None  # the model's, when known
    prompt_chars: int = 0
    windows: tuple[WindowInfo, ...] = ()
    prompt_preview: str = ""
    plan: tuple[PlanItem, ...] | None = None  # None: no plan to show (no task state, or none)


def tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


def cost(value: float | None) -> str:
    return "n/a (no price reported)" if value is None else f"${value:.4f}"


def sidebar_text(info: SidebarInfo) -> Text:
    """All the sidebar says but the plan."""
    text = head_text(info)
    text.append_text(tail_text(info))
    return text


def head_text(info: SidebarInfo) -> Text:
    """What runs and what it costs: above the plan."""
    text = Text()
    _field(text, "session", info.session_id)
    _field(text, "model", info.model)
    _field(text, "tokens", f"{tokens(info.input_tokens)} in · {tokens(info.output_tokens)} out")
    if info.cache_read_tokens or info.cache_write_tokens:  # of the input; only where it is used
        read, write = tokens(info.cache_read_tokens), tokens(info.cache_write_tokens)
        _field(text, "cache", f"{read} read · {write} written")
    _field(text, "cost", cost(info.cost_usd))
    context = f"{tokens(info.context_tokens)} tokens in the last request"
    if info.context_window and info.context_tokens:
        context += f" ({share(info.context_tokens, info.context_window)} of "
        context += f"{tokens(info.context_window)})"
    if info.prompt_chars:
        context += f"\nsystem prompt ~{tokens(info.prompt_chars // 4)} tokens"
    _field(text, "context", context)
    return text


def tail_text(info: SidebarInfo) -> Text:
    """What the model is shown: below the plan."""
    text = Text()
    _workspace(text, info.windows)
    text.append("system prompt\n", style="bold")
    preview = prompt_preview(clean(info.prompt_preview))
    text.append(preview or "(built at the first step; /prompt)", "dim")
    return text


def prompt_preview(prompt: str, limit: int = PREVIEW_CHARS) -> str:
    """The start of the prompt with its paragraphs and list items unwrapped: the source's line
    breaks, made for a wide file, would leave ragged short rows in a narrow sidebar."""
    rows: list[str] = []
    joinable = False  # whether the last row is prose that a wrapped line continues
    fenced = False
    for line in prompt.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
        if not stripped or fenced or stripped.startswith("```"):
            rows.append(line.rstrip())
            joinable = False
        elif joinable and not _BLOCK_START.match(stripped):
            rows[-1] += " " + stripped
        else:
            rows.append(line.rstrip())
            joinable = not stripped.startswith(("#", "|"))
        if sum(len(row) + 1 for row in rows) > limit:
            break
    preview = "\n".join(rows).strip()
    return preview if len(preview) <= limit else preview[: limit - 1].rstrip() + "…"


def _workspace(text: Text, windows: tuple[WindowInfo, ...]) -> None:
    """`w3 src/app.py 12-30 /def helper/`, one a line: lost and missing ones red with why,
    collapsed ones dim."""
    text.append("workspace\n", style="bold")
    if not windows:
        text.append("none (/add PATH or @file)\n\n")
        return
    for window in windows:
        row = f"{window.id} {window.path} {lines_of(window)}"
        if anchored(window) and window.span is not None:
            row += f" {window.spec}"
        if window.status in ("lost", "missing"):
            text.append(clean(row) + "\n", style="red")
            text.append(f"  {clean(reason(window))}\n", style="red")
        elif window.status in ("collapsed", "cut"):
            style = "dim" if window.status == "collapsed" else "yellow"
            text.append(clean(row) + "\n", style=style)
            text.append(f"  {reason(window)}\n", style=style)
        else:
            text.append(clean(row) + "\n")
    text.append("\n")


def _field(text: Text, name: str, value: str) -> None:
    text.append(f"{name}\n", style="bold")
    text.append(clean(value) + "\n\n")


def sidebar_info(session: UiSession) -> SidebarInfo:
    kernel = session.kernel
    last = kernel.prompt.last
    context = session.last_request_tokens
    task = kernel.state.task
    return SidebarInfo(
        session_id=kernel.session_id,
        model=session.model_id,
        input_tokens=session.totals.input_tokens,
        output_tokens=session.totals.output_tokens,
        cost_usd=session.totals.cost_usd,
        cache_read_tokens=session.totals.cache_read_tokens,
        cache_write_tokens=session.totals.cache_write_tokens,
        context_tokens=context,
        # asked once a request was made: the model's details are loaded by then
        context_window=session.context_window if context else None,
        prompt_chars=len(last.text) if last else 0,
        windows=kernel.state.windows,
        prompt_preview=last.text if last else "",
        plan=plan_items(task.value) if task is not None else None,
    )


MAX_SHARE = 4  # shown by itself only where it takes at most a quarter of the screen's width
MIN_CHAT_WIDTH = 60  # the columns the conversation keeps, sidebar or not


class Sidebar(VerticalScroll, can_focus=False):
    info: reactive[SidebarInfo] = reactive(SidebarInfo, layout=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.wanted: bool | None = None  # Ctrl+B's choice; None: by the width of the screen
        self.checklist = PlanChecklist(id="plan-list")

    def compose(self) -> ComposeResult:
        yield Static(id="sidebar-head")
        yield Static(Text("plan", style="bold"), id="plan-title")
        yield Static(id="plan-hint")
        yield self.checklist
        yield Static(id="sidebar-tail")

    def on_mount(self) -> None:
        self._show(self.info)

    def watch_info(self, info: SidebarInfo) -> None:
        if self.is_mounted:
            self._show(info)

    def _show(self, info: SidebarInfo) -> None:
        head = head_text(info)
        head.rstrip()  # one blank line before the plan, as between the fields
        head.append("\n")
        self.query_one("#sidebar-head", Static).update(head)
        self.query_one("#sidebar-tail", Static).update(tail_text(info))
        shown = info.plan is not None
        self.query_one("#plan-title").display = self.checklist.display = shown
        self.checklist.items = info.plan or ()
        self._hint()

    def _hint(self) -> None:
        """The keys while the plan has the focus; else a word for an empty plan."""
        hint = KEYS_HINT if self.checklist.has_focus else ""
        if not hint and not self.checklist.items:
            hint = "none yet"
        widget = self.query_one("#plan-hint", Static)
        widget.update(Text(hint, style="dim"))
        widget.set_class(not hint or not self.checklist.display, "-empty")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._hint()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._hint()

    @property
    def plan_shown(self) -> bool:
        """The plan can take the focus: the sidebar and its plan are on screen."""
        return bool(self.display and self.checklist.display)

    def fit(self, screen_width: int) -> None:
        """Shown as the user chose, else only where it takes at most a quarter of the width;
        never where it would leave the conversation under `MIN_CHAT_WIDTH` columns (the choice
        holds, and it shows again once the window is wide enough)."""
        width = int(self.styles.width.value) if self.styles.width else 0
        chosen = screen_width >= width * MAX_SHARE if self.wanted is None else self.wanted
        self.display = chosen and screen_width - width >= MIN_CHAT_WIDTH

    def toggle(self, screen_width: int) -> None:
        self.wanted = not self.display
        self.fit(screen_width)


__all__ = ["Sidebar", "SidebarInfo", "head_text", "sidebar_info", "sidebar_text", "tail_text"]
