"""Only code-looking words and real project files count as mentions."""

from __future__ import annotations

from zizou.repomap.mentions import code_identifiers, find_mentions

PATHS = ["src/app/core/prompt.py", "src/app/cli.py", "tests/test_cli.py", "README.md"]


def test_code_looking_words_count_and_english_does_not() -> None:
    found = code_identifiers(
        "Run the tests: parse_args breaks, PromptBuilder too, and `render` and load() and obj.items"
    )
    assert found == {"parse_args", "PromptBuilder", "render", "load", "items"}


def test_files_by_path_trailing_path_or_unique_name() -> None:
    mentions = find_mentions("see core/prompt.py, README.md and cli.py and src/app/cli.py.", PATHS)
    assert mentions.files == ("README.md", "src/app/cli.py", "src/app/core/prompt.py")


def test_an_ambiguous_file_name_is_no_mention() -> None:
    assert find_mentions("fix test_cli.py please", PATHS).files == ("tests/test_cli.py",)
    assert find_mentions("what about cli.py", [*PATHS, "other/cli.py"]).files == ()


def test_an_empty_message_mentions_nothing() -> None:
    mentions = find_mentions("   ", PATHS)
    assert mentions.identifiers == () and mentions.files == ()
