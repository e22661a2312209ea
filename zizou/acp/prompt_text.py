"""A `session/prompt`'s content blocks as the text of a zizou turn: the text as typed, a
resource link as the path or address it names, an embedded resource (an editor's selection,
an open file) as its text, fenced and named. Images and audio are not offered (the
capabilities say so); one that comes anyway is named, not dropped silently."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)


def where(uri: str) -> str:
    """A file URI as its path; any other address as it is."""
    parts = urlsplit(uri)
    return unquote(parts.path) if parts.scheme == "file" else uri


def prompt_text(blocks: Sequence[PromptBlock]) -> str:
    pieces: list[str] = []
    for block in blocks:
        match block:
            case TextContentBlock():
                pieces.append(block.text)
            case ResourceContentBlock():
                pieces.append(f"`{where(block.uri)}`")
            case EmbeddedResourceContentBlock(resource=TextResourceContents() as resource):
                pieces.append(f'\n\n<context from="{where(resource.uri)}">\n{resource.text}')
                pieces.append("\n</context>\n")
            case EmbeddedResourceContentBlock():
                pieces.append(f"[a binary resource was left out: {where(block.resource.uri)}]")
            case ImageContentBlock() | AudioContentBlock():
                pieces.append(f"[{block.type} left out: zizou takes text here]")
    return "".join(pieces)


__all__ = ["PromptBlock", "prompt_text", "where"]
