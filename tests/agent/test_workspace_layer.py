"""The WORKSPACE layer: each window found again at every render, shown under one header, and
turned into a one-line stub (never silently dropped) when it cannot be shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zizou.agent.prompt import PromptBuilder
from zizou.agent.workspace_layer import WorkspaceLayer, budget_tokens
from zizou.contracts.state import SessionState
from zizou.contracts.windows import WHOLE_FILE, parse_spec
from zizou.contracts.workspace import Window
from zizou.tools import default_registry
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.edit_file import TOOL as EDIT_FILE
from zizou.tools.edit_file import EditFileArgs
from zizou.tools.open_in_workspace import TOOL as OPEN
from zizou.tools.open_in_workspace import OpenArgs
from zizou.tools.read_file import TOOL as READ_FILE
from zizou.tools.read_file import ReadFileArgs
from zizou.tools.write_file import TOOL as WRITE_FILE
from zizou.tools.write_file import WriteFileArgs

CODE = """\
import os


def helper(x):
    return x + 1

def main():
    print(helper(2))
    return 0
"""
BUDGET = 32_000


class Session:
    """A project, its session state, the layer, and the tools run as the model runs them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = SessionState()
        self.layer = WorkspaceLayer(root, self.state)
        self.ctx = ToolContext(root=root, state=self.state)

    def write(self, name: str, text: str) -> Path:
        """A change made outside zizou (the user's editor, a command)."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        return path

    def render(self, budget: int = BUDGET) -> str:
        return self.layer.render(budget).text

    async def open(self, path: str, window: dict[str, Any] | None = None) -> ToolResult:
        args = OpenArgs.model_validate({"path": path, "window": window})
        result = await OPEN.run(args, self.ctx)
        assert result.ok, result.output
        return result

    async def edit(self, path: str, old: str, new: str) -> None:
        result = await EDIT_FILE.run(
            EditFileArgs(path=path, old_string=old, new_string=new), self.ctx
        )
        assert result.ok, result.output

    async def write_file(self, path: str, content: str) -> None:
        result = await WRITE_FILE.run(WriteFileArgs(path=path, content=content), self.ctx)
        assert result.ok, result.output


@pytest.fixture
def s(tmp_path: Path) -> Session:
    root = tmp_path / "project"
    root.mkdir()
    session = Session(root)
    session.write("a.py", CODE)
    return session


def headers(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith("## ")]


def numbered(text: str) -> dict[int, str]:
    """The numbered lines shown, by number."""
    out: dict[int, str] = {}
    for line in text.split("\n"):
        number, tab, rest = line.partition("\t")
        if tab and number.strip().isdigit():
            out[int(number)] = rest
    return out


HELPER = r"def helper\(x\):\n.*"


async def test_the_header_then_numbered_lines(s: Session) -> None:
    await s.open("a.py", {"regex": HELPER})
    assert s.render() == (
        "## a.py · w1 · lines 4-5 · /def helper\\(x\\):\\n.*/\n"
        "     4\tdef helper(x):\n"
        "     5\t    return x + 1"
    )


async def test_windows_of_lines_and_whole_files(s: Session) -> None:
    await s.open("a.py", {"start_line": 7, "end_line": 8})
    await s.open("a.py")
    text = s.render()
    assert headers(text) == ["## a.py · w1 · lines 7-8", "## a.py · w2 · lines 1-9"]
    assert text.split("\n")[1:3] == ["     7\tdef main():", "     8\t    print(helper(2))"]


async def test_nothing_open_is_nothing_shown(s: Session) -> None:
    rendered = s.layer.render(BUDGET)
    assert (rendered.text, rendered.note) == ("", "no open files")


async def test_the_prompt_shows_the_workspace(s: Session) -> None:
    await s.open("a.py", {"start": "def main", "end": "return 0"})
    registry = default_registry()
    builder = PromptBuilder(s.root, registry, s.state, write_compiled=False, map_tokens=0)
    compiled = builder.render()
    section = next(sec for sec in compiled.sections if sec.name == "WORKSPACE")
    assert section.text.startswith("## a.py · w1 · lines 7-9 · 'def main' .. 'return 0'\n")
    assert section.note == "1 window"
    assert "     9\t    return 0" in compiled.text
    assert compiled.windows == ("a.py · w1 · lines 7-9 · 'def main' .. 'return 0'",)


def test_the_budget_is_a_quarter_of_the_context_window_at_most_32k() -> None:
    assert budget_tokens(None) == 32_000
    assert budget_tokens(200_000) == 32_000
    assert budget_tokens(64_000) == 16_000


# --- following the code ----------------------------------------------------------------------


async def test_a_regex_window_follows_an_edit_above(s: Session) -> None:
    await s.open("a.py", {"regex": HELPER})
    s.render()  # shown whole: the model has seen the file and may edit it
    await s.edit("a.py", "import os\n", "import os\nimport re\nimport sys\nimport json\n")
    text = s.render()
    assert headers(text)[0].startswith("## a.py · w1 · lines 7-8 · ")
    assert numbered(text) == {7: "def helper(x):", 8: "    return x + 1"}
    assert "changed since" not in text  # the same lines, moved


async def test_an_anchor_keeps_the_occurrence_nearest_where_it_was(s: Session) -> None:
    await s.open("a.py", {"start": "def helper", "end": "return"})
    s.render()
    await s.edit("a.py", "import os\n", "import os\ndef helper_old():\n    return None\n")
    text = s.render()
    assert numbered(text) == {6: "def helper(x):", 7: "    return x + 1"}
    assert "the anchor matches 2 places; this is the one nearest where it was" in text


async def test_a_line_window_shifts_with_an_edit_above_and_stays_after_one_below(
    s: Session,
) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    await s.edit("a.py", "import os\n", "import os\nimport re\n")
    text = s.render()
    assert headers(text) == ["## a.py · w1 · lines 5-6"]
    assert numbered(text) == {5: "def helper(x):", 6: "    return x + 1"}
    await s.write_file("a.py", "import os\nimport re\n" + CODE[len("import os\n") :] + "# end\n")
    text = s.render()
    assert headers(text) == ["## a.py · w1 · lines 5-6"]
    assert numbered(text) == {5: "def helper(x):", 6: "    return x + 1"}


async def test_a_line_window_grows_with_an_edit_inside(s: Session) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    await s.edit("a.py", "    return x + 1\n", "    y = x\n    return y + 1\n")
    text = s.render()
    assert headers(text) == ["## a.py · w1 · lines 4-6 · changed since your last step: lines 5-6"]


async def test_a_line_window_whose_lines_an_edit_deleted_says_so(s: Session) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    await s.edit("a.py", "def helper(x):\n    return x + 1\n", "")
    text = s.render()
    assert text == "## a.py · w1 · lines 4-5 · its lines were deleted by an edit"


async def test_a_line_window_lost_to_an_edit_stays_lost_until_its_lines_are_back(
    s: Session,
) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    await s.edit("a.py", "def helper(x):\n    return x + 1\n", "")
    assert s.render() == "## a.py · w1 · lines 4-5 · its lines were deleted by an edit"
    await s.edit("a.py", "import os\n", "import os\nimport re\n")  # another edit, by zizou
    assert s.render() == (
        "## a.py · w1 · lines 4-5 · not found: its lines are gone; last seen at lines 4-5"
    )
    s.write("a.py", (s.root / "a.py").read_text() + "# more\n")  # and one outside zizou
    text = s.render()
    assert "\n" not in text and text.startswith("## a.py · w1 · lines 4-5 · ")
    assert "not found" in text
    s.write("a.py", CODE)  # its lines are back
    text = s.render()
    assert headers(text) == ["## a.py · w1 · lines 4-5"]
    assert numbered(text) == {4: "def helper(x):", 5: "    return x + 1"}


async def test_an_outside_change_relocates_a_line_window_by_its_lines(s: Session) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    s.write("a.py", "# a header\n# of two lines\n" + CODE)
    text = s.render()
    assert headers(text) == ["## a.py · w1 · lines 6-7"]
    assert numbered(text) == {6: "def helper(x):", 7: "    return x + 1"}


async def test_an_outside_change_that_removed_its_lines_keeps_the_numbers_with_a_note(
    s: Session,
) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    s.write("a.py", "one\ntwo\nthree\nfour\nfive\nsix\n")
    text = s.render()
    assert headers(text) == [
        "## a.py · w1 · lines 4-5 · the file changed outside zizou, and its lines were not "
        "found again · changed since your last step: lines 4-5"
    ]
    assert numbered(text) == {4: "four", 5: "five"}


async def test_a_line_window_past_a_shrunk_file_is_a_stub(s: Session) -> None:
    await s.open("a.py", {"start_line": 7, "end_line": 8})
    s.render()
    s.write("a.py", "one\ntwo\n")
    text = s.render()
    assert "\n" not in text
    assert text.startswith("## a.py · w1 · lines 7-8 · not found:")
    assert "2 lines" in text


async def test_an_outside_change_then_a_zizou_edit_still_relocates(s: Session) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    s.write("a.py", "# a header\n# of two lines\n" + CODE)
    read = await READ_FILE.run(ReadFileArgs(path="a.py"), s.ctx)
    assert read.ok
    await s.edit("a.py", "    print(helper(2))\n", "    print(helper(3))\n")
    text = s.render()
    assert numbered(text) == {6: "def helper(x):", 7: "    return x + 1"}


async def test_an_anchor_that_stops_matching_is_a_stub_naming_it(s: Session) -> None:
    await s.open("a.py", {"regex": HELPER})
    s.render()
    s.write("a.py", CODE.replace("helper", "assist"))
    text = s.render()
    assert text == (
        "## a.py · w1 · /def helper\\(x\\):\\n.*/ · not found: /def helper\\(x\\):\\n.*/ "
        "matches nothing; last seen at lines 4-5"
    )
    assert s.render() == text  # still lost, for the same reason
    s.write("a.py", "\n" + CODE)  # it is back, one line lower
    assert headers(s.render()) == ["## a.py · w1 · lines 5-6 · /def helper\\(x\\):\\n.*/"]


async def test_an_anchor_an_edit_renamed_is_a_stub(s: Session) -> None:
    await s.open("a.py", {"start": "def helper", "end": "return"})
    s.render()
    await s.edit("a.py", "def helper(x):", "def assist(x):")
    text = s.render()
    assert text.startswith("## a.py · w1 · 'def helper' .. 'return' · not found: ")
    assert "'def helper' matches nothing; last seen at lines 4-5" in text


async def test_a_resumed_session_keeps_its_windows_where_they_were(s: Session) -> None:
    await s.open("a.py", {"regex": HELPER})
    await s.open("a.py", {"start_line": 7, "end_line": 8})
    s.render()
    s.write("a.py", "# top\n" + CODE.replace("def helper", "def assist"))
    before = s.render().split("\n\n")
    assert "not found" in before[0]  # w1 is lost; w2 moved to 8-9
    records = [w.to_record() for w in s.state.workspace.windows]
    resumed = Session(s.root)
    resumed.state.restore(Window.from_record(r) for r in records)
    after = resumed.render().split("\n\n")
    assert after[0] == before[0]  # still a stub, not the lines it was last seen at
    assert after[1] == before[1]


async def test_changed_since_your_last_step_is_said_once(s: Session) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 9})
    s.render()
    s.write("a.py", CODE.replace("x + 1", "x + 2").replace("helper(2)", "helper(5)"))
    first = s.render()
    assert headers(first) == ["## a.py · w1 · lines 4-9 · changed since your last step: lines 5, 8"]
    assert headers(s.render()) == ["## a.py · w1 · lines 4-9"]


async def test_a_preview_for_a_person_changes_nothing_the_model_will_see(s: Session) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 9})
    s.render()
    path = s.write("a.py", CODE.replace("x + 1", "x + 2"))
    told: list[object] = []
    s.state.subscribe(told.append)
    preview = s.layer.render(BUDGET, preview=True).text
    assert "changed since your last step: lines 5" in preview
    assert told == []
    refused = await EDIT_FILE.run(
        EditFileArgs(path="a.py", old_string="x + 2", new_string="x + 3"), s.ctx
    )
    assert not refused.ok and path.read_text().count("x + 2") == 1  # not seen by the model
    assert "changed since your last step: lines 5" in s.render()  # the model is still told


async def test_a_missing_file_is_a_stub(s: Session) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    (s.root / "a.py").unlink()
    assert s.render() == "## a.py · w1 · lines 4-5 · a.py no longer exists"
    s.write("a.py", CODE)  # back again
    assert headers(s.render()) == ["## a.py · w1 · lines 4-5"]


async def test_an_anchored_window_whose_file_came_back_drops_the_missing_note(
    s: Session,
) -> None:
    await s.open("a.py", {"regex": HELPER})
    s.render()
    (s.root / "a.py").unlink()
    assert s.render().endswith(" · a.py no longer exists")
    s.write("a.py", CODE)  # the same content again
    assert headers(s.render()) == ["## a.py · w1 · lines 4-5 · /def helper\\(x\\):\\n.*/"]


async def test_a_file_that_became_binary_is_a_stub(s: Session) -> None:
    await s.open("a.py")
    s.render()
    (s.root / "a.py").write_bytes(b"\0\1\2 binary")
    text = s.render()
    assert text.startswith("## a.py · w1 · whole file · a.py looks binary")
    assert "\n" not in text


async def test_a_crlf_file_renders_without_carriage_returns(s: Session) -> None:
    (s.root / "win.txt").write_bytes(b"one\r\ntwo\r\nthree")
    await s.open("win.txt", {"start_line": 2, "end_line": 3})
    text = s.render()
    assert "\r" not in text
    assert text == "## win.txt · w1 · lines 2-3\n     2\ttwo\n     3\tthree"


async def test_an_empty_file_opened_whole(s: Session) -> None:
    s.write("empty.txt", "")
    await s.open("empty.txt")
    assert s.render() == "## empty.txt · w1 · lines 1-0\n(the file is empty)"
    await s.write_file("empty.txt", "now\nsome text\n")
    assert numbered(s.render()) == {1: "now", 2: "some text"}


async def test_a_whole_file_window_survives_being_emptied_and_refilled(s: Session) -> None:
    await s.open("a.py")
    s.render()
    await s.write_file("a.py", "")
    assert "(the file is empty)" in s.render()
    await s.write_file("a.py", "back\n")
    assert numbered(s.render()) == {1: "back"}


# --- the budget ------------------------------------------------------------------------------


async def test_reading_or_editing_a_file_counts_as_using_its_windows(s: Session) -> None:
    for name in ("one.txt", "two.txt", "three.txt"):
        s.write(name, "".join(f"{name} line {n}\n" for n in range(1, 101)))
    for name in ("one.txt", "two.txt", "three.txt"):
        await s.open(name)
    s.render()  # shown: the model may edit them
    await READ_FILE.run(ReadFileArgs(path="one.txt", start_line=1, end_line=2), s.ctx)
    edit = EditFileArgs(path="two.txt", old_string="two.txt line 7\n", new_string="seven\n")
    assert (await EDIT_FILE.run(edit, s.ctx)).ok
    whole = len(s.render())
    rendered = s.layer.render(whole // 4 - 500)
    assert [w.status for w in s.state.windows] == ["open", "open", "collapsed"]
    assert "three.txt line 1\n" not in rendered.text


async def test_the_least_recently_used_window_collapses_first_and_says_so(s: Session) -> None:
    for name in ("one.txt", "two.txt", "three.txt"):
        s.write(name, "".join(f"{name} line {n}\n" for n in range(1, 101)))
    await s.open("one.txt")
    await s.open("two.txt")
    await s.open("three.txt")
    await s.open("one.txt")  # used again: two.txt is now the least recently used
    whole = len(s.render())
    rendered = s.layer.render(whole // 4 - 500)  # room for about two of the three
    lines = rendered.text.split("\n")
    stub = next(line for line in lines if line.startswith("## two.txt"))
    assert stub == (
        "## two.txt · w2 · lines 1-100 · collapsed: the workspace is over its budget and this "
        "window was used least recently; close windows you no longer need, or read_file these "
        "lines"
    )
    assert "two.txt line 1" not in rendered.text
    assert "one.txt line 100" in rendered.text and "three.txt line 100" in rendered.text
    assert "1 collapsed to fit" in rendered.note
    assert [w.status for w in s.state.windows] == ["open", "collapsed", "open"]


async def test_a_tiny_budget_collapses_every_window_but_drops_none(s: Session) -> None:
    await s.open("a.py", {"start_line": 1, "end_line": 2})
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    text = s.render(budget=1)
    assert len(headers(text)) == 2 and all("collapsed" in h for h in headers(text))


async def test_a_window_cut_for_its_size_still_collapses_to_fit(s: Session) -> None:
    s.write("big.txt", "".join(f"{n:05d} " + "x" * 94 + "\n" for n in range(1, 1001)))
    await s.open("big.txt")
    alone = s.render()
    assert "[... cut at 20,000 characters; lines " in alone  # too long for one window
    assert [w.status for w in s.state.windows] == ["cut"]
    rendered = s.layer.render(1_000)  # 4,000 characters or so: not even the cut window fits
    assert len(rendered.text) < 4_000
    assert "collapsed" in rendered.text and "1 collapsed" in rendered.note


# --- the read ledger -------------------------------------------------------------------------


async def test_a_window_shown_whole_lets_edit_file_edit_without_read_file(s: Session) -> None:
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    refused = await EDIT_FILE.run(
        EditFileArgs(path="a.py", old_string="x + 1", new_string="x + 2"), s.ctx
    )
    assert not refused.ok and "read the file" in refused.output  # not shown yet
    s.render()
    await s.edit("a.py", "x + 1", "x + 2")
    assert "x + 2" in (s.root / "a.py").read_text()


async def test_a_collapsed_window_is_not_a_read(s: Session) -> None:
    await s.open("a.py")
    s.render(budget=1)
    refused = await EDIT_FILE.run(
        EditFileArgs(path="a.py", old_string="x + 1", new_string="x + 2"), s.ctx
    )
    assert not refused.ok


async def test_a_window_changed_outside_since_it_was_shown_is_not_edited_blind(
    s: Session,
) -> None:
    await s.open("a.py")
    s.render()
    s.write("a.py", CODE + "# more\n")
    refused = await EDIT_FILE.run(
        EditFileArgs(path="a.py", old_string="x + 1", new_string="x + 2"), s.ctx
    )
    assert not refused.ok and "changed since" in refused.output


# --- the session is told ---------------------------------------------------------------------


async def test_a_render_that_moves_a_window_is_told(s: Session) -> None:
    events: list[Any] = []
    s.state.subscribe(events.append)
    await s.open("a.py", {"start_line": 4, "end_line": 5})
    s.render()
    s.write("a.py", "\n" + CODE)
    s.render()
    assert [e.by for e in events] == ["model", "render", "render"]
    assert events[-1].windows[0].span == (5, 6)


def test_a_window_opened_by_the_state_alone_is_placed_at_the_render(s: Session) -> None:
    s.state.open_window("a.py", parse_spec({"start": "def main"}), by="user")
    s.state.open_window("a.py", WHOLE_FILE, by="user")
    text = s.render()
    assert headers(text) == [
        "## a.py · w1 · lines 7-9 · 'def main' .. end",
        "## a.py · w2 · lines 1-9",
    ]


async def test_a_window_whose_file_became_a_link_to_a_secret_shows_a_stub(s: Session) -> None:
    from zizou.tools.close_in_workspace import TOOL as CLOSE
    from zizou.tools.close_in_workspace import CloseArgs

    s.write(".env", "API_KEY=sk-live-123\n")
    s.write("notes.txt", "plain notes\n")
    await s.open("notes.txt")
    assert "plain notes" in s.render()
    (s.root / "notes.txt").unlink()
    (s.root / "notes.txt").symlink_to(".env")
    text = s.render()
    assert "sk-live-123" not in text
    assert text == (
        "## notes.txt · w1 · whole file · .env may hold secrets, so the workspace does not show it"
    )
    closed = await CLOSE.run(CloseArgs(path="notes.txt"), s.ctx)
    assert closed.ok and s.render() == ""


async def test_a_secret_file_is_never_opened_in_the_workspace(s: Session) -> None:
    from zizou.confined import open_handle
    from zizou.tools.open_in_workspace import open_window
    from zizou.tools.read_file import FileProblem

    s.write(".env.local", "TOKEN=abc\n")
    with open_handle(s.root, ".env.local") as handle, pytest.raises(FileProblem, match="secrets"):
        open_window(handle, WHOLE_FILE, s.state, "user")
    assert s.state.windows == ()
