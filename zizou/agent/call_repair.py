"""Mending a tool call's name when the model got it wrong in a way that has one reading.

Smaller and older models often call `readFile`, `Read_File`, `functions.read_file`, or glue the
arguments onto the name (`read_file{"path": "a.txt"}`). Each of those names one tool beyond
doubt, so the call runs as that tool; the caller logs the repair and tells the model. Only
these fixes are tried, together: whitespace and quotes around the name, arguments glued to it
(taken as the arguments only when the arguments field is empty, `{}`, or the same object), a
`functions.` or `tools.` prefix, and case or camelCase against snake_case. The result must name
exactly one registered tool; anything else is left for the "unknown tool" error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

_PREFIXES = ("functions.", "tools.")
_AROUND = " \t\r\n\"'`"
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@dataclass(frozen=True)
class Repair:
    """A call's name and arguments as repaired."""

    name: str
    arguments: str


def name_key(name: str) -> str:
    """The spelling two names share when they differ only in case or in camelCase against
    snake_case: `readFile`, `ReadFile`, `READ_FILE` and `read_file` all give `read_file`."""
    return _WORD_START.sub("_", name).lower()


def repair_call(name: str, arguments: str, tools: Iterable[str]) -> Repair | None:
    """The call `name(arguments)` mended to name exactly one of `tools`, or None when it needs
    no repair (the name is a tool's) or has no single reading."""
    known = list(tools)
    if name in known:
        return None
    candidate = name.strip(_AROUND)
    brace = candidate.find("{")
    if brace >= 0:
        glued = _glued_arguments(candidate[brace:], arguments)
        if glued is None:
            return None
        candidate, arguments = candidate[:brace].strip(_AROUND), glued
    lowered = candidate.lower()
    for prefix in _PREFIXES:
        if lowered.startswith(prefix):
            candidate = candidate[len(prefix) :]
            break
    key = name_key(candidate)
    matches = [candidate] if candidate in known else [t for t in known if name_key(t) == key]
    if len(matches) != 1:
        return None
    return Repair(matches[0], arguments)


def _glued_arguments(text: str, arguments: str) -> str | None:
    """The arguments a name carried glued to it, when they are one JSON object and the call's
    own arguments field says nothing else; None otherwise."""
    try:
        glued = json.loads(text)
    except ValueError:
        return None
    if not isinstance(glued, dict):
        return None
    own = arguments.strip()
    if own:
        try:
            sent = json.loads(own)
        except ValueError:
            return None
        if sent != {} and sent != glued:
            return None  # two different argument objects: which one was meant is not clear
    return json.dumps(glued, ensure_ascii=False)


__all__ = ["Repair", "name_key", "repair_call"]
