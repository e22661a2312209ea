"""A `session/prompt`'s content blocks as the text of a zizou turn: the text as typed, a
resource link as the path or address it names, an embedded resource (an editor's selection,
an open file) as its text, fenced and named; and its images, attached to the message for a
model that takes them. Audio is not offered (the capabilities say so); audio that comes anyway
is named, not dropped silently."""

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

from zizou.contracts.messages import ImagePart

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
            case AudioContentBlock():
                pieces.append("[audio left out: zizou takes text and images]")
            case ImageContentBlock():
                pass  # attached to the message (`prompt_images`)
    return "".join(pieces)


def prompt_images(blocks: Sequence[PromptBlock]) -> tuple[ImagePart, ...]:
    """The images of the prompt, in order."""
    return tuple(
        ImagePart(mime=block.mime_type, data=block.data)
        for block in blocks
        if isinstance(block, ImageContentBlock)
    )


__all__ = ["PromptBlock", "prompt_images", "prompt_text", "where"]
