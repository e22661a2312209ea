"""Writing files so that a crash never leaves half a file, and keeping a file's newline style.

write_file and edit_file both replace whole files; they share these helpers so that both keep
the file's mode and its CRLF/LF convention the same way, and show the same kind of diff.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile
from pathlib import Path

NEW_FILE_MODE = 0o644
NO_EOL = "\n\\ No newline at end of file\n"


def detect_newline(data: bytes) -> str:
    """`"\\r\\n"` when most of the file's line breaks are CRLF, else `"\\n"`."""
    crlf = data.count(b"\r\n")
    return "\r\n" if crlf and crlf >= data.count(b"\n") - crlf else "\n"


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


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` via a temp file in the same directory, keeping its mode.

    Parent directories are created. On failure the temp file is removed and the old file is
    left untouched.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.chmod(mode)
        tmp.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable; some platforms cannot open a directory, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


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
