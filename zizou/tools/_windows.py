"""The window argument the workspace tools and read_file share, and finding it in a file.

The model sends a window as flat fields (`regex`, or `start_line` / `start` / `start_regex` and
`end_line` / `end` / `end_regex`), which every provider's schema dialect handles; the nested
form (`{"start": {"regex": "..."}}`) is accepted too, since models write it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from zizou.contracts.windows import Found, WindowError, WindowSpec, parse_spec, resolve
from zizou.tools.base import ToolArgs


class WindowArgs(ToolArgs):
    """A part of a file, in whole lines numbered from 1 (both ends included)."""

    regex: str | None = Field(
        default=None,
        description="A Python regex (^ and $ match at each line): the lines its match spans. "
        "Use it alone, without start/end fields.",
    )
    start_line: int | None = Field(default=None, ge=1, description="First line.")
    start: str | None = Field(
        default=None, description="A text on the first line (its first match)."
    )
    start_regex: str | None = Field(default=None, description="A regex matching the first line.")
    end_line: int | None = Field(default=None, ge=1, description="Last line.")
    end: str | None = Field(
        default=None, description="A text on the last line, searched after the start."
    )
    end_regex: str | None = Field(
        default=None, description="A regex matching the last line, searched after the start."
    )

    @model_validator(mode="before")
    @classmethod
    def _nested(cls, data: Any) -> Any:
        """`{"start": {"regex": "x"}}` -> `{"start_regex": "x"}` (and for `end`, `line`, `text`)."""
        if not isinstance(data, dict):
            return data
        flat = dict(data)
        for side in ("start", "end"):
            nested = flat.get(side)
            if isinstance(nested, dict):
                del flat[side]
                for key, value in nested.items():
                    name = {"line": f"{side}_line", "text": side, "regex": f"{side}_regex"}.get(key)
                    if name is None:
                        raise ValueError(
                            f"unknown field {key!r} in {side}; use line, text or regex"
                        )
                    if flat.get(name) is not None:
                        raise ValueError(f"{side} is given twice")
                    flat[name] = value
        return flat

    def spec(self) -> WindowSpec:
        """The window; WindowError when it cannot be used (a regex that does not compile...)."""
        return parse_spec(self.model_dump(exclude_none=True))


def locate(
    spec: WindowSpec,
    lines: list[str],
    rel: str,
    hint: int | None = None,
    first_text: str | None = None,
) -> Found:
    """Where `spec` is in the file now; WindowError saying why it is nowhere."""
    found = resolve(spec, lines, hint, first_text)
    if isinstance(found, Found):
        if found.end < found.start:
            raise WindowError(f"{rel} is empty: there are no lines to show")
        return found
    raise WindowError(f"nothing in {rel} matches the window ({spec.describe()}): {found.reason}")


__all__ = ["WindowArgs", "locate"]
