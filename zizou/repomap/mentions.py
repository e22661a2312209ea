"""What a user's message points at: identifiers that look like code, and project files by name.

Only words that look like code count as identifiers (`snake_case`, `camelCase`, `Dotted.names`,
words in backticks or before `(`), so an English "run the tests" does not pull every `run` and
`test` definition to the top of the map. A file counts when the message names its path, a
trailing part of it (`core/prompt.py`), or a file name that only one project file has.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATHLIKE = re.compile(r"[\w.\-/]+")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")
MIN_IDENTIFIER = 3


@dataclass(frozen=True)
class Mentions:
    identifiers: tuple[str, ...]  # sorted, unique
    files: tuple[str, ...]  # project-relative paths, sorted, unique


def find_mentions(text: str, paths: Sequence[str]) -> Mentions:
    """Identifiers and project files named in `text`; `paths` are the project's files."""
    if not text.strip():
        return Mentions((), ())
    return Mentions(tuple(sorted(code_identifiers(text))), tuple(sorted(_files(text, paths))))


def code_identifiers(text: str) -> set[str]:
    found: set[str] = set()
    for match in _WORD.finditer(text):
        word = match.group()
        if len(word) < MIN_IDENTIFIER:
            continue
        before = text[match.start() - 1] if match.start() else ""
        after = text[match.end()] if match.end() < len(text) else ""
        if _looks_like_code(word) or before in ("`", ".") or after in ("`", "("):
            found.add(word)
    return found


def _looks_like_code(word: str) -> bool:
    return "_" in word.strip("_") or _CAMEL.search(word) is not None


def _files(text: str, paths: Sequence[str]) -> set[str]:
    words = {w.strip(".-/") for w in _PATHLIKE.findall(text) if "." in w or "/" in w}
    words.discard("")
    if not words:
        return set()
    by_name: dict[str, list[str]] = {}
    for path in paths:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    exact = set(paths)
    found: set[str] = set()
    for word in sorted(words):
        if word in exact:
            found.add(word)
        elif "/" in word:
            found.update(p for p in paths if p.endswith("/" + word))
        elif len(by_name.get(word, ())) == 1:
            found.add(by_name[word][0])
    return found


__all__ = ["Mentions", "code_identifiers", "find_mentions"]
