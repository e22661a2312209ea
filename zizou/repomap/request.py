"""What a caller asks of the map, and what it gets back (the text and the numbers behind it)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

DEFAULT_MAP_TOKENS = 1024


@dataclass(frozen=True)
class MapRequest:
    max_tokens: int = DEFAULT_MAP_TOKENS
    focus: tuple[str, ...] = ()  # project-relative paths: pinned files, `--focus`, tool paths
    message: str = ""  # the latest user message: code identifiers and file names in it count
    identifiers: tuple[str, ...] = ()  # asked for explicitly: their definitions come first
    show_focus: bool = False  # list the focus files' own definitions first (else leave them out)
    # The focus files to leave out when not shown (None: all of them); the prompt leaves out only
    # the files the workspace shows whole, so a file open in part keeps its other definitions.
    hide: tuple[str, ...] | None = None

    def cache_key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


@dataclass(frozen=True)
class MapStats:
    MEMO_FIELDS: ClassVar[tuple[str, ...]] = (
        "definitions",
        "references",
        "shown_definitions",
        "shown_files",
        "tokens",
        "budget",
    )

    files: int = 0  # in the map's view: parsed sources and files shown by name
    sources: int = 0  # files in a language we parse
    parsed: int = 0  # read and parsed (or re-read to check) in this render
    cache_hits: int = 0  # trusted from the cache without reading
    definitions: int = 0
    references: int = 0  # distinct (file, name) uses
    shown_definitions: int = 0
    shown_files: int = 0
    tokens: int = 0
    budget: int = 0
    tokenizer: str = ""
    workers: int = 1
    memo: bool = False  # the same map for the same files and request, served as rendered before
    listed: bool = False  # the project was listed in full (else the kept listing was checked)
    list_s: float = 0.0
    parse_s: float = 0.0
    rank_s: float = 0.0
    render_s: float = 0.0

    def with_counts(self, **changes: Any) -> MapStats:
        return replace(self, **changes)

    def memo_counts(self) -> tuple[int, ...]:
        return tuple(int(getattr(self, name)) for name in self.MEMO_FIELDS)

    @classmethod
    def from_memo(cls, counts: tuple[int, ...], tokenizer: str) -> MapStats:
        values: dict[str, Any] = dict(zip(cls.MEMO_FIELDS, counts, strict=True))
        return cls(**values, tokenizer=tokenizer)

    def summary(self) -> str:
        """One line for a prompt breakdown note."""
        return (
            f"{self.tokens}/{self.budget} tokens; {self.shown_definitions} of "
            f"{self.definitions} definitions from {self.shown_files} of {self.files} files"
        )


@dataclass(frozen=True)
class MapResult:
    text: str
    stats: MapStats


__all__ = ["DEFAULT_MAP_TOKENS", "MapRequest", "MapResult", "MapStats"]
