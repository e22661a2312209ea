"""The conversation: a scroll of entries that follows new output unless the user scrolled up.

Textual's anchor keeps the view at the bottom while content grows and lets go as soon as the
user scrolls away, so reading back during a stream is never interrupted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.widget import Widget

from zizou.ui.widgets.messages import (
    AssistantMessage,
    Notice,
    NoticeKind,
    RetryNotice,
    Rows,
    TypingClock,
    UserMessage,
)

if TYPE_CHECKING:  # imported with the first such entry: the first frame has none
    from zizou.ui.widgets.plan_line import PlanLine
    from zizou.ui.widgets.thinking import ThinkingBlock
    from zizou.ui.widgets.tool_row import ToolRow


class ChatView(VerticalScroll, can_focus=True):
    def __init__(self, typing: TypingClock | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.typing = typing or TypingClock()  # streamed answers wait while the user types

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, widget: Widget) -> Widget:
        await self.mount(widget)
        return widget

    def add_user(self, text: str) -> UserMessage:
        """The user's message, shown with the next frame: the turn starts without waiting
        for it."""
        self.anchor()  # sending a message brings the view back to the end
        message = UserMessage(text)
        self.mount(message)
        return message

    def add_assistant(self) -> AssistantMessage:
        """An answer, to be written to at once: it is laid out with the next frame, and an
        answer that is whole by then is composed whole (see AssistantMessage)."""
        message = AssistantMessage(self.typing)
        self.mount(message)
        return message

    async def add_thinking(self) -> ThinkingBlock:
        from zizou.ui.widgets.thinking import ThinkingBlock

        block = ThinkingBlock(self.typing.now)
        await self.mount(block)
        return block

    async def add_tool(
        self, call_id: str, name: str, arguments: str, label: str | None = None
    ) -> ToolRow:
        """A row for a tool call; `label` is how a person recognises it (its path, command)."""
        from zizou.ui.widgets.tool_row import ToolRow

        row = ToolRow(call_id, name, arguments, summary=label)
        await self.mount(row)
        return row

    async def add_plan(self, value: Mapping[str, Any]) -> PlanLine:
        from zizou.ui.widgets.plan_line import PlanLine

        line = PlanLine(value)
        await self.mount(line)
        return line

    def to_end(self, widget: Widget) -> None:
        """Move `widget` after every other entry."""
        last = self.children[-1] if self.children else None
        if last is not None and last is not widget:
            self.move_child(widget, after=last)

    async def add_notice(
        self, message: str, kind: NoticeKind = "info", fix: str | None = None, rows: Rows = ()
    ) -> Notice:
        notice = Notice(message, kind, fix, rows)
        await self.mount(notice)
        return notice

    async def add_retry(self, attempt: int, delay_s: float, reason: str) -> RetryNotice:
        notice = RetryNotice(attempt, delay_s, reason)
        await self.mount(notice)
        return notice

    def toggle_outputs(self) -> None:
        """Ctrl+O: show every command output that is cut and all the reasoning folded to its
        summary line, or fold them all again."""
        from zizou.ui.widgets.thinking import ThinkingBlock
        from zizou.ui.widgets.tool_row import ToolRow

        rows: list[ToolRow | ThinkingBlock] = [row for row in self.query(ToolRow) if row.has_more]
        rows += [block for block in self.query(ThinkingBlock) if block.finished]
        expand = any(not row.expanded for row in rows)
        for row in rows:
            row.expanded = expand

    async def clear(self, keep: Widget | None = None) -> None:
        await self.remove_children([child for child in self.children if child is not keep])
        self.anchor()


__all__ = ["ChatView"]
