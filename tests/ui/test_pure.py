"""The TUI's pure logic, without an App: text safety, ranking, commands, history, the queue,
approval previews, transcripts, completion contexts and where a streamed answer may be cut."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zizou.contracts.protocols import PermissionRequest
from zizou.ui import text as text_module
from zizou.ui.approval_view import approval_view
from zizou.ui.completion import completion_context
from zizou.ui.fuzzy import fuzzy_score, rank
from zizou.ui.history import InputHistory
from zizou.ui.markdown_cut import safe_cut
from zizou.ui.message_queue import MessageQueue
from zizou.ui.slash import classify, completions, nearest
from zizou.ui.text import StreamSanitizer, escape_controls, one_line
from zizou.ui.transcript import transcript_markdown
from zizou.ui.widgets.sidebar import prompt_preview


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        (["plain ", "text"], "plain text"),
        (["red \x1b[3", "1mtext\x1b[0m"], "red text"),
        (["title \x1b]0;pwned", "\x07 done"], "title  done"),
        (["a\r\nb"], "a\nb"),
        (["lone \x1b"], "lone "),
    ],
)
def test_streamed_text_loses_escape_sequences_even_when_cut(
    chunks: list[str], expected: str
) -> None:
    sanitizer = StreamSanitizer()
    assert "".join(sanitizer.feed(c) for c in chunks) + sanitizer.flush() == expected


def test_streamed_text_without_controls_is_passed_on_without_a_pass_to_strip_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stripped: list[str] = []
    strip = text_module.strip_terminal_controls

    def counted(text: str) -> str:
        stripped.append(text)
        return strip(text)

    monkeypatch.setattr(text_module, "strip_terminal_controls", counted)
    sanitizer = StreamSanitizer()
    plain = "paragraph: **bold**, `code`\n\n- an item\twith a tab\n\n" * 100
    assert sanitizer.feed(plain) == plain
    assert stripped == []  # nothing a terminal would act on: the text is not gone over again
    assert sanitizer.feed("red \x1b[31mtext\x1b[0m, a\r\nb") == "red text, a\nb"
    assert len(stripped) == 1


def test_controls_and_invisible_characters_are_spelled_out() -> None:
    assert escape_controls("a\tb\x1b[2J\u202ec\n") == "a\\tb\\x1b[2J\\u202ec\n"
    assert escape_controls("x\ny", keep_newlines=False) == "x\\x0ay"
    assert one_line("ls   -la\n| head", 9) == "ls -la |…"


def test_fuzzy_ranking_prefers_file_names_and_word_starts() -> None:
    files = ["src/zizou/ui/app.py", "docs/apple.md", "src/parser.py", "tests/test_parser.py"]
    assert rank("parser", files)[:2] == ["src/parser.py", "tests/test_parser.py"]
    assert rank("uiapp", files)[0] == "src/zizou/ui/app.py"
    assert fuzzy_score("zz", "abc") is None


def test_commands_unknown_words_and_paths(tmp_path: Path) -> None:
    assert classify("/help", tmp_path).kind == "command"
    assert classify("/model openai gpt-4o", tmp_path).args == ["openai", "gpt-4o"]
    unknown = classify("/hlep me", tmp_path)
    assert (unknown.kind, unknown.suggestion) == ("unknown", "help")
    assert classify("/usr/bin/env is broken", tmp_path).kind == "text"
    assert classify("/tmp is full", tmp_path).kind == "text"
    assert classify("hello /help", tmp_path).kind == "text"
    assert nearest("modle") == "model"
    assert [c.name for c in completions("co")] == ["compact", "config", "context", "cost"]


def test_history_walks_back_and_returns_to_the_draft() -> None:
    history = InputHistory()
    for entry in ("one", "two", "two", ""):
        history.add(entry)
    assert history.entries == ["one", "two"]
    assert history.previous("draft") == "two"
    assert history.previous("two") == "one"
    assert history.previous("one") is None
    assert history.next() == "two"
    assert history.next() == "draft"
    assert history.next() is None


def test_the_queue_keeps_order_pauses_and_holds_an_edited_head() -> None:
    queue = MessageQueue()
    first, second = queue.add("a"), queue.add("b")
    queue.editing = first.id
    assert queue.pop_ready() is None
    assert queue.replace(first.id, "a2")
    queue.paused = True
    assert queue.pop_ready() is None
    queue.paused = False
    assert queue.pop_ready() == type(first)(first.id, "a2")
    assert queue.replace(second.id, "  ") and len(queue) == 0


def test_approval_views(tmp_path: Path) -> None:
    command = PermissionRequest(
        "c1",
        "run_bash",
        "rm -rf build\x1b[8m",
        json.dumps({"timeout_s": 30}),
        ("rm",),
        False,
        kind="exec",
    )
    view = approval_view(command, tmp_path)
    assert view.subject == "rm -rf build\\x1b[8m"
    assert view.where == f"in {tmp_path} · timeout 30 s"
    assert view.always is not None and "`rm`" in view.always
    for shown, said in (
        ({"background": True}, "in the background (until it ends or is killed)"),
        ({"background": True, "timeout_s": 900}, "in the background (killed at 900 s)"),
        ({}, "timeout 120 s"),
    ):
        job = PermissionRequest("c5", "run_bash", "serve", json.dumps(shown), kind="exec")
        assert approval_view(job, tmp_path).where == f"in {tmp_path} · {said}"
    protected = PermissionRequest(
        "c2",
        "edit_file",
        "edit_file .git/config",
        json.dumps({"old_string": "a", "new_string": "b"}),
        (),
        True,
        kind="write",
    )
    view = approval_view(protected, tmp_path)
    assert view.always is None and view.body_is_diff
    assert view.body == "@@ edit @@\n-a\n+b"
    several = {
        "edits": [
            {"old_string": "a", "new_string": "b"},
            {"old_string": "c", "new_string": "d", "replace_all": True},
        ]
    }
    many = PermissionRequest(
        "c4", "edit_file", "edit_file .git/config", json.dumps(several), (), True, kind="write"
    )
    assert approval_view(many, tmp_path).body == (
        "@@ edit 1 of 2 @@\n-a\n+b\n@@ edit 2 of 2 (every occurrence) @@\n-c\n+d"
    )
    opener = PermissionRequest(
        "c3", "open_file", "open_file report.html", None, (), False, reason="opens it", kind="open"
    )
    assert approval_view(opener, tmp_path).always == "always allow open_file for this session"
    assert approval_view(opener, tmp_path).where == "open_file: opens it"


def test_transcript_markdown() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "let me look",
            "tool_calls": [
                {"id": "1", "function": {"name": "glob", "arguments": '{"pattern":"*"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "1", "content": "a.py\n```"},
        {"role": "assistant", "content": "done"},
    ]
    text = transcript_markdown("S1", "m", messages)
    assert text.startswith("# zizou session S1")
    assert "## You\n\nhi" in text and "**Tool call: `glob`**" in text
    assert "````\na.py\n```\n````" in text and text.rstrip().endswith("done")


def test_completion_contexts() -> None:
    assert completion_context("/mo", 3, True) is not None
    assert completion_context("/mo", 3, False) is None
    file = completion_context("see @sr and", 7, False)
    assert file is not None and (file.kind, file.query, file.start, file.end) == (
        "file",
        "sr",
        4,
        7,
    )
    assert completion_context("mail me@x", 9, True) is None


def test_answers_are_cut_only_outside_code_fences() -> None:
    text = "a" * 10 + "\n\n```\ncode\n\nmore\n```\n\ntail"
    assert safe_cut(text, 5) == text.index("tail")
    assert safe_cut("```\nx\n\ny", 0) == 0
    assert safe_cut("short\n\nrest", 100) == 0


def test_the_sidebar_preview_unwraps_prose_and_list_items_but_not_code_or_tables() -> None:
    prompt = (
        "# BASE\n\nYou are zizou, working\nin a project.\n\n- Explore with glob\n  and grep.\n"
        "- Read first\n```\nkeep a\nkeep b\n```\n| a |\n| b |\n"
    )
    assert prompt_preview(prompt).splitlines() == [
        "# BASE",
        "",
        "You are zizou, working in a project.",
        "",
        "- Explore with glob and grep.",
        "- Read first",
        "```",
        "keep a",
        "keep b",
        "```",
        "| a |",
        "| b |",
    ]


def test_the_sidebar_preview_stops_at_its_limit() -> None:
    preview = prompt_preview("word " * 400, limit=50)
    assert len(preview) == 50
    assert preview.endswith("…")
