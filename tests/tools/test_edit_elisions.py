"""old_string lines that are only elision markers (zizou/tools/_edits/elisions.py): they stand
for the unique run of lines between their neighbours, and the same marker in new_string keeps
those lines; ambiguity, a missing marker and an unbounded one are refused with the reason."""

from __future__ import annotations

import pytest

from zizou.tools._edits import Edit, EditFailed, Made, apply_edits
from zizou.tools._edits.elisions import MAX_ELIDED, marker_pattern

LOAD = (
    "import os\n\n\ndef load(path):\n    with open(path) as f:\n        data = f.read()\n"
    "    data = data.strip()\n    return data\n\n\ndef other(path):\n    return path\n"
)


def edit(text: str, old: str, new: str, rel: str = "f.py") -> tuple[str, Made]:
    out, [made] = apply_edits(text, [Edit(old, new)], rel)
    return out, made


def refused(text: str, old: str, new: str, rel: str = "f.py") -> str:
    with pytest.raises(EditFailed) as failed:
        apply_edits(text, [Edit(old, new)], rel)
    return failed.value.reason


def test_a_unique_elided_run_is_kept_and_the_edit_lands() -> None:
    old = "def load(path):\n    # ... existing code ...\n    return data\n"
    new = "def load(path, strip=True):\n    # ... existing code ...\n    return data.upper()\n"
    out, made = edit(LOAD, old, new)
    assert out == LOAD.replace("def load(path):", "def load(path, strip=True):").replace(
        "    return data\n", "    return data.upper()\n"
    )
    assert made.how == " (lines 5-7 kept as they are for old_string's elision)"


def test_lines_added_after_the_marker_come_after_the_elided_run() -> None:
    old = "def load(path):\n    ...\n    return data\n"
    new = "def load(path):\n    ...\n    print(data)\n    return data\n"
    out, _ = edit(LOAD, old, new)
    assert "    data = data.strip()\n    print(data)\n    return data\n" in out


def test_an_ambiguous_elided_run_is_refused_naming_both_places() -> None:
    text = LOAD + "\n\ndef load(path):\n    x = 2\n    return data\n"
    old = "def load(path):\n    # ... existing code ...\n    return data\n"
    reason = refused(text, old, old.replace("return data", "return 1"))
    assert "match 3 places in f.py (lines 4-8, lines 4-17, lines 15-17)" in reason
    assert "'# ... existing code ...'" in reason


def test_new_string_without_the_marker_is_refused() -> None:
    old = "def load(path):\n    # ...\n    return data\n"
    reason = refused(LOAD, old, "def load(path):\n    return data.upper()\n")
    assert "put the same marker in new_string" in reason


def test_a_marker_without_lines_on_one_side_is_refused() -> None:
    reason = refused(LOAD, "def load(path):\n    # ...\n", "def load(p):\n    # ...\n")
    assert "quoted lines on both sides" in reason


def test_an_elided_run_longer_than_the_bound_is_not_matched() -> None:
    text = "def f():\n" + "    x = 1\n" * (MAX_ELIDED + 1) + "    return 2\n"
    reason = refused(text, "def f():\n    # ...\n    return 2\n", "def f():\n    # ...\n")
    assert "not found" in reason


def test_pieces_matched_tolerantly_are_rewritten_as_the_file_has_them() -> None:
    old = "def load(path):\n\t# ... existing code ...\n\treturn data\n"
    new = "def load(path):\n\t# ... existing code ...\n\tif data:\n\t\treturn data\n"
    out, made = edit(LOAD, old, new)
    assert "    data = data.strip()\n    if data:\n        return data\n" in out
    compile(out, "f.py", "exec")
    assert made.normalised == ("tabs and spaces",)


@pytest.mark.parametrize(
    ("rel", "line", "is_marker"),
    [
        ("a.py", "...", True),
        ("a.py", "# ... existing code ...", True),
        ("a.py", "# …", True),
        ("a.py", "// ... existing code ...", False),
        ("a.ts", "// ... rest of the function ...", True),
        ("a.ts", "/* ... */", True),
        ("a.html", "<!-- ... -->", True),
        ("a.py", "x = ...", False),
        ("a.py", "# see the docs", False),
    ],
)
def test_marker_pattern(rel: str, line: str, is_marker: bool) -> None:
    assert bool(marker_pattern(rel).fullmatch(line)) is is_marker
