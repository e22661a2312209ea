"""A tool whose parameters are a JSON Schema rather than a pydantic model: a deck's (its
input schema) or an MCP server's (its tool's input schema).

The schema is sent as it is, and each call's arguments are checked against it with
`jsonschema`, so an invalid call is a tool error naming the field. A `pattern` in such a schema
is never run on a value the model wrote (a catastrophic regex would hang the check).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ConfigDict

from zizou.tools.base import ArgsProblem, Tool, ToolArgs

if TYPE_CHECKING:  # jsonschema loads with the first call checked, not with the tool classes
    from jsonschema.exceptions import ValidationError as SchemaViolation
    from jsonschema.protocols import Validator

MAX_PROBLEMS = 5
LABEL_CHARS = 60


class SchemaArgs(ToolArgs):
    """A call's arguments as the model sent them, checked against a JSON Schema."""

    model_config = ConfigDict(extra="allow", frozen=True)


def _no_regex(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[SchemaViolation]:
    from jsonschema.exceptions import ValidationError

    yield ValidationError("zizou does not run regexes from a deck's schema")


@cache
def _checker() -> type[Validator]:
    """The decks' schemas are checked when loaded (zizou/decks/schemas.py); this holds even for
    one that slipped past: a pattern is never run on a value the model wrote."""
    from jsonschema import Draft202012Validator, validators

    extended: type[Validator] = validators.extend(
        Draft202012Validator, {"pattern": _no_regex, "patternProperties": _no_regex}
    )
    return extended


def schema_problems(schema: dict[str, Any], value: Any) -> list[str]:
    """What is wrong with `value` under `schema`, one `field: message` each (at most five)."""
    try:
        errors = sorted(_checker()(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    except Exception as exc:  # a schema that cannot be used (a reference to nowhere)
        return [f"input: the deck's schema cannot check it ({type(exc).__name__})"]
    return [_problem(error) for error in errors[:MAX_PROBLEMS]]


def _problem(error: SchemaViolation) -> str:
    where = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "required" and isinstance(error.validator_value, list):
        present = error.instance if isinstance(error.instance, dict) else {}
        missing = [name for name in error.validator_value if name not in present]
        field_name = ".".join(filter(None, (where, *missing[:1])))
        return f"{field_name or 'input'}: is required"
    return f"{where or 'input'}: {error.message}"


class SchemaTool(Tool[SchemaArgs]):
    """A tool whose parameters are the JSON Schema `parameters`."""

    Args = SchemaArgs
    parameters: ClassVar[dict[str, Any]] = {"type": "object"}
    label_field = None

    @classmethod
    def schema(cls) -> dict[str, Any]:
        # Built each time: these classes are made per deck run, and must not be cached for
        # the process's life.
        return {
            "type": "function",
            "function": {
                "name": cls.name,
                "description": cls.description(),
                "parameters": json.loads(json.dumps(cls.parameters)),
            },
        }

    def parse_args(self, data: dict[str, Any]) -> ToolArgs:
        problems = schema_problems(self.parameters, data)
        if problems:
            raise ArgsProblem(problems)
        return SchemaArgs.model_validate(data)

    def label(self, args: SchemaArgs) -> str:
        return short_input(args.model_dump(mode="json"))


def short_input(value: Any) -> str:
    """An input as a person recognises it in one line: its one string, else compact JSON."""
    if isinstance(value, dict) and len(value) == 1:
        value = next(iter(value.values()))
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


__all__ = ["LABEL_CHARS", "SchemaArgs", "SchemaTool", "schema_problems", "short_input"]
