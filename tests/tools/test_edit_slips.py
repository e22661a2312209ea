"""What an edit's match proved, undone in what the model wrote (zizou/tools/_edits: slips,
units, written): look-alikes written as the file has them, tabs and spaces converted by the
file's indentation unit; text the model means kept; a call that cannot be told refused.
Every result that is Python must compile."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

from zizou.tools._edits import Edit, EditFailed, Made, apply_edits
from zizou.tools._edits.units import file_unit, measure


def edit(text: str, old: str, new: str) -> tuple[str, Made]:
    out, [made] = apply_edits(text, [Edit(old, new)], "f.py")
    compile(out, "f.py", "exec")
    return out, made


def refused(text: str, old: str, new: str) -> str:
    with pytest.raises(EditFailed) as failed:
        apply_edits(text, [Edit(old, new)], "f.py")
    return failed.value.reason


SPACED = 'def f():\n    return {"a": 2}\n\n\ndef g(x):\n    y = x\n    return y\n'
TABBED = SPACED.replace("    ", "\t")


def test_curly_quotes_in_both_strings_land_straight_and_the_message_says_so() -> None:
    out, made = edit(SPACED, "    return {“a”: 2}\n", "    return {“a”: 3, “b”: 4}\n")
    assert out == SPACED.replace('{"a": 2}', '{"a": 3, "b": 4}')
    assert made.how == (
        " (matched after normalising look-alike characters; wrote straight quotes as the "
        "file has them)"
    )


def test_a_curly_quote_the_model_adds_inside_a_string_literal_stays() -> None:
    new = '    return {“a”: 2}\n    print("“quoted” and it\u2019s")\n'
    out, _ = edit(SPACED, "    return {“a”: 2}\n", new)
    assert '    print("“quoted” and it\u2019s")\n' in out and '{"a": 2}' in out


def test_a_lookalike_never_slipped_is_left_as_written() -> None:
    out, _ = edit(SPACED, "    return {“a”: 2}\n", "    return {“a”: 2}  # \u2013 a dash\n")
    assert '    return {"a": 2}  # \u2013 a dash\n' in out


def test_a_dash_that_stood_for_two_different_texts_is_refused_where_added() -> None:
    text = "a = 1  # x - y -- z\nb = 2\n"
    reason = refused(text, "a = 1  # x — y — z\nb = 2", "a = 1  # x — y — z\nb = 2  # —")
    assert "stood for the file's '-' and '--'" in reason


def test_a_quote_both_slipped_and_real_in_the_file_is_refused_where_added() -> None:
    text = 'a = "x"\nb = "“y”"\n'
    reason = refused(text, 'a = “x”\nb = "“y”"', 'a = “x”\nb = "“y”"\nc = “z”')
    assert "cannot be told which one is meant" in reason


def test_tab_indented_strings_land_with_spaces_in_a_space_file() -> None:
    old, new = "\ty = x\n\treturn y\n", "\ty = x\n\tif y:\n\t\treturn 0\n\treturn y\n"
    out, made = edit(SPACED, old, new)
    assert out == SPACED.replace("    return y\n", "    if y:\n        return 0\n    return y\n")
    assert made.normalised == ("tabs and spaces",)
    assert "indented the new lines with 4 spaces as the file is" in made.how


def test_space_indented_strings_land_with_tabs_in_a_tab_file() -> None:
    old = "    y = x\n    return y\n"
    new = "    y = x\n    if y:\n        return 0\n    return y\n"
    out, made = edit(TABBED, old, new)
    assert out == TABBED.replace("\treturn y\n", "\tif y:\n\t\treturn 0\n\treturn y\n")
    assert "indented the new lines with tabs as the file is" in made.how


def test_a_block_quoted_two_spaces_a_level_lands_four_spaces_a_level() -> None:
    text = "class A:\n    def f(self):\n        if x:\n            y = 1\n        return 2\n"
    old = "def f(self):\n  if x:\n    y = 1\n"
    out, _ = edit(text, old, old + "    z = 2\n")
    assert "            y = 1\n            z = 2\n        return 2\n" in out


def test_a_block_quoted_with_tabs_at_several_levels_matches_a_space_file() -> None:
    text = "class A:\n    def f(self):\n        if x:\n            y = 1\n        return 2\n"
    out, made = edit(
        text, "def f(self):\n\tif x:\n\t\ty = 1\n", "def f(self):\n\tif x:\n\t\ty = 3\n"
    )
    assert out == text.replace("y = 1", "y = 3")
    assert made.normalised == ("tabs and spaces",)


def test_a_written_line_with_tabs_after_spaces_is_refused_with_the_reason() -> None:
    reason = refused(SPACED, "\ty = x\n\treturn y\n", "\ty = x\n  \treturn y\n")
    assert "mixes tabs and spaces" in reason


@pytest.mark.parametrize(
    ("lines", "unit"),
    [
        (["a", "    b", "        c", "    d"], "    "),
        (["a", "  b", "    c"], "  "),
        (["a", "\tb", "\t\tc", "    d"], "\t"),
        (["a", "b"], None),
    ],
)
def test_file_unit(lines: list[str], unit: str | None) -> None:
    assert file_unit(lines) == unit


def test_measure() -> None:
    assert measure("\t\t  ", "\t") == (2, 2)
    assert measure("          ", "    ") == (2, 2)
    assert measure("  \t", "\t") is None and measure("\t", "    ") is None


def test_the_benchmark_slip_classes_from_click_land_or_are_refused_never_wrong() -> None:
    """The classes of bench/edit_slips.py (real click modules): none wrong, nearly all land."""
    path = Path(__file__).resolve().parents[2] / "bench" / "edit_slips.py"
    spec = importlib.util.spec_from_file_location("edit_slips", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["edit_slips"] = module
    spec.loader.exec_module(module)
    landed: Counter[str] = Counter()
    for case in module.build_slip_cases(16):
        try:
            out, _ = apply_edits(case.text, [Edit(case.old, case.new)], "click.py")
        except EditFailed:
            continue
        assert case.expected is not None and out == case.expected, (case.kind, case.old)
        landed[case.kind] += 1
    assert all(landed[kind] >= 28 for kind in ("curly quotes", "tabs in a spaced file")), landed
    assert landed["elision"] >= 25 and landed["spaces in a tabbed file"] >= 28, landed
