"""The schema a tool's arguments go out in: pydantic's, without what tells the model nothing."""

from __future__ import annotations

from pydantic import Field

from zizou.tools._wire_schema import wire_schema
from zizou.tools.base import ToolArgs


class Inner(ToolArgs):
    """An inner part."""

    regex: str | None = Field(default=None, description="A regex.")


class Outer(ToolArgs):
    title: str = Field(description="A property that happens to be called title.")
    limit: int | None = Field(default=None, ge=1, description="At most this many.")
    either: int | str = 0
    part: Inner | None = Field(default=None, description="The part to use.")
    extra: dict[str, int] | None = None
    loose: dict[str, object] = Field(default_factory=dict)


def test_an_optional_field_is_offered_in_its_own_type_with_its_own_description() -> None:
    sent = wire_schema(Outer.model_json_schema())
    props = sent["properties"]
    assert props["limit"] == {"type": "integer", "minimum": 1, "description": "At most this many."}
    assert props["part"]["description"] == "The part to use."
    assert props["part"]["properties"]["regex"] == {"type": "string", "description": "A regex."}
    assert props["extra"] == {"type": "object", "additionalProperties": {"type": "integer"}}


def test_titles_refs_and_open_objects_go_but_what_constrains_a_call_stays() -> None:
    sent = wire_schema(Outer.model_json_schema())
    assert "title" not in sent and "$defs" not in sent and "$ref" not in str(sent)
    assert sent["properties"]["title"]["type"] == "string"  # a property, not pydantic's title
    assert sent["additionalProperties"] is False
    assert sent["properties"]["part"]["additionalProperties"] is False
    assert sent["properties"]["either"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert sent["properties"]["loose"] == {"type": "object"}
    assert sent["required"] == ["title"]
