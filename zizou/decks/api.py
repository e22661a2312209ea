"""The Python-deck API: a `NAME.deck.py` module sets `DECK = Deck(...)`.

    from pydantic import BaseModel
    from zizou.decks.api import Deck

    class Question(BaseModel):
        question: str

    DECK = Deck(name="ask", description="Answers a question.", input=Question, output="string",
                prompt="Answer the question in one paragraph.")

`input`, `output` and `state` are each a pydantic model class, a JSON Schema dict, or "string";
the other fields mean what the Markdown front matter's keys of the same name mean. A compute
deck (`mode="compute"`) has no model call: its module defines `async def run(input, ctx)`.
"""

from __future__ import annotations

import inspect
import sys
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

if TYPE_CHECKING:
    from zizou.decks.files import Root
    from zizou.decks.frontmatter import FrontMatter
    from zizou.hooks.runtime import HookSource

SchemaLike = type[BaseModel] | dict[str, Any] | str | None

_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_DATA = ("default", "const", "enum", "examples")  # values, not schemas: kept as they are


@dataclass(frozen=True)
class Deck:
    """A deck described in Python; the loader checks it exactly as it checks a Markdown deck."""

    name: str | None = None
    description: str | None = None
    input: SchemaLike = None
    output: SchemaLike = None
    prompt: str = ""
    model: str | None = None
    tools: tuple[str, ...] | list[str] | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    embeds: list[str] = field(default_factory=list)
    activity: str | None = None
    guardrails: dict[str, Any] = field(default_factory=dict)
    handlers: dict[str, str] = field(default_factory=dict)
    suspense_delay_ms: int = 800
    state: SchemaLike = None
    mode: Literal["llm", "compute"] = "llm"

    def front(self) -> dict[str, Any]:
        """The deck as the keys of a Markdown deck's front matter (unset ones left out)."""
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "input": to_schema(self.input),
            "output": to_schema(self.output),
            "model": self.model,
            "tools": list(self.tools) if self.tools is not None else None,
            "actions": list(self.actions),
            "embeds": list(self.embeds),
            "activity": self.activity,
            "guardrails": dict(self.guardrails),
            "handlers": dict(self.handlers),
            "suspense_delay_ms": self.suspense_delay_ms,
            "state": to_schema(self.state),
            "mode": self.mode,
        }
        return {key: value for key, value in data.items() if value is not None}


def to_schema(value: SchemaLike) -> dict[str, Any] | str | None:
    """A JSON Schema (or "string") for a schema-like value: a pydantic model class becomes its
    JSON Schema with `$defs` inlined (where nothing refers back to itself) and titles dropped."""
    if isinstance(value, type) and issubclass(value, BaseModel):
        schema = value.model_json_schema()
        defs = schema.pop("$defs", None)
        if defs:
            try:
                schema = _inline(schema, defs, ())
            except RecursionError:  # a model that contains itself: keep the references
                schema = {**schema, "$defs": defs}
        cleaned: dict[str, Any] = _untitled(schema)
        return cleaned
    return value


def _inline(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in seen or name not in defs:
            raise RecursionError(name)
        rest = {k: v for k, v in node.items() if k != "$ref"}
        return {**_inline(defs[name], defs, (*seen, name)), **_inline(rest, defs, seen)}
    return {key: _inline(value, defs, seen) for key, value in node.items()}


def _untitled(node: Any) -> Any:
    """`node` without the `title` keyword anywhere, property names kept (even `title`)."""
    if isinstance(node, list):
        return [_untitled(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key in _DATA:
            out[key] = value
        elif key in _MAPS and isinstance(value, dict):
            out[key] = {name: _untitled(sub) for name, sub in value.items()}
        elif key in _LISTS and isinstance(value, list):
            out[key] = [_untitled(sub) for sub in value]
        else:
            out[key] = _untitled(value) if isinstance(value, dict) else value
    return out


def source_of(path: Path, root: Root, text: str, digest: str) -> HookSource | None:
    """The Python deck `path` as a hook source for the trust gate, when it came with the
    project (read through `zizou.confined`); None when it needs no trust (user, built-in)."""
    if root.base is None:
        return None
    from zizou.hooks.runtime import HookSource

    name = path.relative_to(root.base).as_posix()
    return HookSource(name, "project", "python", text=text, path=path, sha256=digest)


def run_module(path: Path, text: str, digest: str) -> FrontMatter:
    """Run a Python deck's text (the bytes hashed, never the file read again) and return its
    `DECK` as front matter; `Bad` naming the line when it fails or sets no `DECK`."""
    # The loader's side, imported here: a compute deck's worker imports this module for `Deck`
    # alone, and starts faster without the front matter's parser.
    from zizou.decks.files import Bad
    from zizou.decks.frontmatter import FrontMatter

    filename = str(path)
    module = types.ModuleType(f"zizou_deck_{digest[:16]}")
    module.__file__ = filename
    # In sys.modules while it runs and after: pydantic and dataclasses look their module up.
    sys.modules[module.__name__] = module
    try:
        exec(compile(text, filename, "exec"), module.__dict__)
    except SyntaxError as err:
        sys.modules.pop(module.__name__, None)
        raise Bad(f"syntax error: {err.msg}", err.lineno or 1) from None
    except (Exception, SystemExit) as exc:
        sys.modules.pop(module.__name__, None)
        line = 1
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == filename and frame.lineno:
                line = frame.lineno
        raise Bad(f"failed to load: {type(exc).__name__}: {exc}".rstrip(": "), line) from None
    deck = module.__dict__.get("DECK")
    if not isinstance(deck, Deck):
        raise Bad("the module sets no `DECK = Deck(...)` (from zizou.decks.api)")
    if deck.mode == "compute" and not inspect.iscoroutinefunction(module.__dict__.get("run")):
        raise Bad("a compute deck defines `async def run(input, ctx)`")
    try:
        data = deck.front()
    except Exception as exc:  # a model whose JSON Schema cannot be made
        raise Bad(f"its schemas cannot be made: {type(exc).__name__}: {exc}") from None
    return FrontMatter(data, deck.prompt)


__all__ = ["Deck", "run_module", "source_of", "to_schema"]
