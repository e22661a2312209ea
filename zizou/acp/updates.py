"""The loop's events as ACP `session/update`s, one handler per event type, as headless and the
app render them: the answer as message chunks, the model's reasoning as thought chunks as it
streams, zizou's notices (a retry, a compaction, the checks' report) as thought chunks too,
each tool call as `tool_call` then `tool_call_update`s, and how the turn's last reply ended,
for the prompt's stop reason."""

from __future__ import annotations

from pathlib import Path
from typing import assert_never

from acp import start_tool_call, update_agent_message_text, update_agent_thought_text
from acp import update_tool_call as tool_update
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    StopReason,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from zizou.acp.tool_calls import (
    arguments_of,
    diff_contents,
    locations,
    text_content,
    tool_kind,
    tool_title,
)
from zizou.contracts.events import (
    AgentError,
    AnyEvent,
    BudgetWarning,
    ChecksReported,
    Compacted,
    DeckSuspense,
    HookWarning,
    ModelReplied,
    Nested,
    PermissionDecided,
    PermissionRequested,
    ReasoningDelta,
    Retrying,
    StepFinished,
    StepPlanned,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
    TurnFinished,
    TurnStarted,
)

Update = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | CurrentModeUpdate
    | AvailableCommandsUpdate
    | ConfigOptionUpdate
)
# How a turn ended, as the prompt's stop reason; "done" and "error" are decided apart.
STOP_REASONS: dict[str, StopReason] = {
    "cancelled": "cancelled",
    "max_steps": "max_turn_requests",
    "loop_guard": "max_turn_requests",
    "budget": "max_tokens",
}
REPLY_ENDINGS: dict[str, StopReason] = {"length": "max_tokens", "content_filter": "refusal"}


def stop_reason(finished: TurnFinished, last_finish_reason: str | None) -> StopReason:
    """The ACP stop reason of a turn that ended other than in error."""
    if finished.reason == "done":
        return REPLY_ENDINGS.get(last_finish_reason or "", "end_turn")
    return STOP_REASONS.get(finished.reason, "end_turn")


def notice(text: str) -> AgentThoughtChunk:
    return update_agent_thought_text(f"zizou: {text}\n")


class TurnUpdates:
    """The updates of one turn's events; it remembers what the calls printed so far and how
    the last reply ended."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.last_finish_reason: str | None = None
        self._printed: dict[str, str] = {}

    def of(self, event: AnyEvent) -> list[Update]:
        match event:
            case TextDelta():
                return [update_agent_message_text(event.text)]
            case ReasoningDelta():
                return [update_agent_thought_text(event.text)]
            case ToolCallStarted():
                return [self._started(event)]
            case ToolProgress():
                printed = self._printed.get(event.call_id, "") + event.text.rstrip("\n") + "\n"
                self._printed[event.call_id] = printed
                content = [text_content(printed)]
                return [tool_update(event.call_id, status="in_progress", content=content)]
            case PermissionDecided():
                if event.verdict == "allow":
                    return [tool_update(event.call_id, status="in_progress")]
                return []
            case ToolCallFinished():
                return [self._finished(event)]
            case ModelReplied() | StepFinished():
                self.last_finish_reason = event.finish_reason or self.last_finish_reason
                return []
            case Retrying():
                return [notice(event.reason)]
            case AgentError():
                return [] if event.fatal else [notice(event.message)]
            case HookWarning():
                return [notice(f"{event.hook}: {event.message}")]
            case Compacted():
                size = f"~{event.tokens_before:,} to ~{event.tokens_after:,} tokens"
                return [notice(f"the conversation was summarised to fit ({size})")]
            case ChecksReported():
                return [notice("the checks found new problems in the changes; the model is told")]
            case BudgetWarning():
                return [notice(event.message)]
            case Nested(event=DeckSuspense() as suspense) | (DeckSuspense() as suspense):
                return [notice(f"{' > '.join(suspense.chain)}: {suspense.message}")]
            case Nested():
                return []  # a deck's run: the call's result tells it
            case TurnFinished():
                show = event.message and event.reason not in ("done", "error")
                return [notice(event.message or "")] if show else []
            case TurnStarted() | StepStarted() | StepPlanned() | PermissionRequested():
                return []  # the client asks nothing of these; a permission is asked apart
            case _:
                assert_never(event)

    def _started(self, event: ToolCallStarted) -> ToolCallStart:
        arguments = arguments_of(event.arguments)
        return start_tool_call(
            event.call_id,
            tool_title(event.name, event.label, arguments),
            kind=tool_kind(event.name),
            status="pending",
            locations=locations(self.root, arguments),
            raw_input=arguments,
        )

    def _finished(self, event: ToolCallFinished) -> ToolCallProgress:
        self._printed.pop(event.call_id, None)
        diffs, places = diff_contents(self.root, event.diff) if event.diff else ([], [])
        content = [*diffs, text_content(event.output)]
        return tool_update(
            event.call_id,
            status="completed" if event.ok else "failed",
            content=content,
            locations=places or None,
        )


__all__ = ["STOP_REASONS", "TurnUpdates", "Update", "notice", "stop_reason"]
