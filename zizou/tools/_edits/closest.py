"""What edit_file says when old_string is nowhere in the file, so that the next try lands.

It names the closest region (the lines most like old_string's, line by line) and shows how it
differs from what the model sent, as a short unified diff whose `+` lines are the file's,
numbered as the file numbers them. Differences the tolerant rules forgive are left out of that
diff, so it points at what kept the match from landing. When only whitespace inside lines
differs (which a diff cannot show), it says so and shows the lines instead.
"""

from __future__ import annotations

import difflib
import re

from zizou.tools._atomic import split_lines
from zizou.tools._edits.rules import LINE_RULES, common_indent, key
from zizou.tools.read_file import format_line

MAX_SIMILARITY_LINES = 20_000
MIN_LIKENESS = 0.5  # of a line's trigrams, on average, for a window to be worth showing
MAX_DIFF_LINES = 40
EXCERPT_CONTEXT = 2
_NUMBER_PREFIX = re.compile(r"^\s*\d+\t")
LOOSEST = LINE_RULES[-1]


def explain_no_match(rel: str, text: str, old: str) -> str:
    """Why `old` (LF line endings, like `text`) is not in `rel`, and what is there instead."""
    lines, wanted = split_lines(text), split_lines(old)
    hint = ""
    if all(_NUMBER_PREFIX.match(line) for line in wanted if line.strip()):
        hint = "\nold_string seems to include read_file's line-number prefixes; leave them out."
    found = _whitespace_match(lines, wanted)
    if found is not None:
        head = (
            f"old_string was not found in {rel}, but it matches {_span(found, len(wanted))} "
            "if whitespace is ignored; copy the indentation and spacing exactly "
            "(tabs vs spaces count):"
        )
        return head + "\n" + _excerpt(lines, found, len(wanted)) + hint
    found = _most_similar(lines, wanted)
    if found is None:
        return (
            f"old_string was not found in {rel}, and nothing in it looks similar; "
            "read_file it again to see its current content" + hint
        )
    size = max(len(wanted), 1)
    head = (
        f"old_string was not found in {rel}; the closest text is at {_span(found, size)}. "
        "How it differs (- what you sent, + what the file has; whitespace at line ends, the "
        "block's indentation and look-alike characters do not count):"
    )
    diff = _diff(wanted, lines[found : found + size], found)
    tail = "\nCopy the lines as the file has them, or read_file it again."
    return head + "\n" + diff + tail + hint


def _whitespace_match(lines: list[str], wanted: list[str]) -> int | None:
    """The first line of a window equal to `wanted` when runs of whitespace are ignored."""
    target = "\n".join(" ".join(line.split()) for line in wanted)
    if not target.strip():
        return None
    flat = [" ".join(line.split()) for line in lines]
    for start in range(len(lines) - len(wanted) + 1):
        if target in "\n".join(flat[start : start + len(wanted)]):
            return start
    return None


def _most_similar(lines: list[str], wanted: list[str]) -> int | None:
    """The first line of the window, as many lines long as `wanted`, most like it line by line;
    None when no window is even half like it.

    A line is scored by how much of the wanted line it holds (its character trigrams, spacing
    ignored), so a longer file line holding a partial-line old_string scores in full; a little
    of the reverse breaks ties in favour of the line that holds little else.
    """
    if not lines or len(lines) > MAX_SIMILARITY_LINES:
        return None
    wanted_grams = [_grams(line) for line in wanted]
    counted = [k for k, grams in enumerate(wanted_grams) if grams]
    if not counted:
        return None
    file_grams = [_grams(line) for line in lines]
    best, best_start = 0.0, 0
    for start in range(max(1, len(lines) - len(wanted) + 1)):
        score = 0.0
        for k in counted:
            if start + k < len(lines):
                score += _likeness(wanted_grams[k], file_grams[start + k])
        if score > best:
            best, best_start = score, start
    return best_start if best >= MIN_LIKENESS * len(counted) else None


def _grams(line: str) -> frozenset[str]:
    flat = " ".join(line.split())
    if len(flat) < 3:
        return frozenset([flat]) if flat else frozenset()
    return frozenset(flat[i : i + 3] for i in range(len(flat) - 2))


def _likeness(wanted: frozenset[str], there: frozenset[str]) -> float:
    if not there:
        return 0.0
    shared = len(wanted & there)
    return shared / len(wanted) + 0.1 * shared / len(there)


def _diff(sent: list[str], there: list[str], first: int) -> str:
    """A unified diff from the lines sent to the file's (numbered from the file's line `first`,
    0-based), in which lines that differ only in what the tolerant rules forgive (whitespace at
    the ends, indentation as a whole, look-alikes) count as the same and show as the file has
    them; cut after MAX_DIFF_LINES lines."""
    matcher = difflib.SequenceMatcher(None, _loose(sent), _loose(there), autojunk=False)
    lines: list[str] = []
    for group in matcher.get_grouped_opcodes(2):
        i1, j1, i2, j2 = group[0][1], group[0][3], group[-1][2], group[-1][4]
        lines.append(f"@@ -{i1 + 1},{i2 - i1} +{first + j1 + 1},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + line for line in there[b1:b2]]
                continue
            lines += ["-" + line for line in sent[a1:a2]]
            lines += ["+" + line for line in there[b1:b2]]
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"[... {len(lines) - MAX_DIFF_LINES} more diff lines]"]
    return "\n".join(lines)


def _loose(lines: list[str]) -> list[str]:
    """The lines as the loosest rule compares them: each line's indentation within the block,
    and the rest with look-alikes folded and trailing whitespace gone."""
    keys = [key(line, LOOSEST) for line in lines]
    common = common_indent([k.indent for k in keys if not k.blank])
    return [k.indent[len(common) :] + k.body for k in keys]


def _span(start: int, size: int) -> str:
    """Lines from 0-based `start`, in words: "line 4" or "lines 4-6"."""
    return f"line {start + 1}" if size <= 1 else f"lines {start + 1}-{start + size}"


def _excerpt(lines: list[str], start: int, size: int) -> str:
    first = max(0, start - EXCERPT_CONTEXT)
    last = min(len(lines), start + max(size, 1) + EXCERPT_CONTEXT, first + 40)
    return "\n".join(format_line(n + 1, lines[n]) for n in range(first, last))
