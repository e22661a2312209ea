"""Tool names and input schemas as providers accept them."""

from __future__ import annotations

from typing import Any

from zizou.mcp.schema import MAX_NAME_CHARS, for_provider, summary_of, tool_name


def test_names_are_prefixed_sanitised_cut_and_never_given_twice() -> None:
    taken: set[str] = set()
    assert tool_name("git", "git_status", taken) == "mcp__git__git_status"
    assert tool_name("fs", "read.file/v2", taken) == "mcp__fs__read_file_v2"
    clash = tool_name("fs", "read_file_v2", taken)  # sanitises to the same name
    assert clash != "mcp__fs__read_file_v2" and clash.startswith("mcp__fs__read_file_v2_")
    long = tool_name("server", "a" * 100, taken)
    other = tool_name("server", "a" * 99 + "b", taken)
    assert len(long) <= MAX_NAME_CHARS and len(other) <= MAX_NAME_CHARS and long != other
    assert long.startswith("mcp__server__aaa")
    assert len(taken) == 5


def test_refs_are_inlined_and_keywords_providers_reject_are_dropped() -> None:
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Args",
        "type": "object",
        "properties": {
            "where": {"$ref": "#/$defs/Place", "description": "where"},
            "examples": {"type": "string", "examples": ["x"]},  # a property may be so named
            "mode": {"enum": ["a", "b"], "default": {"title": "kept as data"}},
        },
        "required": ["where"],
        "$defs": {"Place": {"type": "object", "title": "Place", "properties": {"x": {}}}},
        "if": {"properties": {}},
        "then": {},
    }
    assert for_provider(schema) == {
        "type": "object",
        "properties": {
            "where": {"type": "object", "properties": {"x": {}}, "description": "where"},
            "examples": {"type": "string"},
            "mode": {"enum": ["a", "b"], "default": {"title": "kept as data"}},
        },
        "required": ["where"],
    }


def test_a_recursive_ref_becomes_an_open_value() -> None:
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/definitions/Node"}},
        "definitions": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"items": {"$ref": "#/definitions/Node"}}},
            }
        },
    }
    tree = for_provider(schema)["properties"]["tree"]
    assert tree["properties"]["kids"]["items"] == {}


def test_whatever_the_server_sends_the_top_is_an_object_with_properties() -> None:
    assert for_provider(None) == {"type": "object", "properties": {}}
    assert for_provider({"required": "x"}) == {"type": "object", "properties": {}}


def test_a_summary_is_the_first_sentence_within_the_limit() -> None:
    assert summary_of("Shows the status. Then more.", 100) == "Shows the status."
    cut = summary_of("word " * 50, 40)
    assert len(cut) <= 40 and cut.endswith("…")
