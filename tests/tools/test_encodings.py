"""Bytes are sacred: files that are not plain UTF-8 are read, edited, rewritten and replaced
through the real tools, and every byte outside each change stays as it was, or the change is
refused with a message naming the problem. Nothing is re-encoded lossily."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from zizou.tools._encoding import decode
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.edit_file import TOOL as EDIT
from zizou.tools.edit_file import EditFileArgs
from zizou.tools.read_file import TOOL as READ
from zizou.tools.read_file import ReadFileArgs
from zizou.tools.replace_window import TOOL as REPLACE
from zizou.tools.replace_window import ReplaceWindowArgs
from zizou.tools.write_file import TOOL as WRITE
from zizou.tools.write_file import WriteFileArgs

# name: (bytes, how read_file describes it, a line to change, its replacement)
CORPUS: dict[str, tuple[bytes, str, str, str]] = {
    "latin1": (
        "# café\nname = 'naïve'\nsize = 1\n".encode("latin-1"),
        "Latin-1 (ISO-8859-1)",
        "size = 1",
        "size = 2  # à jour",
    ),
    "cp1252": (
        "# it\u2019s \u201cquoted\u201d\nprice = '€5'\nsize = 1\n".encode("cp1252"),
        "Windows-1252",
        "size = 1",
        "size = 2  # \u201cnew\u201d",
    ),
    "utf16": (
        codecs.BOM_UTF16_LE + "# wörld\r\nsize = 1\r\nend = 'ß'\r\n".encode("utf-16-le"),
        "UTF-16 (little-endian, with a byte-order mark)",
        "size = 1",
        "size = 2  # ünicode",
    ),
    "utf8bom": (
        codecs.BOM_UTF8 + "# héllo\nsize = 1\n".encode(),
        "UTF-8 with a byte-order mark",
        "size = 1",
        "size = 2  # ✓",
    ),
    "crlf_no_final_newline": (
        b"first = 1\r\nsize = 1\r\nlast = 3",
        "",
        "size = 1",
        "size = 2",
    ),
    "stray_byte": (
        "# naïve café\nbad = 'r\xe9sum\xe9'\nsize = 1\n".encode().replace(
            b"r\xc3\xa9sum", b"r\xe9sum"
        ),
        "UTF-8 with 1 byte that is not UTF-8 (line 2)",
        "size = 1",
        "size = 2  # é",
    ),
}


async def read(ctx: ToolContext, path: str) -> ToolResult:
    return await READ.run(ReadFileArgs(path=path), ctx)


async def edit(ctx: ToolContext, path: str, old: str, new: str) -> ToolResult:
    return await EDIT.run(EditFileArgs(path=path, old_string=old, new_string=new), ctx)


def spliced(data: bytes, old: str, new: str) -> bytes:
    """What a correct edit leaves: the bytes of `old`, in the file's encoding, replaced."""
    how = decode(data)
    assert how is not None
    body = data[len(how.bom) :]
    codec = how.codec
    errors = "surrogateescape" if codec == "utf-8" else "strict"
    old_b, new_b = old.encode(codec, errors), new.encode(codec, errors)
    assert body.count(old_b) == 1
    return how.bom + body.replace(old_b, new_b)


@pytest.mark.parametrize("name", sorted(CORPUS))
async def test_read_says_how_the_file_is_encoded(root: Path, ctx: ToolContext, name: str) -> None:
    data, described, _, _ = CORPUS[name]
    (root / name).write_bytes(data)
    result = await read(ctx, name)
    assert result.ok, result.output
    first = result.output.splitlines()[0]
    if described:
        assert first.startswith(f"[{name} is not plain UTF-8: {described}")
    else:
        assert first == "     1\tfirst = 1"
    assert "\udce9" not in result.output  # a stray byte is shown, never sent as a surrogate


@pytest.mark.parametrize("name", sorted(CORPUS))
async def test_an_edit_changes_only_the_bytes_it_replaces(
    root: Path, ctx: ToolContext, name: str
) -> None:
    data, _, old, new = CORPUS[name]
    path = root / name
    path.write_bytes(data)
    await read(ctx, name)
    result = await edit(ctx, name, old, new)
    assert result.ok, result.output
    assert path.read_bytes() == spliced(data, old, new)


@pytest.mark.parametrize("name", sorted(CORPUS))
async def test_a_window_replaced_keeps_every_other_byte(
    root: Path, ctx: ToolContext, name: str
) -> None:
    data, _, old, new = CORPUS[name]
    path = root / name
    path.write_bytes(data)
    await read(ctx, name)
    args = ReplaceWindowArgs(path=name, window={"regex": f"^{old}"}, content=new)
    result = await REPLACE.run(args, ctx)
    assert result.ok, result.output
    assert path.read_bytes() == spliced(data, old, new)


@pytest.mark.parametrize("name", ["latin1", "cp1252", "utf16", "utf8bom"])
async def test_a_rewrite_keeps_the_encoding_the_mark_and_the_newlines(
    root: Path, ctx: ToolContext, name: str
) -> None:
    data, _, old, new = CORPUS[name]
    path = root / name
    path.write_bytes(data)
    how = decode(data)
    assert how is not None
    result = await WRITE.run(WriteFileArgs(path=name, content=how.text.replace(old, new)), ctx)
    assert result.ok, result.output
    assert path.read_bytes() == spliced(data, old, new)


async def test_a_character_the_encoding_lacks_is_refused(root: Path, ctx: ToolContext) -> None:
    data = CORPUS["latin1"][0]
    path = root / "latin1"
    path.write_bytes(data)
    await read(ctx, "latin1")
    result = await edit(ctx, "latin1", "size = 1", "size = '€'")
    assert not result.ok
    assert "Latin-1 (ISO-8859-1)" in result.output and "U+20AC" in result.output
    assert "line 3" in result.output and "nothing was changed" in result.output
    assert path.read_bytes() == data
    result = await WRITE.run(WriteFileArgs(path="latin1", content="x = '→'\n"), ctx)
    assert not result.ok and "U+2192" in result.output
    assert path.read_bytes() == data


async def test_the_line_with_a_stray_byte_cannot_be_rewritten_from_its_shown_text(
    root: Path, ctx: ToolContext
) -> None:
    data = CORPUS["stray_byte"][0]
    path = root / "stray"
    path.write_bytes(data)
    shown = await read(ctx, "stray")
    line = next(line for line in shown.output.splitlines() if "bad" in line).split("\t", 1)[1]
    assert line == "bad = 'r\ufffdsumé'"
    result = await edit(ctx, "stray", line, "bad = 'resume'")
    assert not result.ok and "not UTF-8" in result.output
    result = await edit(ctx, "stray", "size = 1", "size = '\ufffd'")
    assert not result.ok and "cannot be written back" in result.output
    assert path.read_bytes() == data


async def test_ten_edits_in_a_row_leave_the_bytes_of_ten_splices(
    root: Path, ctx: ToolContext
) -> None:
    lines = [f"v{n} = {n}  # é".encode("cp1252") for n in range(12)]
    data = b"\r\n".join(lines)  # CRLF, no final newline, Windows-1252
    data = data.replace(b"v0", "v0 = '\u201c'".encode("cp1252") + b"; v0", 1)
    path = root / "ten.py"
    path.write_bytes(data)
    expected = data
    await read(ctx, "ten.py")
    for n in range(1, 11):
        old, new = f"v{n} = {n}", f"v{n} = {n * 100}"
        result = await edit(ctx, "ten.py", old, new)
        assert result.ok, result.output
        expected = spliced(expected, old, new)
        assert path.read_bytes() == expected
    assert not path.read_bytes().endswith(b"\n")
