"""Definitions and references in one source file, read with tree-sitter and our own queries.

tree-sitter-language-pack 0.13.0 bundles the grammars but no tag queries, so `queries/*.scm` are
ours. Each query captures only name nodes: `@definition.<kind>` on the name of a class, function,
type..., `@reference.<kind>` on a name the file uses. `@reference.weak` marks a use that may well
not mean the project's definition: a member of some object (`x.text`: whose `text`?) or a bare
name passed as a value (perhaps a local variable), which the ranking trusts less. Signatures are not
stored: the few definitions a map shows have theirs read from the source when it is rendered
(signatures.py). Queries are compiled once per language per process, never per file.
"""

from __future__ import annotations

import functools
import marshal
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from importlib import resources
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from tree_sitter import Parser, Query

Definition = tuple[str, int, str]  # (name, 1-based line, kind: "class", "function", ...)
Reference = tuple[str, int, int]  # (name, uses, weak uses)

TAGS_VERSION = 1  # bump when extraction changes in a way the queries do not show
GENERATED_MARKERS = (b"@generated", b"DO NOT EDIT", b"do not edit")
GENERATED_SCAN_BYTES = 1024
_START = attrgetter("start_byte")
_TEXT = attrgetter("text")
_ROW = attrgetter("start_point.row")


@dataclass(frozen=True)
class LanguageSpec:
    grammar: str  # name for tree_sitter_language_pack.get_language
    queries: tuple[str, ...]  # .scm files in queries/, concatenated


LANGUAGES: dict[str, LanguageSpec] = {
    "python": LanguageSpec("python", ("python",)),
    "javascript": LanguageSpec("javascript", ("ecmascript", "javascript", "jsx")),
    "typescript": LanguageSpec("typescript", ("ecmascript", "typescript")),
    "tsx": LanguageSpec("tsx", ("ecmascript", "typescript", "jsx")),
    "go": LanguageSpec("go", ("go",)),
    "rust": LanguageSpec("rust", ("rust",)),
    "java": LanguageSpec("java", ("java",)),
    "kotlin": LanguageSpec("kotlin", ("kotlin",)),
    "c": LanguageSpec("c", ("c",)),
    "cpp": LanguageSpec("cpp", ("cpp",)),
    "csharp": LanguageSpec("csharp", ("csharp",)),
    "ruby": LanguageSpec("ruby", ("ruby",)),
    "php": LanguageSpec("php", ("php",)),
}

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".c": "c",
    ".h": "cpp",  # C++ headers are common and the C++ grammar reads C headers too
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
}


@dataclass(frozen=True, slots=True)
class FileTags:
    """What the map knows about one parsed file; plain tuples so the cache can store them."""

    language: str
    defs: tuple[Definition, ...]  # sorted by line, then name
    refs: tuple[Reference, ...]  # sorted by name


def pack_tags(tags: FileTags) -> bytes:
    """The tags as the cache keeps them: one `marshal`led blob per file, decoded only when the
    ranking graph must be rebuilt."""
    return marshal.dumps((tags.defs, tags.refs))


def unpack_tags(language: str, blob: bytes) -> FileTags:
    """The tags `pack_tags` packed; ValueError when the blob holds something else."""
    try:
        packed = marshal.loads(blob)
    except (EOFError, TypeError) as exc:
        raise ValueError(f"unreadable tags: {exc}") from exc
    if type(packed) is tuple and len(packed) == 2:
        defs, refs = packed
        if type(defs) is tuple and type(refs) is tuple:
            return FileTags(language, defs, refs)
    raise ValueError("tags of the wrong shape")


def language_for(path: str) -> str | None:
    """The language of a project-relative path by its suffix, or None for other files."""
    dot = path.rfind(".")
    if dot <= path.rfind("/"):
        return None
    return EXTENSIONS.get(path[dot:].lower())


def is_generated(data: bytes) -> bool:
    """True when the head of a file says a tool wrote it (`@generated`, `DO NOT EDIT`)."""
    head = data[:GENERATED_SCAN_BYTES]
    return any(marker in head for marker in GENERATED_MARKERS)


def extract_tags(language: str, data: bytes) -> FileTags:
    """Definitions and reference counts of one file's source.

    This runs for every file of a cold map, so it stays close to the C side: nodes are read in
    bulk, deduplicated by start byte (a name two patterns capture counts once, a strong use
    beating a weak one, and a definition's own name is no use), and counted with Counter.
    """
    from tree_sitter import QueryCursor

    tree = _parser(language).parse(data)
    captures = QueryCursor(_query(language)).captures(tree.root_node)
    defs: dict[tuple[int, str], Definition] = {}
    def_starts: set[int] = set()
    strong: dict[int, bytes | None] = {}
    weak: dict[int, bytes | None] = {}
    for capture, nodes in captures.items():
        group, _, kind = capture.partition(".")
        if group == "definition":
            def_starts.update(map(_START, nodes))
            for row, raw in zip(map(_ROW, nodes), map(_TEXT, nodes), strict=True):
                name = _text(raw)
                if (row, name) not in defs:  # the first pattern to name it gives its kind
                    defs[row, name] = (name, row + 1, kind)
        else:
            found = weak if kind == "weak" else strong
            found.update(zip(map(_START, nodes), map(_TEXT, nodes), strict=True))
    refs = _count(_uses(strong, def_starts), _uses(weak, def_starts, strong.keys()))
    return FileTags(language, tuple(map(defs.__getitem__, sorted(defs))), refs)


def _uses(found: dict[int, bytes | None], *beaten: Collection[int]) -> Counter[bytes]:
    """How often each name in `found` is used, leaving out the starts a definition or a
    stronger use holds: usually none, which the disjointness tests see without a set."""
    if all(found.keys().isdisjoint(starts) for starts in beaten):
        return Counter(filter(None, found.values()))
    kept = found.keys() - set().union(*beaten)
    return Counter(filter(None, map(found.__getitem__, kept)))


def _count(strong: Counter[bytes], weak: Counter[bytes]) -> tuple[Reference, ...]:
    names = sorted(strong.keys() | weak.keys())
    texts = map(bytes.decode, names, repeat("utf-8"), repeat("replace"))
    uses = map(strong.get, names, repeat(0))
    weak_uses = map(weak.get, names, repeat(0))
    return tuple(zip(texts, uses, weak_uses, strict=True))


def _text(raw: bytes | None) -> str:
    return (raw or b"").decode("utf-8", "replace")


@functools.cache
def tags_fingerprint() -> str:
    """Changes whenever the queries (or this module's idea of a tag) change: cached tags made
    with other queries are stale."""
    import hashlib

    folder = resources.files("zizou.repomap") / "queries"
    digest = hashlib.blake2b(f"tags-v{TAGS_VERSION}".encode(), digest_size=12)
    for name in sorted({q for spec in LANGUAGES.values() for q in spec.queries}):
        digest.update(name.encode() + b"\0" + (folder / f"{name}.scm").read_bytes())
    return digest.hexdigest()


@functools.cache
def _parser(language: str) -> Parser:
    from tree_sitter_language_pack import get_parser

    parser: Parser = get_parser(cast(Any, LANGUAGES[language].grammar))
    return parser


@functools.cache
def _query(language: str) -> Query:
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    spec = LANGUAGES[language]
    folder = resources.files("zizou.repomap") / "queries"
    source = "\n".join((folder / f"{name}.scm").read_text("utf-8") for name in spec.queries)
    return Query(get_language(cast(Any, spec.grammar)), source)


__all__ = [
    "EXTENSIONS",
    "LANGUAGES",
    "Definition",
    "FileTags",
    "Reference",
    "extract_tags",
    "is_generated",
    "language_for",
    "pack_tags",
    "tags_fingerprint",
    "unpack_tags",
]
