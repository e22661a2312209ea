"""Writing files so that a crash never leaves half a file, and keeping a file's newline style.

write_file and edit_file both replace whole files; they share these helpers so that both keep
the file's mode and its CRLF/LF convention the same way, and show the same kind of diff.
"""

from __future__ import annotations

import difflib

NO_EOL = "\n\\ No newline at end of file\n"


def newline_of(text: str) -> str:
    """`"\\r\\n"` when most of the text's line breaks are CRLF, else `"\\n"`."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def to_lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def split_lines(text: str) -> list[str]:
    """Lines split on LF only (not on form feeds or U+2028 as `str.splitlines` does)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def with_newline(text: str, newline: str) -> str:
    """`text` with every line break written as `newline`."""
    text = to_lf(text)
    return text if newline == "\n" else text.replace("\n", newline)


def unified_diff(rel_path: str, old: str | None, new: str) -> str:
    """A unified diff from `old` (None for a new file) to `new`, with git-style headers."""
    before = "/dev/null" if old is None else f"a/{rel_path}"
    lines = difflib.unified_diff(
        _keep_ends(to_lf(old or "")), _keep_ends(to_lf(new)), before, f"b/{rel_path}"
    )
    return "".join(line if line.endswith("\n") else line + NO_EOL for line in lines)


def _keep_ends(text: str) -> list[str]:
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]
