"""Compaction the user controls: the conversation so far, summarised by the model, becomes the
history the next requests send.

`/compact [instructions]` asks for it; it also starts on its own before a turn whose previous
request used more than a share of the model's context window (`compact_threshold`, 85% by
default), with a notice, never silently. The model is sent the history as a plain transcript in
one user message (no tool schemas: a provider may refuse tool calls in a request without tools),
each tool output cut to its start and end, and asked for a summary a later step can work from.
The new history is two messages: the summary, as the user's, and a short acknowledgement; the
session file keeps it as a `compacted` line, so `-c` goes on from the summary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from zizou.contracts.compaction import estimate_tokens
from zizou.contracts.events import Usage
from zizou.contracts.protocols import Model, ModelReply, ModelRequest
from zizou.errors import ProviderError

SUMMARY_SYSTEM = """\
You write the summary of a coding session so that work can go on from it alone: the earlier
messages are about to be replaced by what you write. Keep what the next steps need and drop the
rest. Write plain Markdown with these sections:
## Goal (what the user wants, in their terms, and how their requests changed)
## Done (what was changed, file by file, and what was checked)
## State (decisions made, facts found, commands that work, errors still open)
## Next (what remains, in order)
Quote file paths, names and commands exactly. Do not invent anything the transcript does not
say. Do not call tools."""
SUMMARY_HEADER = "This session was compacted: the conversation so far, summarised."
ACKNOWLEDGEMENT = "Understood: I will go on from this summary."
TOOL_OUTPUT_CHARS = 1_500  # of each tool output in the transcript: its start and its end
MAX_TRANSCRIPT_CHARS = 400_000


@dataclass(frozen=True)
class Summary:
    """A compaction's outcome: the new history, the summary text, what it cost, and the
    history's estimated tokens before and after."""

    messages: list[dict[str, Any]]
    text: str
    usage: Usage
    tokens_before: int
    tokens_after: int


def transcript(messages: list[dict[str, Any]]) -> str:
    """The history as plain text, one block per message; long tool outputs cut in the middle.
    Over MAX_TRANSCRIPT_CHARS, the oldest part goes (the summary of a summary stays first)."""
    blocks: list[str] = []
    for message in messages:
        role = message.get("role", "?")
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        if role == "tool":
            blocks.append(f"[tool result {message.get('tool_call_id', '')}]\n{_cut(text)}")
            continue
        functions = [c.get("function") or {} for c in message.get("tool_calls") or ()]
        calls = [f"[tool call {f.get('name')}] {f.get('arguments')}" for f in functions]
        blocks.append("\n".join([f"[{role}]", *([text] if text else []), *calls]))
    whole = "\n\n".join(blocks)
    if len(whole) > MAX_TRANSCRIPT_CHARS:
        whole = (
            "[…the oldest part of the transcript is left out…]\n" + whole[-MAX_TRANSCRIPT_CHARS:]
        )
    return whole


def _cut(text: str) -> str:
    if len(text) <= TOOL_OUTPUT_CHARS:
        return text
    half = TOOL_OUTPUT_CHARS // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters cut …]\n{text[-half:]}"


def summary_request(messages: list[dict[str, Any]], instructions: str = "") -> ModelRequest:
    """The request that asks the model for the summary."""
    ask = "Summarise this coding session, following your instructions."
    if instructions.strip():
        ask += f"\nThe user adds: {instructions.strip()}"
    content = f"<transcript>\n{transcript(messages)}\n</transcript>\n\n{ask}"
    return ModelRequest(
        system=SUMMARY_SYSTEM, messages=[{"role": "user", "content": content}], tools=[]
    )


def compacted(summary_text: str) -> list[dict[str, Any]]:
    """The history after a compaction: the summary, then the acknowledgement."""
    return [
        {"role": "user", "content": f"{SUMMARY_HEADER}\n\n{summary_text.strip()}"},
        {"role": "assistant", "content": ACKNOWLEDGEMENT},
    ]


async def summarise(
    model: Model, messages: list[dict[str, Any]], instructions: str = ""
) -> Summary:
    """Ask `model` for the summary of `messages`; ProviderError when it fails or says nothing
    (the history is then left as it was)."""
    reply: ModelReply | None = None
    async for item in model.stream(summary_request(messages, instructions)):
        if isinstance(item, ModelReply):
            reply = item
    if reply is None or not reply.text.strip():
        raise ProviderError("the model sent no summary; the conversation is unchanged")
    new = compacted(reply.text)
    return Summary(
        new, reply.text.strip(), reply.usage, estimate_tokens(messages), estimate_tokens(new)
    )


__all__ = ["Summary", "compacted", "summarise", "summary_request", "transcript"]
