"""A definition's signature, read from the source when a map is rendered.

Storing a signature for every definition would make parsing slower and the cache bigger, for the
few dozen definitions a map shows. The signature is the line holding the definition's name,
joined with the following lines while brackets stay open, so multi-line parameter lists read as
one line. That works the same way in every language and leaves out decorators and annotations
written on the lines above. A constant shows only its first line: its value may go on for pages.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from pathlib import Path

from zizou.errors import PathError
from zizou.repomap.files import SourceFile, read_source
from zizou.repomap.parse import RACY_NS

MAX_LINES = 6
KEPT_FILES = 512  # files whose signatures a SignatureCache keeps
MAX_CHARS = 160
ONE_LINE_KINDS = frozenset({"constant", "variable"})
_TRAILING_COMMENT = re.compile(r"\s+(?:#|//)(?![\[!]).*$")


class SignatureCache:
    """Signatures read before, by file and its size and mtime: a map rendered at every step
    shows mostly the same definitions, so their files are read once. A file changed within
    RACY_NS of now may hide an edit behind an equal mtime, so it is read afresh each time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._known: dict[tuple[str, int, int], dict[int, str]] = {}

    def read(
        self, file: SourceFile | None, path: str, wanted: list[tuple[int, str]]
    ) -> dict[int, str]:
        if file is None or file.mtime_ns >= time.time_ns() - RACY_NS:
            return read_signatures(self.root, path, wanted)
        key = (file.path, file.size, file.mtime_ns)
        known = self._known.pop(key, None)
        if known is None or any(line not in known for line, _ in wanted):
            known = {**(known or {}), **read_signatures(self.root, path, wanted)}
        if len(self._known) >= KEPT_FILES:
            del self._known[next(iter(self._known))]
        self._known[key] = known  # the most recently used last
        return known


def read_signatures(root: Path, path: str, wanted: Iterable[tuple[int, str]]) -> dict[int, str]:
    """Signatures by 1-based line for `wanted` (line, kind) pairs; empty if the file is gone."""
    try:
        lines = read_source(root, path)[1].split(b"\n")
    except (OSError, PathError):
        return {}
    found: dict[int, str] = {}
    for line, kind in wanted:
        if 0 < line <= len(lines):
            found[line] = signature(lines, line - 1, kind in ONE_LINE_KINDS)
    return found


def signature(lines: list[bytes], row: int, one_line: bool = False) -> str:
    first = lines[row].decode("utf-8", "replace").expandtabs(4).rstrip()
    indent = first[: len(first) - len(first.lstrip())]
    text = _TRAILING_COMMENT.sub("", first.strip())
    depth = 0 if one_line else _depth(text)
    end = row
    while depth > 0 and end + 1 < len(lines) and end - row < MAX_LINES:
        end += 1
        more = _TRAILING_COMMENT.sub("", lines[end].decode("utf-8", "replace").strip())
        glue = "" if text.endswith(("(", "[")) or more.startswith((")", "]")) else " "
        text += glue + more
        depth += _depth(more)
    text = text.replace(",)", ")").replace(",]", "]")
    if text.endswith("{") and len(text) > 1:
        text = text[:-1].rstrip()
    if len(text) > MAX_CHARS:
        text = text[: MAX_CHARS - 3] + "..."
    return indent + text


def _depth(text: str) -> int:
    return text.count("(") + text.count("[") - text.count(")") - text.count("]")


__all__ = ["SignatureCache", "read_signatures", "signature"]
