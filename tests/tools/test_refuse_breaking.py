"""`[checks] refuse_breaking`: a write that would turn a file that parses into one that does
not is refused by edit_file, replace_window and write_file, the file left as it was; without
the setting (the default) it is made."""

from __future__ import annotations

from pathlib import Path

from zizou.checks.syntax import what_breaks
from zizou.tools.base import ToolContext
from zizou.tools.edit_file import TOOL as EDIT
from zizou.tools.edit_file import EditFileArgs
from zizou.tools.read_file import TOOL as READ
from zizou.tools.read_file import ReadFileArgs
from zizou.tools.replace_window import TOOL as REPLACE
from zizou.tools.replace_window import ReplaceWindowArgs
from zizou.tools.write_file import TOOL as WRITE
from zizou.tools.write_file import WriteFileArgs

PY = "def f(x):\n    y = x\n    return y\n"
BROKEN = "def f(x):\n    y = x\n  return y\n"  # an unindent tree-sitter's grammar forgives


async def _read(ctx: ToolContext) -> None:
    assert (await READ.run(ReadFileArgs(path="m.py"), ctx)).ok


async def test_an_edit_that_breaks_the_file_is_refused_when_set(root: Path) -> None:
    ctx = ToolContext(root=root, breaking=what_breaks)
    (root / "m.py").write_text(PY)
    await _read(ctx)
    args = EditFileArgs(path="m.py", old_string="    return y", new_string="  return y")
    result = await EDIT.run(args, ctx)
    assert not result.ok
    assert result.output.startswith("m.py was not changed: it parses now")
    assert "line 3" in result.output and "IndentationError: unindent" in result.output
    assert (root / "m.py").read_text() == PY
    fixed = EditFileArgs(path="m.py", old_string="    return y", new_string="    return y + 1")
    assert (await EDIT.run(fixed, ctx)).ok


async def test_without_the_setting_the_breaking_edit_is_made(root: Path) -> None:
    ctx = ToolContext(root=root)
    (root / "m.py").write_text(PY)
    await _read(ctx)
    args = EditFileArgs(path="m.py", old_string="    return y", new_string="  return y")
    assert (await EDIT.run(args, ctx)).ok
    assert (root / "m.py").read_text() == BROKEN


async def test_write_file_and_replace_window_refuse_too(root: Path) -> None:
    ctx = ToolContext(root=root, breaking=what_breaks)
    (root / "m.py").write_text(PY)
    await _read(ctx)
    result = await WRITE.run(WriteFileArgs(path="m.py", content=BROKEN), ctx)
    assert not result.ok and "was not changed" in result.output
    window = ReplaceWindowArgs.model_validate(
        {"path": "m.py", "window": {"start_line": 3, "end_line": 3}, "content": "  return y\n"}
    )
    result = await REPLACE.run(window, ctx)
    assert not result.ok and "IndentationError" in result.output
    assert (root / "m.py").read_text() == PY
    assert (await WRITE.run(WriteFileArgs(path="new.py", content=BROKEN), ctx)).ok  # new file
