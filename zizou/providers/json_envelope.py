"""The JSON reply protocol's text: the system prompt section that teaches it, the history
rewritten for a provider that takes no tools, and the reading of a reply.

A reply is one JSON object, `{"messageToUser"?, "toolCalls"?, "diff"?, "requestInstruction"?}`:
what the user reads, the tools to run, a change to the task state (RFC 6902 operations or an
RFC 7396 merge object) and an instruction to read in full. Earlier tool calls and results in the
history become plain turns the model can follow: its own turns as the JSON it sent, the results
as one user message, "Results:", each under its call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

STATE_TOOL = "update_state"  # `diff` becomes a call to it
INSTRUCTIONS_TOOL = "get_instructions"  # `requestInstruction` becomes a call to it
_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)
_MAX_STARTS = 20  # the places a JSON object is looked for before giving up


class EnvelopeError(ValueError):
    """A reply that is not the protocol's one JSON object; the message says what is wrong."""


class EnvelopeCall(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @field_validator("arguments", mode="before")
    @classmethod
    def _decoded(cls, value: Any) -> Any:
        """Arguments sent as a JSON string (as native tool calls carry them) are read too."""
        if value is None or value == "":
            return {}
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                return value  # the validation names it
        return value


class Envelope(BaseModel):
    model_config = ConfigDict(extra="ignore")

    message_to_user: str | None = Field(None, alias="messageToUser")
    tool_calls: list[EnvelopeCall] = Field(default_factory=list, alias="toolCalls")
    diff: list[dict[str, Any]] | dict[str, Any] | None = None
    request_instruction: str | None = Field(None, alias="requestInstruction")

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value


def tool_names(tools: Iterable[dict[str, Any]]) -> list[str]:
    """The names of the tools in a request's `tools` (OpenAI-style function schemas)."""
    return [str(_function(tool).get("name", "")) for tool in tools]


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    inner = tool.get("function")
    return inner if isinstance(inner, dict) else tool


def protocol_section(tools: list[dict[str, Any]]) -> str:
    """The system prompt section that explains the protocol and lists the tools offered."""
    names = tool_names(tools)
    lines = [
        "# REPLY FORMAT",
        "Tools are not called natively here. Reply with exactly one JSON object and no other text:",
        '{"messageToUser"?: string, "toolCalls"?: [{"name": string, "arguments": object}]'
        + (', "diff"?: array | object' if STATE_TOOL in names else "")
        + (', "requestInstruction"?: string' if INSTRUCTIONS_TOOL in names else "")
        + "}",
        "- messageToUser: what the user reads; the user sees nothing else you write.",
        "- toolCalls: the tools to run now, in order, each with its arguments as a JSON object "
        'that fits the tool\'s parameters. Their results come back in a user message, "Results:", '
        "one per call. Leave toolCalls out when the work is done: messageToUser is then your "
        "final answer.",
    ]
    if STATE_TOOL in names:
        lines.append(
            "- diff: a change to the task state: a list of RFC 6902 operations, or an RFC 7396 "
            "merge object."
        )
    if INSTRUCTIONS_TOOL in names:
        lines.append("- requestInstruction: the name of an instruction to read in full.")
    example = {"name": names[0], "arguments": {}} if names else None
    if "read_file" in names:
        example = {"name": "read_file", "arguments": {"path": "README.md"}}
    lines.append("Give at least one field.")
    if example is not None:
        sample = {"messageToUser": "Looking first.", "toolCalls": [example]}
        lines.append(f"Example: {_compact(sample)}")
    lines += ["", "## Tools"]
    lines += [_tool_entry(_function(tool)) for tool in tools] or ["(none in this step)"]
    return "\n".join(lines)


def _tool_entry(function: dict[str, Any]) -> str:
    description = str(function.get("description") or "").strip()
    first = " ".join(description.split("\n\n", 1)[0].split())
    params = _compact(function.get("parameters") or {"type": "object", "properties": {}})
    return f"- {function.get('name', '')}: {first}\n  parameters: {params}"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def plain_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history with no tool calls and no tool messages: assistant turns as the JSON they
    stand for, the results of a step as one user message, adjacent user texts joined."""
    calls: dict[str, tuple[str, Any]] = {}  # call id -> (name, arguments)
    results: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") == "tool":
            results.append(message)
            continue
        if results:
            _add(out, {"role": "user", "content": _results_text(results, calls)})
            results = []
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                calls[call.get("id", "")] = (function.get("name", ""), function.get("arguments"))
            _add(out, {"role": "assistant", "content": assistant_text(message)})
        else:
            _add(out, message)
    if results:
        _add(out, {"role": "user", "content": _results_text(results, calls)})
    return out


def _add(out: list[dict[str, Any]], message: dict[str, Any]) -> None:
    """Append, joining two user texts in a row into one message."""
    content = message.get("content") or ""
    last = out[-1] if out else {}
    if (
        last.get("role") == message["role"] == "user"
        and isinstance(last.get("content"), str)
        and isinstance(content, str)
    ):
        out[-1] = {"role": "user", "content": f"{last['content']}\n\n{content}"}
    else:
        out.append({"role": message["role"], "content": content})


def assistant_text(message: dict[str, Any]) -> str:
    """An assistant turn as the protocol's JSON object."""
    envelope: dict[str, Any] = {}
    if message.get("content"):
        envelope["messageToUser"] = message["content"]
    calls = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        calls.append({"name": function.get("name", ""), "arguments": _decoded(function)})
    if calls:
        envelope["toolCalls"] = calls
    return json.dumps(envelope or {"messageToUser": ""}, ensure_ascii=False)


def _decoded(function: dict[str, Any]) -> Any:
    raw = function.get("arguments") or "{}"
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return raw


def _results_text(results: list[dict[str, Any]], calls: dict[str, tuple[str, Any]]) -> str:
    parts = ["Results:"]
    for result in results:
        call_id = str(result.get("tool_call_id", ""))
        name, arguments = calls.get(call_id, (result.get("name") or "?", ""))
        head = f"[{call_id}] {name} {arguments or ''}".rstrip()
        parts.append(f"{head}:\n{result.get('content') or ''}")
    return "\n\n".join(parts)


def read_envelope(text: str) -> Envelope:
    """The reply's JSON object, found in a ```json fence or among prose around it; raises
    EnvelopeError saying what is wrong."""
    try:
        envelope = Envelope.model_validate(_json_object(text))
    except ValidationError as exc:
        raise EnvelopeError(f"the object does not fit the format: {_problems(exc)}") from None
    if not (
        envelope.message_to_user is not None
        or envelope.tool_calls
        or envelope.diff is not None
        or envelope.request_instruction is not None
    ):
        raise EnvelopeError(
            "the object has none of messageToUser, toolCalls, diff, requestInstruction"
        )
    return envelope


def _json_object(text: str) -> dict[str, Any]:
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    decoder = json.JSONDecoder()
    start, problem = body.find("{"), "there is no JSON object in it"
    for _ in range(_MAX_STARTS):
        if start < 0:
            break
        try:
            value, _end = decoder.raw_decode(body, start)
        except ValueError as exc:
            if problem.startswith("there is no"):
                problem = f"it is not valid JSON ({exc})"
        else:
            if isinstance(value, dict):
                return value
        start = body.find("{", start + 1)
    raise EnvelopeError(problem)


def _problems(exc: ValidationError) -> str:
    """A pydantic error in the protocol's own field names."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'the object'}: {err['msg']}"
        for err in exc.errors()
    )


__all__ = [
    "INSTRUCTIONS_TOOL",
    "STATE_TOOL",
    "Envelope",
    "EnvelopeCall",
    "EnvelopeError",
    "assistant_text",
    "plain_history",
    "protocol_section",
    "read_envelope",
    "tool_names",
]
