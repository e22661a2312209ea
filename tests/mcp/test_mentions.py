"""`@SERVER:URI` and `/mcp__SERVER__PROMPT ARGS` read from a message."""

from __future__ import annotations

import pytest

from zizou.mcp.mentions import (
    attached,
    prompt_arguments,
    prompt_commands,
    resource_choices,
    resource_mentions,
    without_resources,
)
from zizou.mcp.status import ServerStatus

READY = ServerStatus(
    "docs",
    "user",
    "stdio",
    "docs-server",
    "ready",
    resources=({"uri": "note://readme", "name": "readme"}, {"uri": "bad uri"}),
    prompts=(
        {
            "name": "review.v2",
            "description": "Asks for a review.",
            "arguments": [{"name": "topic", "required": True}, {"name": "depth"}],
        },
    ),
)
STARTING = ServerStatus("other", "user", "stdio", "x", "starting", prompts=({"name": "p"},))


def test_prompts_of_ready_servers_are_commands() -> None:
    commands = prompt_commands([READY, STARTING])
    assert list(commands) == ["mcp__docs__review_v2"]
    command = commands["mcp__docs__review_v2"]
    assert command.prompt == "review.v2" and command.usage == "/mcp__docs__review_v2 topic [depth]"


@pytest.mark.parametrize(
    ("typed", "values"),
    [
        ("parser", {"topic": "parser"}),
        ("parser deep", {"topic": "parser", "depth": "deep"}),
        ("depth=1 the parser code", {"depth": "1", "topic": "the parser code"}),
        ('topic="a b" depth=2', {"topic": "a b", "depth": "2"}),
    ],
)
def test_prompt_arguments_by_name_or_in_order(typed: str, values: dict[str, str]) -> None:
    command = prompt_commands([READY])["mcp__docs__review_v2"]
    assert prompt_arguments(command, typed) == values


def test_a_missing_required_argument_names_the_usage() -> None:
    command = prompt_commands([READY])["mcp__docs__review_v2"]
    with pytest.raises(ValueError, match=r"needs topic: /mcp__docs__review_v2 topic \[depth\]"):
        prompt_arguments(command, "")


def test_resource_mentions_need_a_known_server() -> None:
    text = "see @docs:note://readme, and @src/app.py:10-20 and a@docs:x and @docs:note://readme"
    assert resource_mentions(text, ["docs"]) == [("docs", "note://readme")]
    assert without_resources(text, ["docs"]) == "see  and @src/app.py:10-20 and a@docs:x and "
    assert resource_choices([READY, STARTING]) == [("docs:note://readme", "readme")]


def test_resources_are_attached_after_the_message() -> None:
    assert attached("look", [("docs", "note://r", "body")]) == (
        'look\n\n<resource server="docs" uri="note://r">\nbody\n</resource>'
    )
