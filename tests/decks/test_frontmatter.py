"""Front matter: split from the body, each key's line kept, YAML errors at the file's line."""

from __future__ import annotations

import pytest

from zizou.decks.api import to_schema
from zizou.decks.frontmatter import FrontMatterError, first_sentence, name_problem, parse, split


def test_split_keeps_the_body_and_its_first_line() -> None:
    front, body, line = split("---\nname: a\n---\nHello.\n")
    assert front == "name: a\n"
    assert body == "Hello.\n"
    assert line == 4


def test_no_front_matter_is_all_body() -> None:
    parsed = parse("Just text.\n")
    assert parsed.data == {} and parsed.body == "Just text.\n"


def test_each_top_level_key_and_list_item_has_its_line() -> None:
    text = "---\nname: a\n\ndescription: b\nactions:\n  - path: x.deck.md\n  - path: y.deck.md\n"
    text += "---\n"
    parsed = parse(text)
    assert parsed.data["name"] == "a"
    assert parsed.lines == {"name": 2, "description": 4, "actions": 5}
    assert parsed.line_of("actions", 1) == 7
    assert parsed.line_of("missing") == 1


def test_a_yaml_error_names_the_files_line() -> None:
    with pytest.raises(FrontMatterError) as err:
        parse("---\nname: a\ntools: [read_file\n---\nbody\n")
    assert err.value.line == 3  # where the list began, not where the file ended
    assert str(err.value).startswith("YAML error:")


def test_a_yaml_error_inside_the_front_matter_is_at_its_line() -> None:
    with pytest.raises(FrontMatterError) as err:
        parse("---\nname: a\ndescription: b: c\nmodel: x\n---\n")
    assert err.value.line == 3


def test_unsafe_tags_are_refused() -> None:
    with pytest.raises(FrontMatterError, match="YAML error"):
        parse("---\nname: !!python/object/apply:os.system ['true']\n---\n")


def test_a_duplicate_key_is_an_error_at_its_line() -> None:
    with pytest.raises(FrontMatterError, match="given twice") as err:
        parse("---\nname: a\nname: b\n---\n")
    assert err.value.line == 3


def test_unclosed_front_matter_and_a_list_are_errors() -> None:
    with pytest.raises(FrontMatterError, match="not closed"):
        parse("---\nname: a\n")
    with pytest.raises(FrontMatterError, match="mapping") as err:
        parse("---\n- a\n---\n")
    assert err.value.line == 2


def test_first_sentence_skips_headings() -> None:
    assert first_sentence("# Title\n\nFinds things. Then more.\n") == "Finds things."
    assert first_sentence("") == ""


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("greet", None),
        ("bad name", "not a valid tool name"),
        ("zizou_x", "reserved"),
        ("read_file", "reserved"),
        ("return_output", "reserved"),
        ("x" * 65, "not a valid tool name"),
    ],
)
def test_names(name: str, expected: str | None) -> None:
    why = name_problem(name)
    assert (why is None) if expected is None else (expected in (why or ""))


def test_a_pydantic_model_becomes_an_inlined_untitled_schema() -> None:
    from pydantic import BaseModel

    class Where(BaseModel):
        path: str
        title: str

    class Found(BaseModel):
        where: list[Where]

    schema = to_schema(Found)
    assert isinstance(schema, dict)
    assert "$defs" not in schema and "title" not in schema
    item = schema["properties"]["where"]["items"]
    assert item["properties"]["title"] == {"type": "string"}
    assert item["required"] == ["path", "title"]
