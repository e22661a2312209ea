"""Images that tools returned (an MCP server's), or that the user attached to a message (an
editor's prompt), as a request carries them.

A tool result's text names each of its images (`[image 1: image/png, 2,048 bytes]`); the
images themselves are kept beside it (`ToolMessage.images`). A request to a model that takes
images gets them right after the step's tool results, as one user message of image parts (a
tool message holds text only, for most providers); a model that does not take images reads a
line saying they are not shown. The conversation and the session file keep one copy either way.
A user message's images go in that message, after its text, for a model that takes images.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from zizou.contracts.messages import ImagePart, Message, ToolMessage, UserMessage

NOT_SHOWN = "(its images are not shown: this model does not take images)"
ATTACHED_NOT_SHOWN = "(the images attached are not shown: this model does not take images)"


def with_images(
    messages: list[dict[str, Any]], records: Iterable[Message], takes_images: bool
) -> list[dict[str, Any]]:
    """`messages` (wire form) with the images of their tool results: after each run of tool
    results for a model that takes images, else named as not shown."""
    images = {
        record.tool_call_id: (record.name or "a tool", record.images)
        for record in records
        if isinstance(record, ToolMessage) and record.images
    }
    attached = {
        record.content: record.images
        for record in records
        if isinstance(record, UserMessage) and record.images
    }
    if not images and not attached:
        return messages
    out: list[dict[str, Any]] = []
    pending: list[tuple[str, tuple[ImagePart, ...]]] = []
    for message in messages:
        is_tool = message.get("role") == "tool"
        found = images.get(message.get("tool_call_id", "")) if is_tool else None
        if not is_tool and pending:
            out.append(_image_message(pending))
            pending = []
        text = message.get("content")
        if message.get("role") == "user" and isinstance(text, str) and text in attached:
            message = _with_attached(text, attached[text], takes_images)
        if found is not None and not takes_images:
            message = {**message, "content": f"{message.get('content', '')}\n{NOT_SHOWN}"}
        elif found is not None:
            pending.append(found)
        out.append(message)
    if pending:
        out.append(_image_message(pending))
    return out


def _with_attached(text: str, images: tuple[ImagePart, ...], takes_images: bool) -> dict[str, Any]:
    """The user's message with the images attached to it, or a line saying they are not shown."""
    if not takes_images:
        return {"role": "user", "content": f"{text}\n{ATTACHED_NOT_SHOWN}"}
    return {"role": "user", "content": [{"type": "text", "text": text}, *map(_image_part, images)]}


def _image_message(found: list[tuple[str, tuple[ImagePart, ...]]]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    for name, images in found:
        for number, image in enumerate(images, 1):
            parts.append({"type": "text", "text": f"{name} returned image {number}:"})
            parts.append(_image_part(image))
    return {"role": "user", "content": parts}


def _image_part(image: ImagePart) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{image.mime};base64,{image.data}"}}


__all__ = ["ATTACHED_NOT_SHOWN", "NOT_SHOWN", "with_images"]
