"""The text of each part of `zizou-debug.log`, as pure functions of what the loop sent and did.

The numbered sections are listed in `SECTIONS`; context.md describes them under the same numbers
and headings, and a test keeps the two in step. The records of section 6 are in event_records.py.
Nothing here writes or redacts: debug_log.py passes every piece through the Redactor on its way
to the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zizou.agent.prompt import CompiledPrompt
from zizou.contracts.protocols import ModelRequest

SECTIONS = (
    "SYSTEM PROMPT",
    "SECTION BREAKDOWN",
    "CONVERSATION HISTORY",
    "TOOLS",
    "CALL PARAMETERS",
    "LIVE STREAM EVENTS",
)
HEADING = re.compile(r"^=+ (\d+) ([A-Z][A-Z ]*[A-Z]) =+$", re.MULTILINE)
WIDTH = 80
INDENT = "    "
HIDDEN_PARAMETERS = frozenset({"api_key", "key", "authorization", "password", "secret", "token"})


def heading(number: int) -> str:
    return "\n" + f"===== {number} {SECTIONS[number - 1]} ".ljust(WIDTH, "=") + "\n\n"


def block(text: str, indent: str = INDENT) -> str:
    """`text` indented, one line per line, so it can never be mistaken for a heading."""
    if not text:
        return f"{indent}(empty)\n"
    return "".join(f"{indent}{line}\n" for line in text.splitlines())


def chars(n: int) -> str:
    return f"{n:,} chars"


def count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def request_sizes(request: ModelRequest) -> tuple[int, int, int]:
    """Characters of the system prompt, the messages (as JSON) and the tool schemas (as JSON)."""
    messages = len(json.dumps(request.messages, ensure_ascii=False))
    tools = len(json.dumps(request.tools, ensure_ascii=False))
    return len(request.system), messages, tools


def request_summary(step: int, request: ModelRequest) -> str:
    system, messages, tools = request_sizes(request)
    return (
        f"REQUEST step {step}: {chars(system + messages + tools)} (system prompt {system:,}"
        f" · {count(len(request.messages), 'message')} {messages:,}"
        f" · {count(len(request.tools), 'tool')} {tools:,})"
    )


def nested_request(chain: Sequence[str], step: int, request: ModelRequest) -> str:
    """A deck's request, whole, among the events of the call that ran it: its system prompt,
    its history (turn 0's reference context, the input) and the names of the tools offered."""
    names = ", ".join(str(t.get("function", t).get("name")) for t in request.tools) or "none"
    head = request_summary(step, request).replace("REQUEST", "NESTED-REQUEST", 1)
    return (
        f"{head} for {' > '.join(chain)}; tools: {names}\n"
        f"{INDENT}system prompt:\n{block(request.system, INDENT * 2)}"
        f"{INDENT}messages:\n{block(history(request.messages), INDENT * 2)}"
    )


@dataclass(frozen=True)
class Sent:
    """What the previous request of the turn carried, to say what the next one changed."""

    system: str
    compiled: CompiledPrompt | None
    message_count: int


def header(when: str, root: str, params: Mapping[str, Any], before: int, req: ModelRequest) -> str:
    system, messages, tools = request_sizes(req)
    lines = [
        "zizou debug log: everything the model was sent for the latest user message, and what",
        "happened. Rewritten at each user message; secrets are redacted. context.md explains",
        "each section.",
        "",
        f"time:         {when}",
        f"cwd:          {root}",
        f"model:        {params.get('model', 'unknown')}",
        f"history:      {count(before, 'earlier message')} + this one ="
        f" {count(len(req.messages), 'message')} sent",
        f"step cap:     {params.get('max_steps', 'unknown')}",
        f"commands:     {params.get('sandbox', 'unknown')}",
        f"prompt size:  {chars(system)} of system prompt; first request "
        f"{chars(system + messages + tools)} (system prompt, messages and tool schemas as JSON)",
    ]
    return "\n".join(lines) + "\n"


def no_request_header(root: str, params: Mapping[str, Any]) -> str:
    return (
        "zizou debug log: no request was sent for this message (see the events below).\n\n"
        f"cwd:          {root}\n"
        f"model:        {params.get('model', 'unknown')}\n"
        f"commands:     {params.get('sandbox', 'unknown')}\n"
    )


def breakdown(compiled: CompiledPrompt | None, request: ModelRequest) -> str:
    system, messages, tools = request_sizes(request)
    lines = []
    if compiled is None or compiled.text != request.system:
        lines.append("(no layer breakdown: the prompt source did not report its layers)")
    else:
        lines.append(f"{'layer':<20} {'chars':>9}  note")
        for name, size, note in compiled.breakdown():
            lines.append(f"{name:<20} {size:>9,}  {_layer_note(size, note)}".rstrip())
    lines += [
        "",
        f"system prompt total: {chars(system)} (layers joined under '# LAYER' headings)",
        f"history:             {chars(messages)} as JSON"
        f" in {count(len(request.messages), 'message')}",
        f"tools:               {chars(tools)} as JSON in {count(len(request.tools), 'schema')}",
    ]
    return "\n".join(lines) + "\n"


def _layer_note(size: int, note: str) -> str:
    if size or note.startswith("off"):
        return note
    return f"off: {note}" if note else "off"


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "\n".join(
            str(p.get("text", ""))
            if isinstance(p, dict) and p.get("type") == "text"
            else to_json(p)
            for p in content
        )
    return to_json(content)


def to_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def message(number: int, msg: Mapping[str, Any], call_names: dict[str, str]) -> str:
    """One history message expanded: role, content, tool calls with arguments, tool results."""
    role = str(msg.get("role", "?"))
    title = f"[{number}] {role}"
    if role == "tool":
        call_id = str(msg.get("tool_call_id", "?"))
        title += f" · result of {call_id} ({call_names.get(call_id, 'unknown tool')})"
    out = [title + "\n", block(_content_text(msg.get("content")))]
    for call in msg.get("tool_calls") or []:
        function = call.get("function", {})
        call_names[str(call.get("id"))] = str(function.get("name"))
        out.append(f"{INDENT}→ tool call {call.get('id')}: {function.get('name')}\n")
        out.append(block(str(function.get("arguments", "")), INDENT * 2))
    return "".join(out)


def history(messages: Iterable[Mapping[str, Any]]) -> str:
    call_names: dict[str, str] = {}
    parts = [message(n, m, call_names) for n, m in enumerate(messages, 1)]
    return "\n".join(parts) if parts else "(no messages)\n"


def resent_history(messages: Sequence[Mapping[str, Any]], before: int | None = None) -> str:
    """After a context overflow: the shortened history that the next attempt sends, in full. It
    becomes the conversation, so the session file records it too (a `compacted` line)."""
    count = len(messages)
    fewer = f", {before - count} fewer" if before is not None and before > count else ""
    return (
        f"{INDENT}sent again with a shorter history ({count} messages{fewer}); it replaces the "
        "conversation: later steps send it, and the session file keeps it for `zizou -c`:\n"
        + history(messages)
    )


def tools(schemas: Iterable[Mapping[str, Any]]) -> str:
    """Each tool as the model gets it: name, description, JSON schema of its arguments."""
    parts = []
    for schema in schemas:
        function = schema.get("function", schema)
        parts.append(
            f"---- {function.get('name')} ----\n"
            f"description:\n{block(str(function.get('description', '')))}"
            f"parameters (JSON schema):\n{block(to_json(function.get('parameters', {})))}"
        )
    return "\n".join(parts) if parts else "(no tools)\n"


def call_parameters(params: Mapping[str, Any]) -> str:
    lines = [
        f"{name}: {json.dumps(value, ensure_ascii=False, default=str)}"
        for name, value in params.items()
        if name.lower() not in HIDDEN_PARAMETERS
    ]
    lines.append("(the key itself is never written here)")
    return "\n".join(lines) + "\n"


def _brief(msg: Mapping[str, Any]) -> str:
    role = str(msg.get("role", "?"))
    if role == "tool":
        return f"tool result for {msg.get('tool_call_id')}"
    calls = len(msg.get("tool_calls") or [])
    return f"{role} message" + (f" with {count(calls, 'tool call')}" if calls else "")


def later_request(
    step: int, request: ModelRequest, compiled: CompiledPrompt | None, previous: Sent
) -> str:
    """A later step's request: its size, the messages added since the previous request (their
    full text is in the events above), and the system prompt layers that changed, in full."""
    out = [request_summary(step, request) + "\n"]
    new = request.messages[previous.message_count :]
    if new:
        out.append(f"{INDENT}added since the last request: {', '.join(map(_brief, new))}\n")
    if request.system == previous.system:
        out.append(f"{INDENT}system prompt unchanged\n")
        return "".join(out)
    changes = layer_changes(previous.compiled, compiled)
    if not changes or compiled is None:
        size = f"{len(previous.system):,} -> {len(request.system):,} chars"
        out.append(f"{INDENT}system prompt changed ({size}); as sent now:\n")
        return "".join([*out, block(request.system, INDENT * 2)])
    out.append(f"{INDENT}system prompt changed: {'; '.join(changes)}\n")
    old = {s.name: s.text for s in previous.compiled.sections} if previous.compiled else {}
    for section in compiled.sections:
        if old.get(section.name, "") != section.text:
            out.append(f"{INDENT}---- {section.name} as sent now ----\n")
            out.append(block(section.text, INDENT * 2))
    return "".join(out)


def layer_changes(before: CompiledPrompt | None, after: CompiledPrompt | None) -> list[str]:
    """Which layers changed between two renders, with their sizes, e.g. 'WORKSPACE 0 -> 340'."""
    if before is None or after is None:
        return []
    old = {s.name: s.text for s in before.sections}
    changes = []
    for section in after.sections:
        previous = old.get(section.name, "")
        if previous != section.text:
            changes.append(f"{section.name} {len(previous):,} -> {len(section.text):,} chars")
    return changes


def parse_headings(text: str) -> list[tuple[int, str]]:
    """The numbered section headings of a debug log, in order."""
    return [(int(m.group(1)), m.group(2)) for m in HEADING.finditer(text)]


__all__ = [
    "HEADING",
    "SECTIONS",
    "Sent",
    "block",
    "breakdown",
    "call_parameters",
    "chars",
    "count",
    "header",
    "heading",
    "history",
    "later_request",
    "layer_changes",
    "nested_request",
    "no_request_header",
    "parse_headings",
    "request_summary",
    "to_json",
    "tools",
]
