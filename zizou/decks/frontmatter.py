"""A deck file's `---` YAML front matter split from its Markdown body, each top-level key kept
with its line, so that a problem names the line to fix; and the keys a deck or card may have.

YAML is parsed safely (plain data only: no tags that build objects), composed first so that
the marks of each key are known, then constructed. A file comes from a repository: a duplicate
key is an error here, not silently the last one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from zizou.decks.schemas import schema_problem as shape_problem
from zizou.decks.spec import NAME_RE, RESERVED_NAMES, RESERVED_PREFIX, Guardrails, Problem

FENCE = "---"
_LOADER: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


class FrontMatterError(Exception):
    """The front matter cannot be read; `line` is the file's line (1-based)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class FrontMatter:
    """The parsed front matter and the body after it."""

    data: dict[str, Any]
    body: str
    line: int = 1  # of the opening `---`
    lines: dict[str, int] = field(default_factory=dict)  # top-level key -> its line
    item_lines: dict[str, list[int]] = field(default_factory=dict)  # a list value's item lines

    def line_of(self, key: str, index: int | None = None) -> int:
        """The line of `key` (or of its item `index`); the fence's line when unknown."""
        if index is not None:
            items = self.item_lines.get(key, [])
            if index < len(items):
                return items[index]
        return self.lines.get(key, self.line)


def split(text: str) -> tuple[str | None, str, int]:
    """The front matter's text (None when the file has none), the body, and the body's first
    line. A FrontMatterError when the opening `---` is never closed."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != FENCE:
        return None, text, 1
    for index in range(1, len(lines)):
        if lines[index].rstrip() in (FENCE, "..."):
            return "".join(lines[1:index]), "".join(lines[index + 1 :]), index + 2
    raise FrontMatterError("the front matter is not closed: add a line `---` after it", 1)


def parse(text: str) -> FrontMatter:
    """The front matter and body of a deck or card file; a FrontMatterError naming the line."""
    front, body, _ = split(text)
    if front is None or not front.strip():
        return FrontMatter({}, body)
    offset = 2  # the front matter's first line is the file's second
    try:
        _bounded(front, offset)
        node = yaml.compose(front, Loader=_LOADER)
    except yaml.YAMLError as err:
        raise FrontMatterError(f"YAML error: {_describe(err)}", _error_line(err, front)) from None
    if node is None:
        return FrontMatter({}, body)
    if not isinstance(node, yaml.MappingNode):
        raise FrontMatterError("the front matter is not a mapping of `key: value` lines", offset)
    lines: dict[str, int] = {}
    item_lines: dict[str, list[int]] = {}
    for key_node, value_node in node.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        line = offset + key_node.start_mark.line
        if not isinstance(key, str):
            raise FrontMatterError("a key of the front matter is not plain text", line)
        if key in lines:
            raise FrontMatterError(f"`{key}` is given twice (also on line {lines[key]})", line)
        lines[key] = line
        if isinstance(value_node, yaml.SequenceNode):
            item_lines[key] = [offset + item.start_mark.line for item in value_node.value]
    try:
        loader = _LOADER("")
        try:
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as err:
        raise FrontMatterError(f"YAML error: {_describe(err)}", offset) from None
    return FrontMatter(data, body, 1, lines, item_lines)


MAX_NESTING = 64


def _bounded(front: str, offset: int) -> None:
    """Refuse, before anything is built from it, front matter that could blow up: aliases
    (`*name`, a few bytes that expand to gigabytes) and nesting deeper than MAX_NESTING (which
    would exhaust the stack). The events are read one at a time, so neither is built."""
    depth = 0
    for event in yaml.parse(front, Loader=_LOADER):
        if isinstance(event, yaml.AliasEvent):
            line = offset + event.start_mark.line
            raise FrontMatterError("YAML aliases (`*name`) are not allowed in a deck", line)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                line = offset + event.start_mark.line
                raise FrontMatterError(f"nested more than {MAX_NESTING} levels deep", line)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _error_line(err: yaml.YAMLError, front: str, offset: int = 2) -> int:
    """The file's line of a YAML error: where it was found, or, when that is past the front
    matter's end (a bracket or quote never closed), where the unclosed part began."""
    last = front.count("\n") - 1  # the front matter's last line, 0-based
    problem = getattr(err, "problem_mark", None)
    context = getattr(err, "context_mark", None)
    if problem is not None and problem.line > last and context is not None:
        problem = context
    mark = problem or context
    if mark is None:
        return 1
    line: int = mark.line
    return offset + min(line, max(last, 0))


def _describe(err: BaseException) -> str:
    problem = getattr(err, "problem", None)
    context = getattr(err, "context", None)
    if problem:
        return f"{context}, {problem}" if context else str(problem)
    return " ".join(str(err).split())


# The keys of a file, validated with pydantic; an unknown key is a problem.


class ActionEntry(BaseModel):
    """One item of `actions:`: the child deck's file, and how the parent shows it."""

    model_config = ConfigDict(extra="forbid")

    path: str
    name: str | None = None
    description: str | None = None
    activity: str | None = None


class Handlers(BaseModel):
    model_config = ConfigDict(extra="forbid")

    on_error: str | None = None
    on_suspense: str | None = None


Schema = dict[str, Any] | Literal["string"]


class CardFront(BaseModel):
    """The front matter of a card: what it adds to the decks that embed it."""

    model_config = ConfigDict(extra="forbid")

    description: str | None = None
    actions: list[ActionEntry] = Field(default_factory=list)
    embeds: list[str] = Field(default_factory=list)
    tools: list[str] | None = None
    # Schema fragments: properties (and required names) added to the object schemas of the
    # decks that embed the card, the deck's own winning.
    input: Schema | None = None
    output: Schema | None = None


class Front(CardFront):
    """The front matter of a deck."""

    name: str | None = None
    input: Schema | None = None
    output: Schema | None = None
    model: str | None = None
    mode: Literal["llm", "compute"] = "llm"
    activity: str | None = None
    guardrails: Guardrails = Field(default_factory=Guardrails)
    handlers: Handlers = Field(default_factory=Handlers)
    suspense_delay_ms: int = Field(default=800, ge=0, le=60_000)
    state: dict[str, Any] | None = None


# Checks of single values, each giving why a value is wrong, or None.

_NAME = re.compile(NAME_RE)
_ACTIVITY = re.compile(r"[a-z][a-z0-9_]{0,63}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
DESCRIPTION_CHARS = 200


def name_problem(name: str, what: str = "name") -> str | None:
    """Why `name` cannot name a deck or an action (a tool of the model), or None."""
    if not _NAME.fullmatch(name):
        return (
            f"the {what} {name!r} is not a valid tool name: use 1 to 64 letters, digits, '_' or '-'"
        )
    if name.startswith(RESERVED_PREFIX):
        return f"the {what} {name} starts with `{RESERVED_PREFIX}`, which is reserved"
    if name in RESERVED_NAMES:
        return (
            f"the {what} {name} is reserved (a built-in tool, or return_output, fail, "
            "call_deck): choose another"
        )
    return None


def activity_problem(activity: str) -> str | None:
    if _ACTIVITY.fullmatch(activity):
        return None
    return f"the activity {activity!r} is not short snake_case (like `looking_up_users`)"


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a JSON Schema (2020-12) object, or None."""
    if not isinstance(schema, dict):
        return "not a JSON Schema object (or the word `string`)"
    try:
        json.dumps(schema)
    except (TypeError, ValueError) as err:  # YAML dates and the like are not JSON
        return f"not JSON: {err}"
    return shape_problem(schema)


def first_sentence(body: str) -> str:
    """A body's first sentence (headings skipped), for a deck that sets no description."""
    paragraph: list[str] = []
    for line in body.splitlines():
        text = line.strip()
        if text.startswith(("#", "<!--")):
            if paragraph:
                break
            continue
        if not text:
            if paragraph:
                break
            continue
        paragraph.append(text)
    joined = " ".join(paragraph)
    sentence = _SENTENCE_END.split(joined, maxsplit=1)[0]
    if len(sentence) > DESCRIPTION_CHARS:
        sentence = sentence[: DESCRIPTION_CHARS - 1].rstrip() + "…"
    return sentence


class FileCheck:
    """The problems found in one file, gathered so that one load reports them all."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def problem(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.path, line, message))

    @property
    def ok(self) -> bool:
        return not self.problems


__all__ = [
    "ActionEntry",
    "CardFront",
    "FileCheck",
    "Front",
    "FrontMatter",
    "FrontMatterError",
    "Handlers",
    "activity_problem",
    "first_sentence",
    "name_problem",
    "parse",
    "schema_problem",
    "split",
]
