"""What a tool call's MCP result becomes for the model: a `ToolResult`.

The result arrives as MCP's wire JSON (`content`, `structuredContent`, `isError`). Text parts
are joined; an image part is kept as an image (a model that takes images is sent it, the others
read a line naming it: see `core/images.py`); audio, links and binary resources are named in
a line. The text is capped as our commands' output is: the head and the tail, with a note of
how much was cut. `isError` makes a failed result, which the model reads as an error.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from zizou.contracts.messages import ImagePart
from zizou.tools.base import ToolResult

MAX_MODEL_CHARS = 30_000  # as run_bash's output: head and tail, the middle counted
MAX_IMAGES = 4
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # decoded; what providers take at most per image
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def capped(text: str, limit: int = MAX_MODEL_CHARS) -> str:
    """`text` within `limit` characters: its head and tail, and a note of what was cut."""
    if len(text) <= limit:
        return text
    keep = limit // 2
    cut = len(text) - 2 * keep
    note = f"[... {cut:,} characters omitted: the result was {len(text):,} characters ...]"
    return "\n".join((text[:keep].rstrip("\n"), note, text[-keep:].lstrip("\n")))


def tool_result(result: dict[str, Any]) -> ToolResult:
    """A `tools/call` result (MCP's wire JSON) as the model reads it."""
    parts: list[str] = []
    images: list[ImagePart] = []
    content = result.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict):
            _block(block, parts, images)
    structured = result.get("structuredContent")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=2))
    text = capped("\n".join(parts))
    if result.get("isError"):
        return ToolResult(False, text or "the tool failed and said nothing more")
    return ToolResult(True, text or "(no output)", images=tuple(images))


def _block(block: dict[str, Any], parts: list[str], images: list[ImagePart]) -> None:
    kind = block.get("type")
    if kind == "text":
        parts.append(str(block.get("text", "")))
    elif kind == "image":
        parts.append(_image(block, images))
    elif kind == "audio":
        parts.append(f"[audio ({block.get('mimeType', 'unknown type')}): not shown]")
    elif kind == "resource_link":
        name = block.get("name") or block.get("title") or ""
        parts.append(f"[resource {name}: {block.get('uri', '')}]".replace("  ", " "))
    elif kind == "resource":
        parts.append(_resource(block.get("resource")))
    else:
        parts.append(f"[a {kind!s} part: not shown]")


def _image(block: dict[str, Any], images: list[ImagePart]) -> str:
    mime = str(block.get("mimeType", ""))
    data = block.get("data")
    size = _decoded_size(data)
    if mime not in IMAGE_TYPES or size is None:
        return f"[an image ({mime or 'no type'}) that could not be read: not shown]"
    if size > MAX_IMAGE_BYTES:
        return f"[an image ({mime}, {size:,} bytes): too large to show, over {MAX_IMAGE_BYTES:,}]"
    if len(images) >= MAX_IMAGES:
        return f"[an image ({mime}): not shown, only {MAX_IMAGES} are sent]"
    assert isinstance(data, str)
    images.append(ImagePart(mime=mime, data=data))
    return f"[image {len(images)}: {mime}, {size:,} bytes]"


def _decoded_size(data: Any) -> int | None:
    if not isinstance(data, str):
        return None
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


def _resource(resource: Any) -> str:
    """An embedded resource: its text, or a line naming it."""
    if not isinstance(resource, dict):
        return "[a resource that could not be read]"
    uri = resource.get("uri", "")
    if isinstance(resource.get("text"), str):
        return f"[resource {uri}]\n{resource['text']}"
    mime = resource.get("mimeType") or "binary"
    return f"[resource {uri} ({mime}): not shown]"


def resource_text(result: dict[str, Any]) -> str:
    """A `resources/read` result (wire JSON) as text for the model: each text content under
    its URI; binary contents named."""
    contents = result.get("contents")
    items = [item for item in (contents if isinstance(contents, list) else ()) if item]
    if len(items) == 1 and isinstance(items[0], dict) and isinstance(items[0].get("text"), str):
        return capped(items[0]["text"])  # the one text: its URI is named where it is attached
    return capped("\n".join(_resource(item) for item in items) or "(the resource is empty)")


def prompt_text(result: dict[str, Any]) -> str:
    """A `prompts/get` result (wire JSON) as one message: each message's text, its role named
    when the prompt holds more than the user's."""
    messages = result.get("messages")
    items = [m for m in (messages if isinstance(messages, list) else ()) if isinstance(m, dict)]
    roles = {m.get("role") for m in items}
    parts: list[str] = []
    for message in items:
        found: list[str] = []
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        for block in blocks:
            if isinstance(block, dict):
                _block(block, found, [])
        text = "\n".join(found)
        parts.append(text if roles <= {"user"} else f"{message.get('role')}: {text}")
    return capped("\n\n".join(parts))


__all__ = ["MAX_MODEL_CHARS", "capped", "prompt_text", "resource_text", "tool_result"]
