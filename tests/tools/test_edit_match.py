"""The edit engine on its own (zizou/tools/_edits): exact first, then each tolerant rule, what
a match does to the lines the model kept and wrote, ambiguity, several edits, and what is said
when nothing matches. Text in, text out: no files, no tools."""

from __future__ import annotations

import pytest

from zizou.tools._edits import Edit, EditFailed, Made, apply_edits
from zizou.tools._edits.patch import reindent
from zizou.tools._edits.rules import LINE_RULES, find_blocks, keys


def edit(text: str, old: str, new: str, replace_all: bool = False) -> tuple[str, Made]:
    out, [made] = apply_edits(text, [Edit(old, new, replace_all)], "f.py")
    return out, made


def refused(text: str, old: str, new: str = "x", replace_all: bool = False) -> str:
    with pytest.raises(EditFailed) as failed:
        apply_edits(text, [Edit(old, new, replace_all)], "f.py")
    return failed.value.reason


CLASS = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"


def test_an_exact_match_names_no_rule() -> None:
    out, made = edit(CLASS, "return 1", "return 10")
    assert out == CLASS.replace("return 1", "return 10")
    assert made.normalised == () and made.how == ""


@pytest.mark.parametrize(
    ("text", "old", "new", "expected"),
    [
        ("a\r\nb\r\nc\r\n", "a\nb", "x\ny", "x\r\ny\r\nc\r\n"),  # LF quote, CRLF file
        ("a\r\nb\r\nc\r\n", "b\nc\n", "B\n", "a\r\nB\r\n"),
        ("one\r\ntwo\r\n", "ne\ntw", "NE\nTW", "oNE\r\nTWo\r\n"),  # parts of lines too
        ("a\nb\nc\n", "a\r\nb", "x\r\ny", "x\ny\nc\n"),  # CRLF quote, LF file
    ],
)
def test_line_endings(text: str, old: str, new: str, expected: str) -> None:
    out, made = edit(text, old, new)
    assert out == expected
    assert made.normalised == ("line endings",)


def test_trailing_whitespace_kept_lines_keep_theirs() -> None:
    text = "a = 1   \nb = 2\t\nc = 3\n"
    out, made = edit(text, "a = 1\nb = 2\n", "a = 1\nb = 20\n")
    assert out == "a = 1   \nb = 20\nc = 3\n"
    assert made.how == " (matched after normalising trailing whitespace)"


def test_indentation_is_matched_and_the_new_lines_are_reindented() -> None:
    old = "def f(self):\n    return 1\n"
    new = "def f(self):\n    if self.x:\n        return 0\n    return 1\n"
    out, made = edit(CLASS, old, new)
    assert out == CLASS.replace(
        "        return 1\n", "        if self.x:\n            return 0\n        return 1\n"
    )
    assert made.normalised == ("indentation",)


def test_a_quote_indented_more_than_the_file_is_dedented() -> None:
    quoted = "        x = [\n            1,\n        ]"
    out, _ = edit("x = [\n    1,\n]\n", quoted, quoted.replace("1", "2"))
    assert out == "x = [\n    2,\n]\n"


def test_relative_indentation_must_still_agree() -> None:
    reason = refused(CLASS, "def f(self):\nreturn 1", "x")
    assert "not found" in reason


@pytest.mark.parametrize(
    ("line", "old_indent", "file_indent", "expected"),
    [
        ("    x", "    ", "        ", "        x"),
        ("x", "    ", "        ", "    x"),  # left of the quote: shifted by as many columns
        ("x", "    ", "", "x"),
        ("\tx", "\t", "\t\t", "\t\tx"),
        ("", "    ", "        ", ""),
        ("  x", "\t", "    ", "  x"),  # mixed tabs and spaces: left as written
    ],
)
def test_reindent(line: str, old_indent: str, file_indent: str, expected: str) -> None:
    assert reindent(line, old_indent, file_indent) == expected


def test_lookalikes_kept_lines_stay_ascii_and_written_lines_lose_the_same_slips() -> None:
    text = 'print("hi")  # -- note\nvalue = 1\n'
    old = "print(\u201chi\u201d)  # \u2014 note\nvalue = 1"
    new = "print(\u201chi\u201d)  # \u2014 note\nvalue = \u201ctwo\u201d"
    out, made = edit(text, old, new)
    assert out == 'print("hi")  # -- note\nvalue = "two"\n'
    assert made.normalised == ("look-alike characters",)
    assert made.how.endswith("; wrote straight quotes as the file has them)")


def test_an_ascii_quote_of_a_unicode_file_matches() -> None:
    text = 'status("thinking\u2026")\nstep = 1\n'
    out, _ = edit(text, 'status("thinking...")\nstep = 1', 'status("thinking...")\nstep = 2')
    assert out == 'status("thinking\u2026")\nstep = 2\n'


def test_blank_lines_the_model_did_not_see_stay() -> None:
    out, made = edit("a\n\nb\nc\n", "a\nb\nc", "a\nB\nc")
    assert out == "a\n\nB\nc\n"
    assert made.normalised == ("blank lines",)


def test_blank_lines_the_model_imagined_are_not_written() -> None:
    out, _ = edit("a\nb\nc\n", "a\n\nb\nc\n", "a\n\nB\nc\n")
    assert out == "a\nB\nc\n"


def test_a_blank_line_between_two_removed_lines_goes_with_them() -> None:
    out, _ = edit("a\n\nb\nc\n", "a\nb\nc\n", "c\n")
    assert out == "c\n"


def test_two_replaced_lines_keep_the_blank_line_between_them() -> None:
    out, _ = edit("a\n\nb\nc\n", "a\nb\nc\n", "A\nB\nc\n")
    assert out == "A\n\nB\nc\n"


def test_the_normalisations_compose() -> None:
    text = "def f():\n    if ok:  \n        say('it\u2019s')\n\n        return 1\n"
    old = "if ok:\n    say('it's')\n    return 1\n"
    new = "if ok:\n    say('it's')\n    return 2\n"
    out, made = edit(text, old, new)
    assert out == text.replace("return 1", "return 2")
    assert made.normalised == (
        "trailing whitespace",
        "indentation",
        "look-alike characters",
        "blank lines",
    )


def test_bytes_outside_the_block_never_change() -> None:
    text = "a\r\nb\nc  \r\nd\n"  # mixed line endings, kept as they are
    out, _ = edit(text, "c\n", "C\n")
    assert out == "a\r\nb\nC\r\nd\n"
    out, _ = edit(text, "b", "B")
    assert out == "a\r\nB\nc  \r\nd\n"


@pytest.mark.parametrize(
    ("text", "old", "new", "expected"),
    [
        ("a\nb\n", "b\n", "B", "a\nB\n"),  # exact, at the end: the final newline stays
        ("a\nb", "b", "B\n", "a\nB"),  # and none is added
        ("a  \nb", "a\nb", "a", "a  "),  # a line removed at the end of a file without one
        ("a  \nb\n", "a\nb", "a", "a  \n"),
        ("x\na  \r\nb", "a\nb", "", "x"),
    ],
)
def test_the_final_newline_stays_as_it_was(text: str, old: str, new: str, expected: str) -> None:
    assert edit(text, old, new)[0] == expected


def test_new_text_takes_the_files_newline() -> None:
    assert edit("a\nb\n", "a", "x\r\ny")[0] == "x\ny\nb\n"
    assert edit("a\r\nb\r\n", "a\r\n", "x\ny\n")[0] == "x\r\ny\r\nb\r\n"


def test_a_newline_ending_only_new_string_adds_a_line_as_an_exact_match_would() -> None:
    out, _ = edit("x = 1  \ny = 2\nz\n", "x = 1\ny = 2", "x = 1\ny = 3\n")
    assert out == "x = 1  \ny = 3\n\nz\n"


def test_a_rule_finding_two_places_refuses_with_their_lines() -> None:
    text = "if a:\n    run()\n\n  if a:\n      run()\n"
    reason = refused(text, " if a:\n     run()", "x")
    assert "after normalising indentation it matches 2 places (lines 1-2, 4-5)" in reason
    assert "replace_all" in reason


def test_overlapping_places_are_ambiguous() -> None:
    assert "2 places" in refused("x  \nx  \nx  \n", "x\nx", "y")
    assert "occurs 2 times" in refused("aaa", "aa", "b")


def test_replace_all_under_a_rule_replaces_each_place() -> None:
    text = "if a:\n    run()  \nif b:\n    run()\t\n"
    out, made = edit(text, "run()\n", "walk()\n", replace_all=True)
    assert out == "if a:\n    walk()\nif b:\n    walk()\n"
    assert len(made.starts) == 2


def test_an_earlier_rule_that_finds_one_place_wins() -> None:
    text = "    go()\n    end\n\ngo()  \nend\n"  # indentation would find both
    out, made = edit(text, "go()\nend", "stop()\nend")
    assert out == "    go()\n    end\n\nstop()\nend\n"
    assert made.normalised == ("trailing whitespace",)


def test_find_blocks_reports_what_matched_what() -> None:
    rule = LINE_RULES[-1]
    lines = ["def f():", "", "    a = 1", "    b = 2"]
    [found] = find_blocks(keys(lines, rule), keys(["a = 1", "b = 2"], rule), rule)
    assert (found.start, found.end, found.pairs) == (2, 4, ((0, 2), (1, 3)))
    assert (found.old_indent, found.file_indent) == ("", "    ")


def test_several_edits_apply_in_order_and_report_final_lines() -> None:
    text = "a\nb\nc\nd\n"
    edits = [Edit("d\n", "d\nD\n"), Edit("a\n", "0\n1\na\n"), Edit("  c", "C")]
    out, made = apply_edits(text, edits, "f.py")
    assert out == "0\n1\na\nb\nC\nd\nD\n"
    assert [out.count("\n", 0, m.starts[0]) + 1 for m in made] == [6, 1, 5]
    assert made[2].normalised == ("indentation",)


def test_an_edit_sees_the_text_the_ones_before_it_left() -> None:
    out, _ = apply_edits("x = 1\n", [Edit("x = 1", "x = 2"), Edit("x = 2", "x = 3")], "f.py")
    assert out == "x = 3\n"


def test_the_first_failing_edit_is_named() -> None:
    edits = [Edit("a", "b"), Edit("zzz", "y"), Edit("c", "d")]
    with pytest.raises(EditFailed) as failed:
        apply_edits("a\nc\n", edits, "f.py")
    assert failed.value.index == 1
    assert "not found" in failed.value.reason


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [("", "x", "use write_file"), ("same", "same", "the same"), ("a\r\n", "a\n", "the same")],
)
def test_edits_that_say_nothing_are_refused(old: str, new: str, said: str) -> None:
    assert said in refused("same\na\n", old, new)


def test_no_match_shows_the_closest_lines_as_a_diff_numbered_as_the_file() -> None:
    text = "".join(f"line_{n} = {n}\n" for n in range(1, 30))
    reason = refused(text, "line_12 = 12\nline_13 = thirteen\nline_14 = 14", "x")
    assert "the closest text is at lines 12-14" in reason
    assert "@@ -1,3 +12,3 @@" in reason
    assert "-line_13 = thirteen\n+line_13 = 13" in reason
    assert " line_12 = 12" in reason


def test_the_diff_leaves_out_what_the_rules_forgive() -> None:
    text = "def f():\n    a = 'x'  \n    b = 2\n    c = 3\n"
    reason = refused(text, "a = \u2018x\u2019\nb = 3\nc = 3", "x")
    assert "-b = 3\n+    b = 2" in reason
    assert "\n-a = " not in reason  # the look-alikes and the indentation did not stop it


def test_no_match_with_nothing_like_it() -> None:
    assert "nothing in it looks similar" in refused("a = 1\n", "zzzzqqqqwwww\nkkkkjjjj")


def test_whitespace_inside_lines_is_pointed_out() -> None:
    reason = refused("x = 1\ny = 2\n", "x  =  1", "z")
    assert "matches line 1 if whitespace is ignored" in reason
    assert "     1\tx = 1" in reason


def test_line_number_prefixes_are_pointed_out() -> None:
    assert "line-number prefixes" in refused("a = 1\nb = 2\n", "     1\ta = 1\n     2\tb = 3")
