from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from zizou.contracts.state import FileView
from zizou.errors import PathError
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.edit_file import TOOL, EditFileArgs
from zizou.tools.read_file import TOOL as READ
from zizou.tools.read_file import ReadFileArgs

SECRET = "TOP-SECRET-OUTSIDE-CONTENT"

PY = """def greet(name):
    message = "hello " + name
    print(message)
    return message


def shout(name):
    print(name.upper())
    return name
"""


async def read(ctx: ToolContext, path: str) -> ToolResult:
    return await READ.run(ReadFileArgs(path=path), ctx)


async def edit(
    ctx: ToolContext, path: str, old: str, new: str, replace_all: bool = False
) -> ToolResult:
    args = EditFileArgs(path=path, old_string=old, new_string=new, replace_all=replace_all)
    return await TOOL.run(args, ctx)


@pytest.fixture
async def py(root: Path, ctx: ToolContext) -> Path:
    path = root / "greet.py"
    path.write_text(PY)
    await read(ctx, "greet.py")
    return path


async def test_replaces_one_match_and_reports_line(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "print(message)", "log(message)")
    assert result.ok, result.output
    assert py.read_text() == PY.replace("print(message)", "log(message)")
    assert "Replaced 1 occurrence" in result.output
    assert "line 3" in result.output
    assert result.diff is not None
    assert result.diff.splitlines()[:2] == ["--- a/greet.py", "+++ b/greet.py"]
    assert "-    print(message)" in result.diff.splitlines()
    assert "+    log(message)" in result.diff.splitlines()


async def test_several_matches_are_listed_by_line(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "print(", "log(")
    assert not result.ok
    assert "2 times" in result.output
    assert "lines 3, 8" in result.output
    assert "replace_all" in result.output
    assert py.read_text() == PY


async def test_replace_all_replaces_every_match(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "print(", "log(", replace_all=True)
    assert result.ok
    assert py.read_text() == PY.replace("print(", "log(")
    assert "2 occurrences" in result.output
    assert "lines 3, 8" in result.output


async def test_replace_all_reports_lines_in_the_new_file(root: Path, ctx: ToolContext) -> None:
    (root / "x.txt").write_text("A\nb\nA\n")
    await read(ctx, "x.txt")
    result = await edit(ctx, "x.txt", "A", "1\n2\n3", replace_all=True)
    assert result.ok
    assert "lines 1, 5" in result.output
    assert (root / "x.txt").read_text() == "1\n2\n3\nb\n1\n2\n3\n"


async def test_edit_without_read_is_refused(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_text("abc\n")
    result = await edit(ctx, "f.txt", "abc", "xyz")
    assert not result.ok
    assert "read_file" in result.output
    assert (root / "f.txt").read_text() == "abc\n"


async def test_edit_after_external_change_is_refused(py: Path, ctx: ToolContext) -> None:
    py.write_text(PY + "# someone else\n")
    result = await edit(ctx, "greet.py", "print(message)", "log(message)")
    assert not result.ok
    assert "changed since" in result.output
    assert py.read_text() == PY + "# someone else\n"


async def test_consecutive_edits_work_without_rereading(py: Path, ctx: ToolContext) -> None:
    assert (await edit(ctx, "greet.py", "def greet", "def welcome")).ok
    assert (await edit(ctx, "greet.py", "def shout", "def yell")).ok
    assert "def welcome" in py.read_text()
    assert "def yell" in py.read_text()


async def test_no_match_shows_closest_lines_as_a_diff(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "def shout(nam):\n    print(nam.upper())", "x")
    assert not result.ok
    assert "not found" in result.output
    assert "the closest text is at lines 7-8" in result.output
    assert "@@ -1,2 +7,2 @@" in result.output
    assert "-def shout(nam):\n-    print(nam.upper())" in result.output
    assert "+def shout(name):\n+    print(name.upper())" in result.output
    assert py.read_text() == PY


async def test_no_match_mentions_whitespace(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", '  message  =  "hello " + name', "x")
    assert not result.ok
    assert "whitespace" in result.output
    assert "matches line 2 if whitespace" in result.output
    assert '     2\t    message = "hello " + name' in result.output


async def test_no_match_with_tabs_inside_lines(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "print(message)\nreturn\tmessage", "x")
    assert "whitespace" in result.output
    assert "matches lines 3-4 if whitespace" in result.output


async def test_no_match_with_nothing_similar(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "zzzzqqqqwwww", "x")
    assert not result.ok
    assert "nothing in it looks similar" in result.output


async def test_line_number_prefixes_are_pointed_out(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "     3\t    print(message)", "x")
    assert not result.ok
    assert "line-number prefixes" in result.output


async def test_empty_old_string_is_refused(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "", "x")
    assert not result.ok
    assert "write_file" in result.output
    assert py.read_text() == PY


async def test_same_old_and_new_is_refused(py: Path, ctx: ToolContext) -> None:
    result = await edit(ctx, "greet.py", "print", "print")
    assert not result.ok
    assert "same" in result.output


async def test_missing_file_suggests_write_file(ctx: ToolContext) -> None:
    result = await edit(ctx, "nope.py", "a", "b")
    assert not result.ok
    assert "does not exist" in result.output
    assert "write_file" in result.output


async def test_directory_is_refused(root: Path, ctx: ToolContext) -> None:
    (root / "d").mkdir()
    result = await edit(ctx, "d", "a", "b")
    assert not result.ok


async def test_crlf_is_kept(root: Path, ctx: ToolContext) -> None:
    path = root / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await read(ctx, "win.txt")
    result = await edit(ctx, "win.txt", "one\ntwo\n", "uno\ndos\ndos bis\n")
    assert result.ok, result.output
    assert path.read_bytes() == b"uno\r\ndos\r\ndos bis\r\nthree\r\n"


async def test_crlf_in_old_string_matches_crlf_file(root: Path, ctx: ToolContext) -> None:
    path = root / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    await read(ctx, "win.txt")
    result = await edit(ctx, "win.txt", "one\r\ntwo", "1\r\n2")
    assert result.ok, result.output
    assert path.read_bytes() == b"1\r\n2\r\n"


async def test_lf_file_stays_lf(root: Path, ctx: ToolContext) -> None:
    path = root / "unix.txt"
    path.write_bytes(b"one\ntwo\n")
    await read(ctx, "unix.txt")
    await edit(ctx, "unix.txt", "one", "1\r\n1b")
    assert path.read_bytes() == b"1\n1b\ntwo\n"


async def test_mode_is_kept(root: Path, ctx: ToolContext) -> None:
    script = root / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o755)
    await read(ctx, "run.sh")
    assert (await edit(ctx, "run.sh", "hi", "bye")).ok
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert script.read_text() == "echo bye\n"


async def test_no_temp_files_left_after_success_or_failure(py: Path, ctx: ToolContext) -> None:
    await edit(ctx, "greet.py", "def greet", "def hi")
    await edit(ctx, "greet.py", "not there at all", "x")
    await edit(ctx, "greet.py", "print(", "x")
    assert os.listdir(py.parent) == ["greet.py"]


async def test_failed_write_leaves_file_and_no_temp(
    py: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    result = await edit(ctx, "greet.py", "def greet", "def hi")
    monkeypatch.undo()
    assert not result.ok
    assert "Input/output error" in result.output
    assert py.read_text() == PY
    assert os.listdir(py.parent) == ["greet.py"]


async def test_edit_is_recorded_so_next_check_passes(py: Path, ctx: ToolContext) -> None:
    await edit(ctx, "greet.py", "def greet", "def hi")
    assert ctx.state.check_unchanged(py.resolve(), py.read_bytes()) is None


def test_access_is_write(ctx: ToolContext) -> None:
    access = TOOL.access(EditFileArgs(path="a/b.py", old_string="x", new_string="y"), ctx)
    assert access.kind == "write"
    assert access.paths == ("a/b.py",)


def test_access_refuses_paths_outside(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in escaping:
        with pytest.raises(PathError):
            TOOL.access(EditFileArgs(path=raw, old_string="TOP", new_string="x"), ctx)


async def test_run_refuses_paths_outside(
    ctx: ToolContext, outside: Path, escaping: list[str]
) -> None:
    secret = outside / "secret.txt"
    ctx.state.record_view(secret.resolve(), secret.read_bytes(), FileView("secret"))
    for raw in escaping:
        result = await edit(ctx, raw, "TOP-SECRET", "pwned")
        assert not result.ok, raw
        assert SECRET not in result.output
    assert secret.read_text() == SECRET + "\n"


def test_schema_has_exact_arguments() -> None:
    schema = TOOL.schema()
    params = schema["function"]["parameters"]
    assert schema["function"]["name"] == "edit_file"
    assert set(params["properties"]) == {"path", "old_string", "new_string", "replace_all", "edits"}
    assert params["required"] == ["path"]
    assert params["properties"]["replace_all"]["default"] is False
    assert params["properties"]["old_string"]["type"] == "string"  # null is never offered
    one = params["properties"]["edits"]["items"]
    assert set(one["properties"]) == {"old_string", "new_string", "replace_all"}
    assert sorted(one["required"]) == ["new_string", "old_string"]
    assert "$ref" not in str(schema) and "null" not in str(schema)


async def test_a_tolerant_match_says_which_rule_in_the_first_line(
    py: Path, ctx: ToolContext, caplog: pytest.LogCaptureFixture
) -> None:
    old = "print(message)\nreturn message\n"  # the function body, without its indentation
    with caplog.at_level(logging.INFO, logger="zizou.tools.edit_file"):
        result = await edit(ctx, "greet.py", old, "log(message)\nreturn message\n")
    assert result.ok, result.output
    first = result.output.splitlines()[0]
    assert first == (
        "Replaced 1 occurrence in greet.py, starting at line 3 "
        "(matched after normalising indentation)."
    )
    assert py.read_text() == PY.replace("    print(message)", "    log(message)")
    assert "greet.py: edit 1 (matched after normalising indentation)" in caplog.text


def multi(path: str, *pairs: tuple[str, str]) -> EditFileArgs:
    edits = [{"old_string": old, "new_string": new} for old, new in pairs]
    return EditFileArgs.model_validate({"path": path, "edits": edits})


async def test_several_edits_are_made_in_order(py: Path, ctx: ToolContext) -> None:
    args = multi(
        "greet.py",
        ("def greet(name):", "def greet(name, punct):"),
        ('    message = "hello " + name', '    message = "hello " + name + punct'),
        ("print(name.upper())\nreturn name", "print(name.upper() + '!')\nreturn name"),
    )
    result = await TOOL.run(args, ctx)
    assert result.ok, result.output
    assert result.output.splitlines()[0] == (
        "Made 3 edits to greet.py: edit 1 at line 1; edit 2 at line 2; edit 3 at line 8 "
        "(matched after normalising indentation)."
    )
    text = py.read_text()
    assert "def greet(name, punct):" in text and "+ name + punct\n" in text
    assert "    print(name.upper() + '!')\n" in text
    assert ctx.state.check_unchanged(py.resolve(), py.read_bytes()) is None


async def test_one_failing_edit_makes_none(py: Path, ctx: ToolContext) -> None:
    args = multi("greet.py", ("def greet", "def hi"), ("no such text", "x"), ("shout", "yell"))
    result = await TOOL.run(args, ctx)
    assert not result.ok
    assert result.output.startswith(
        "edit 2 of 3 failed, so none was made and greet.py is unchanged: old_string was not "
        "found in greet.py"
    )
    assert py.read_text() == PY
    assert os.listdir(py.parent) == ["greet.py"]


async def test_a_later_edit_sees_the_earlier_ones(py: Path, ctx: ToolContext) -> None:
    result = await TOOL.run(multi("greet.py", ("def greet", "def hi"), ("def hi", "def hey")), ctx)
    assert result.ok, result.output
    assert py.read_text().startswith("def hey(name):")


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"old_string": "a", "new_string": "b", "edits": []}, "not both"),
        ({"edits": [{"old_string": "a", "new_string": "b"}], "replace_all": True}, "not both"),
        ({"old_string": "a"}, "give old_string and new_string"),
        ({}, "give old_string and new_string"),
        ({"edits": []}, "edits is empty"),
        ({"edits": [{"old_string": "a"}]}, "new_string"),
    ],
)
def test_the_two_forms_are_not_mixed(fields: dict[str, object], said: str) -> None:
    with pytest.raises(ValidationError) as err:
        EditFileArgs.model_validate({"path": "a.py", **fields})
    assert said in str(err.value)


async def test_an_edit_that_changes_nothing_is_refused(root: Path, ctx: ToolContext) -> None:
    (root / "t.py").write_text("x = 1\ny = 2\n")
    await read(ctx, "t.py")
    result = await edit(ctx, "t.py", "x = 1  \ny = 2", "x = 1\ny = 2")
    assert not result.ok
    assert "changes nothing" in result.output


async def test_a_tolerant_edit_keeps_crlf_and_every_other_byte(
    root: Path, ctx: ToolContext
) -> None:
    path = root / "win.py"
    data = b"def f():\r\n    a = 1   \r\n    b = 2\r\n\r\ndef g():\r\n    pass"
    path.write_bytes(data)
    await read(ctx, "win.py")
    result = await edit(ctx, "win.py", "a = 1\nb = 2\n", "a = 1\nb = 3\nc = 4\n")
    assert result.ok, result.output
    assert "line endings, trailing whitespace and indentation" in result.output
    assert path.read_bytes() == data.replace(b"b = 2\r\n", b"b = 3\r\n    c = 4\r\n")


def test_the_preview_shows_only_the_form_used(ctx: ToolContext) -> None:
    args = multi("a.py", ("x", "y"))
    access = TOOL.access(args, ctx)
    try:
        shown = TOOL.preview(args, access, ctx)
    finally:
        access.close()
    assert shown is not None
    assert "edits" in shown and "old_string" in shown and "null" not in shown
