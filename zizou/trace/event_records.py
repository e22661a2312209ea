"""The records of section 6 of `zizou-debug.log`, LIVE STREAM EVENTS: one per event the loop
yields, labelled as context.md lists them (STEP-START, TEXT-DELTA, REASONING-DELTA, TOOL-CALL,
TOOL-RESULT, TOOL-ERROR, RETRY, STEP-FINISH, FINISH, ERROR, and TURN-START, MODEL-REPLY,
TOOL-PROGRESS, PERMISSION-ASK, PERMISSION-DECIDED, BUDGET-WARNING), then the usage
and cost of the whole message. Pure text; debug_log.py stamps, redacts and writes them.
"""

from __future__ import annotations

from typing import assert_never

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
    Usage,
)
from zizou.trace.sections import block, chars, count


def _usage(usage: Usage) -> str:
    cost = "cost unknown" if usage.cost_usd is None else f"${usage.cost_usd:.6f}"
    tokens = f"{usage.input_tokens:,} in / {usage.output_tokens:,} out tokens"
    return f"{tokens}{_cache(usage)}, {cost}"


def _cache(usage: Usage) -> str:
    """The prompt cache's share of the input tokens; nothing for a call that did not use it."""
    if not usage.cache_read_tokens and not usage.cache_write_tokens:
        return ""
    return f" (cache: {usage.cache_read_tokens:,} read, {usage.cache_write_tokens:,} written)"


def event_record(event: AnyEvent) -> str:
    """The log record of one event (TEXT-DELTAs are gathered by the caller, see text_record)."""
    match event:
        case TurnStarted(user_text=text):
            return f"TURN-START user message of {chars(len(text))} (the last message in 3)\n"
        case StepStarted(step=step):
            return f"STEP-START step {step}\n"
        case TextDelta(text=text):
            return f"TEXT-DELTA\n{block(text)}"
        case ReasoningDelta(text=text):
            return f"REASONING-DELTA\n{block(text)}"
        case ModelReplied(step=step, text=text, tool_calls=names, finish_reason=finish):
            calls = f"tool calls {', '.join(names)}" if names else "no tool calls"
            size = chars(len(text))
            return f"MODEL-REPLY step {step}: text of {size}, {calls}, finish_reason={finish}\n"
        case StepPlanned():
            return _plan(event)
        case ToolProgress(call_id=call_id, name=name, text=text):
            return f"TOOL-PROGRESS {call_id} {name}: {text}\n"
        case ToolCallStarted(call_id=call_id, name=name, arguments=arguments):
            return f"TOOL-CALL {call_id} {name}, arguments as sent:\n{block(arguments)}"
        case PermissionRequested(call_id=call_id, tool=tool, summary=summary, detail=detail):
            protected = " (protected path)" if event.protected else ""
            return f"PERMISSION-ASK {call_id} {tool}: {summary}{protected}\n" + (
                block(detail) if detail else ""
            )
        case PermissionDecided(call_id=call_id, tool=tool, verdict=verdict, by=by, rules=rules):
            verb = "allowed" if verdict == "allow" else "denied"
            parts = [f"{verb} by {by}" + (f" ({', '.join(rules)})" if rules else "")]
            parts += [f"sandbox {event.sandbox}"] if event.sandbox else []
            return f"PERMISSION-DECIDED {call_id} {tool} {' · '.join([*parts, event.reason])}\n"
        case ToolCallFinished(call_id=call_id, name=name, ok=ok, output=output):
            kind = "TOOL-RESULT" if ok else "TOOL-ERROR"
            took = f"{event.duration_s:.2f}s"
            return f"{kind} {call_id} {name} after {took}, output:\n{block(output)}"
        case Retrying(attempt=attempt, delay_s=delay, reason=reason):
            return f"RETRY attempt {attempt} in {delay:.1f}s: {reason}\n"
        case StepFinished(step=step, usage=usage, finish_reason=finish):
            return f"STEP-FINISH step {step}, finish_reason={finish}, {_usage(usage)}\n"
        case AgentError(message=text, fatal=fatal, detail=detail):
            return f"ERROR{'' if fatal else ' (not fatal)'}: {text}\n" + (
                block(detail) if detail else ""
            )
        case Compacted(by=by, summary=summary):
            sizes = f"~{event.tokens_before:,} -> ~{event.tokens_after:,} tokens"
            return f"COMPACTED by {by}, the history {sizes}; the summary:\n{block(summary)}"
        case ChecksReported(text=text):
            return f"CHECKS the turn's changes, sent to the model:\n{block(text)}"
        case HookWarning(hook=hook, message=text, detail=detail):
            return f"HOOK-WARNING {hook}: {text}\n" + (block(detail) if detail else "")
        case BudgetWarning(message=text):
            return f"BUDGET-WARNING {text}\n"
        case DeckSuspense(chain=chain, message=text, elapsed_ms=elapsed):
            return f"SUSPENSE {' > '.join(chain)} after {elapsed:,} ms: {text}\n"
        case Nested(call_id=call_id, chain=chain, event=inner):
            return f"NESTED {call_id} {' > '.join(chain)} " + event_record(inner)
        case TurnFinished(reason=reason, steps=steps, message=text):
            return f"FINISH {reason} after {count(steps, 'step')}" + (
                f": {text}\n" if text else "\n"
            )
        case _:
            assert_never(event)


def text_record(
    pieces: list[str], seconds: float, discarded: bool = False, label: str = "TEXT-DELTA"
) -> str:
    """Consecutive TEXT-DELTAs (or REASONING-DELTAs, by `label`) as one record: a key the model
    echoes across pieces is whole here, so the Redactor sees it. Text followed by a RETRY came
    from the failed attempt."""
    note = " (from the failed attempt: discarded)" if discarded else ""
    head = f"{label} {count(len(pieces), 'piece')} over {seconds:.3f}s{note}"
    return f"{head}\n{block(''.join(pieces))}"


def usage_summary(finished: TurnFinished) -> str:
    usage = finished.usage
    cost = (
        "unknown (no price for this model in litellm's table)"
        if usage.cost_usd is None
        else f"${usage.cost_usd:.6f}"
    )
    return (
        "\n---- USAGE AND COST (whole message) ----\n"
        f"steps:          {finished.steps}\n"
        f"input tokens:   {usage.input_tokens:,}\n"
        + _cache_lines(usage)
        + f"output tokens:  {usage.output_tokens:,}\n"
        f"cost:           {cost}\n"
    )


def _cache_lines(usage: Usage) -> str:
    """The cache rows of the summary, only when the prompt cache was used (their tokens are
    part of the input tokens above)."""
    if not usage.cache_read_tokens and not usage.cache_write_tokens:
        return ""
    return (
        f"  cache read:   {usage.cache_read_tokens:,}\n"
        f"  cache write:  {usage.cache_write_tokens:,}\n"
    )


def _plan(event: StepPlanned) -> str:
    """STEP-PLAN: what the step offers and hides, what ran, and each window as shown."""
    lines = [f"STEP-PLAN {event.step}: offered {', '.join(event.offered) or 'no tools'}"]
    lines += [f"  hidden {name}: {why}" for name, why in event.hidden]
    if event.effects_run:
        lines.append(f"EFFECTS step {event.step}: {len(event.effects_run)} ran")
        lines += [f"  {effect}" for effect in event.effects_run]
    if event.reminders:
        lines.append(f"  reminders from: {', '.join(event.reminders)}")
    if event.left_out_turns:
        lines.append(f"  earlier turns left out: {event.left_out_turns}")
    lines.append(f"  workspace: {len(event.windows)} window{'s' * (len(event.windows) != 1)}")
    lines += [f"    {window}" for window in event.windows]
    return "\n".join(lines) + "\n"


__all__ = ["event_record", "text_record", "usage_summary"]
