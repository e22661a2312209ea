"""The app's stylesheets, parsed once and kept between runs.

Textual parses every stylesheet at every start: the app's own 29 files and the default CSS of
each widget class on the first screen, about 20 ms of a first frame that takes 230 ms on the
development machine (a minimal Textual app parses for 3). What a parse gives depends only on the
CSS text, where it was read from, the theme's variables and Textual's code, so once the first
frame is up the parsed rules are pickled into zizou's cache dir with what made them (Textual's
build, Python's version and the variables), and the next start made the same way hands them
back to the stylesheet's own parse cache (keyed by the text and where it came from) before
Textual parses: 3 ms to read.
A stylesheet whose text changed is a new key and parsed as before; a theme change clears
Textual's cache, so it parses anew too; nothing is kept for a file that cannot be read back.

Unpickling runs code, so the file is read only when it is a regular file of the user's that no
one else may write, in the user's own cache dir (never in a project).
"""

from __future__ import annotations

import os
import pickle
import stat
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import textual
from textual.css.stylesheet import Stylesheet

MAX_BYTES = 4_000_000
PARSER = ("parse.py", "tokenize.py", "_styles_builder.py", "model.py", "styles.py", "stylesheet.py")


class ParsedStyles:
    """Where one stylesheet's parsed rules are kept (`folder`), and which keys came from there."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.restored: frozenset[object] = frozenset()

    def restore(self, sheet: Stylesheet) -> int:
        """Put the kept rules for `sheet`'s variables into its parse cache: how many."""
        made_by = _made_by(sheet)
        kept = _read(self._file(made_by))
        cache = _parse_cache(sheet)
        if cache is None or not isinstance(kept, tuple) or len(kept) != 2 or kept[0] != made_by:
            return 0  # none kept, or kept for other variables that share the file name
        entries = kept[1]
        if not isinstance(entries, dict):
            return 0
        for key, rules in entries.items():
            cache[key] = rules
        self.restored = frozenset(entries)
        return len(entries)

    def unsaved(self, sheet: Stylesheet) -> tuple[Path, bytes, dict[object, Any]] | None:
        """Where to keep `sheet`'s parsed rules, what made them and the rules, when it parsed
        anything that was not kept; None when it did not. Taken on the thread that parses."""
        cache = _parse_cache(sheet)
        keys = list(cache.keys()) if cache is not None else []
        if not keys or frozenset(keys) <= self.restored:
            return None
        entries = {key: cache[key] for key in keys}
        self.restored = frozenset(entries)
        made_by = _made_by(sheet)
        return self._file(made_by), made_by, entries

    @staticmethod
    def save(path: Path, made_by: bytes, entries: dict[object, Any]) -> bool:
        """Write them (any thread): whether it could. A full disk or a read-only cache dir
        only means the next start parses again."""
        try:
            _write(path, pickle.dumps((made_by, entries), protocol=pickle.HIGHEST_PROTOCOL))
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            return False
        return True

    def _file(self, made_by: bytes) -> Path:
        return self.folder / f"{zlib.crc32(made_by):08x}-{len(made_by)}.pickle"


def _made_by(sheet: Stylesheet) -> bytes:
    """What the parsed rules depend on besides the text: Textual, Python, the variables."""
    variables = sorted(getattr(sheet, "_variables", {}).items())
    return repr((_textual_build(), sys.version, variables)).encode()


def _textual_build() -> tuple[object, ...]:
    """Which Textual parsed: where it is installed and when its parser's files were written
    (an install or upgrade writes them anew). Not `textual.__version__`, which reads the
    installed packages' metadata: 20 ms, as long as the parse this saves."""
    parser = Path(textual.__file__).parent / "css"
    stamps = [
        (info.st_mtime_ns, info.st_size) for info in map(os.stat, map(parser.joinpath, PARSER))
    ]
    return (str(parser), *stamps)


def _parse_cache(sheet: Stylesheet) -> Any:
    """Textual's cache of parsed rules by (text, origin, ...); None if this Textual has none."""
    cache = getattr(sheet, "_parse_cache", None)
    needed = ("keys", "__getitem__", "__setitem__")
    return cache if all(hasattr(cache, name) for name in needed) else None


def _read(path: Path) -> object:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not _ours(info) or info.st_size > MAX_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return pickle.load(handle)  # the user's own file, checked above
    except Exception:  # a torn or stale file: parse as if there were none
        return None
    finally:
        os.close(fd)


def _ours(info: os.stat_result) -> bool:
    """A regular file of this user's that only this user may write."""
    mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return stat.S_ISREG(info.st_mode) and mine and not info.st_mode & 0o022


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temp = tempfile.mkstemp(prefix=".styles-", suffix=".tmp", dir=path.parent)  # 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


__all__ = ["ParsedStyles"]
