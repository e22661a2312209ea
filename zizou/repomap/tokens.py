"""Counting the map's tokens with a real tokenizer, offline.

tiktoken would download cl100k_base on first use. The litellm package ships the same BPE file,
so we load it from its package directory, found without importing it (that costs seconds),
and check it against the published SHA-256. When the file or tiktoken is missing, the count falls
back to an estimate of one token per four characters, and `--stats` says so.

Loading the tokenizer takes about 0.1 s, more than ranking a mid-sized project. A map is counted
line by line (render.py), and LineCounter remembers each line's count, kept between processes in
the cache, so a map made of lines counted before needs no tokenizer at all.
"""

from __future__ import annotations

import binascii
import functools
import hashlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from zizou.paths import installed_package_file

# The cl100k_base file's name in a tiktoken cache (the SHA-1 of its URL) and its content hash.
CL100K_CACHE_NAME = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# cl100k_base's pre-tokenizer pattern, as published with the encoding.
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CHARS_PER_TOKEN = 4


class TokenCounter(Protocol):
    @property
    def name(self) -> str: ...  # shown in --stats

    @property
    def exact(self) -> bool: ...

    def count(self, text: str) -> int: ...


@dataclass
class EstimateCounter:
    """ceil(len / 4): close enough for English and code, and free."""

    name: str = "estimate (chars/4)"
    exact: bool = False

    def count(self, text: str) -> int:
        return -(-len(text) // CHARS_PER_TOKEN)


class TiktokenCounter:
    def __init__(self, encode: _Encoder) -> None:
        self.name = "cl100k_base"
        self.exact = True
        self._encode = encode

    def count(self, text: str) -> int:
        return len(self._encode.encode_ordinary(text))


class _Encoder(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


class LineCounter:
    """Counts lines with a tokenizer loaded on the first line it does not already know."""

    def __init__(
        self,
        name: str,
        exact: bool,
        load: Callable[[], TokenCounter],
        known: Mapping[bytes, int] | None = None,
    ) -> None:
        self._name = name  # what the tokenizer will be, known before it is loaded
        self._exact = exact
        self._load = load
        self._counter: TokenCounter | None = None
        self.known = dict(known or {})  # line_key(line) -> tokens, oldest first
        self.counted = 0  # lines counted with the tokenizer (not remembered)

    @property
    def name(self) -> str:
        return self._counter.name if self._counter is not None else self._name

    @property
    def exact(self) -> bool:
        return self._counter.exact if self._counter is not None else self._exact

    def load(self) -> TokenCounter:
        if self._counter is None:
            self._counter = self._load()
        return self._counter

    def count(self, line: str) -> int:
        key = line_key(line)
        tokens = self.known.pop(key, None)  # and put back last: the oldest go first
        if tokens is None:
            tokens = self.load().count(line)
            self.counted += 1
        self.known[key] = tokens
        return tokens


def line_key(line: str) -> bytes:
    """What a line's count is remembered by: a digest, so that the cache on disk holds no text
    of the project's files (a key in a default argument would otherwise be kept in clear)."""
    return hashlib.blake2b(line.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@functools.cache
def default_counter() -> TokenCounter:
    """cl100k_base from litellm's bundled copy, else the chars/4 estimate."""
    path = _bundled_cl100k()
    if path is None:
        return EstimateCounter(name="estimate (chars/4): litellm's cl100k_base file not found")
    try:
        import tiktoken

        ranks = _load_ranks(path)
        encoding = tiktoken.Encoding(
            name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens={}
        )
    except (ImportError, OSError, ValueError) as exc:
        return EstimateCounter(name=f"estimate (chars/4): cl100k_base unusable ({exc})")
    return TiktokenCounter(encoding)


def _load_ranks(path: Path) -> dict[bytes, int]:
    """The BPE ranks of a `.tiktoken` file (base64 token, rank per line), checked against the
    published hash: what tiktoken.load does, in bulk, in half the time."""
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise ValueError(f"{path} does not match cl100k_base's published SHA-256")
    fields = data.split()
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))


def default_counter_name() -> str:
    """What `default_counter()` will be, without loading it (for cache keys)."""
    found = _bundled_cl100k() is not None and importlib.util.find_spec("tiktoken") is not None
    return "cl100k_base" if found else "estimate"


@functools.cache
def _bundled_cl100k() -> Path | None:
    return installed_package_file("litellm", "litellm_core_utils", "tokenizers", CL100K_CACHE_NAME)


__all__ = [
    "EstimateCounter",
    "LineCounter",
    "TokenCounter",
    "default_counter",
    "default_counter_name",
    "line_key",
]
