"""The conversation's messages as typed records.

What the model is sent is the provider-neutral (OpenAI) wire format, and `to_wire` makes it.
Everything else reads these records: a tool result says whether it succeeded (`ok`), what it
changed (`diff`) and what a write replaced (`replaced`), so nothing has to recognise a failure
by an "Error: " prefix or re-parse a sentence. Session files (format 2) store the records;
`from_wire` reads format 1 files and shortened histories, which hold wire dicts.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

ERROR_PREFIX = "Error: "  # how a failed result reads to the model


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ToolCallPart(_Message):
    id: str
    name: str
    arguments: str = "{}"  # JSON text; malformed arguments are kept as "{}" (see Conversation)


class ShellRun(_Message):
    """A command the person ran with `!` and shared with the model (in a user message)."""

    command: str
    result: str  # the status line ("exit code 0", a timeout), then the output
    ok: bool


class ImagePart(_Message):
    """An image a tool returned (an MCP server's) or the user attached (an editor's prompt):
    sent to a model that takes images, and named in the text for one that does not."""

    mime: str  # image/png, image/jpeg...
    data: str  # base64


class UserMessage(_Message):
    role: Literal["user"] = "user"
    content: str  # what the model reads
    shell: ShellRun | None = None  # set when the message shares a `!command`'s result
    # True: not the user's words but zizou's, what the configured checks found after the
    # model ended its turn; it belongs to that turn (undo, the transcript).
    checks: bool | None = None
    images: tuple[ImagePart, ...] = ()  # the images the user attached (`with_images`)

    @property
    def from_user(self) -> bool:
        return not self.checks


class AssistantMessage(_Message):
    role: Literal["assistant"] = "assistant"
    content: str | None = None
    tool_calls: tuple[ToolCallPart, ...] = ()


class ToolMessage(_Message):
    """A tool call's result. `content` is what the model reads; the rest is for people."""

    role: Literal["tool"] = "tool"
    tool_call_id: str
    content: str
    ok: bool = True
    name: str | None = None  # the tool's name
    diff: str | None = None  # unified diff of what a write or edit changed
    replaced: str | None = None  # the text a write or edit replaced (None: nothing, or too big)
    images: tuple[ImagePart, ...] = ()  # for a model that takes images (`with_images`)


Message = Annotated[UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")]
_MESSAGE: TypeAdapter[Message] = TypeAdapter(Message)


def to_wire(message: Message) -> dict[str, Any]:
    """The message as the provider gets it."""
    match message:
        case UserMessage(content=content):
            return {"role": "user", "content": content}
        case AssistantMessage(content=content, tool_calls=calls):
            wire: dict[str, Any] = {"role": "assistant", "content": content}
            if calls:
                wire["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call in calls
                ]
            return wire
        case ToolMessage(tool_call_id=call_id, content=content):
            return {"role": "tool", "tool_call_id": call_id, "content": content}


def from_wire(data: dict[str, Any]) -> Message:
    """A record from a wire dict, or from a stored record (format 2 keeps the extra fields).
    A format 1 tool result has no `ok`: it failed when it reads as a failure to the model."""
    if data.get("role") == "assistant" and data.get("tool_calls"):
        calls = [_call_part(call) for call in data["tool_calls"]]
        data = {**data, "tool_calls": calls}
    elif data.get("role") == "tool" and "ok" not in data:
        data = {**data, "ok": not str(data.get("content") or "").startswith(ERROR_PREFIX)}
    return _MESSAGE.validate_python(data)


def _call_part(call: dict[str, Any]) -> dict[str, Any]:
    """A tool call, from the wire's nested form or the record's flat one."""
    function = call.get("function")
    if isinstance(function, dict):
        return {"id": call.get("id", ""), **function}
    return call


def stored(message: Message) -> dict[str, Any]:
    """The message as a session file keeps it (format 2): the record's own fields."""
    data = message.model_dump(exclude_none=True)
    if data.get("images") == ():  # only a result that has images keeps the field
        del data["images"]
    return data


__all__ = [
    "ERROR_PREFIX",
    "AssistantMessage",
    "ImagePart",
    "Message",
    "ShellRun",
    "ToolCallPart",
    "ToolMessage",
    "UserMessage",
    "from_wire",
    "stored",
    "to_wire",
]
