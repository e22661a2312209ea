"""Where zizou keeps files: the user's config dir and the project's `.zizou/`.

Every user path comes from here; `ZIZOU_HOME` overrides the user config dir (tests set it).
What zizou writes under `.zizou/` goes through `write_project_file`, which never follows a
symlink the repository may ship there.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import tempfile
from pathlib import Path

from zizou import confined
from zizou.errors import PathError

PROJECT_DIR_NAME = ".zizou"
COMPILED_PROMPT = "compiled/prompt.md"
TRASH_DIR = "trash"  # under .zizou: what delete_file removed, one batch per call
DEBUG_LOG_NAME = "zizou-debug.log"
OWN_DEBUG_LOG_NAME = "zizou-debug.*.log"  # a second process's: `*` is its pid


class UnsafeProjectDir(PathError, OSError):
    """`.zizou` (or a directory or file in it) is a symlink, or cannot be made: zizou keeps no
    sessions, cache or compiled prompt there. Also an OSError, so every caller that already
    shrugs off a read-only project shrugs this off too."""


def project_dir(root: Path) -> Path:
    """`<root>/.zizou`, created with a `.gitignore` that ignores everything in it.

    It must be a real directory inside the root: a `.zizou` the repository ships as a symlink
    (to `~/.ssh`, say) is refused with UnsafeProjectDir, never written through.
    """
    try:
        confined.make_dirs(root, PROJECT_DIR_NAME)
        ignore = f"{PROJECT_DIR_NAME}/.gitignore"
        if confined.stat(root, ignore) is None:
            confined.atomic_write(root, ignore, b"*\n")
    except PathError as err:
        raise _unsafe(root, err) from err
    return root / PROJECT_DIR_NAME


def write_project_file(root: Path, name: str, data: bytes, *, durable: bool = True) -> None:
    """Write `<root>/.zizou/<name>` (e.g. `compiled/prompt.md`) whole, through directories
    opened by fd without following symlinks; new files are private (0600). `durable=False`
    for a copy rewritten at every step (no fsync)."""
    project_dir(root)
    try:
        confined.atomic_write(
            root, f"{PROJECT_DIR_NAME}/{name}", data, new_mode=0o600, durable=durable
        )
    except PathError as err:
        raise _unsafe(root, err) from err


def read_project_file(root: Path, name: str, max_bytes: int) -> bytes | None:
    """`<root>/.zizou/<name>`, read without following symlinks; None when it does not exist.

    UnsafeProjectDir when it (or a directory above it) is a symlink or too large.
    """
    path = f"{PROJECT_DIR_NAME}/{name}"
    try:
        if confined.stat(root, path) is None:
            return None
        return confined.read_bytes(root, path, max_bytes)
    except PathError as err:
        raise _unsafe(root, err) from err


def _unsafe(root: Path, err: PathError) -> UnsafeProjectDir:
    return UnsafeProjectDir(
        f"zizou's project dir {root / PROJECT_DIR_NAME} cannot be used safely: {err}. "
        f"Remove it or make it a real directory; until then zizou keeps nothing there"
    )


def debug_log_path(root: Path) -> Path:
    return root / DEBUG_LOG_NAME


def own_debug_log_path(root: Path, pid: int) -> Path:
    """The log of a process that found `zizou-debug.log` held by another zizou in the project."""
    return root / OWN_DEBUG_LOG_NAME.replace("*", str(pid))


def installed_package_file(package: str, *parts: str) -> Path | None:
    """A data file shipped inside an installed package, found without importing the package
    (litellm's import costs seconds); None when the package or the file is absent."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder).joinpath(*parts)
        if path.is_file():
            return path
    return None


def write_private(path: Path, data: bytes, prefix: str = ".zizou-") -> None:
    """Replace `path` with `data` through a temp file beside it, private to the user (0600)
    and synced before it takes the name: a crash leaves the old file or the new one, whole."""
    fd, temp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)  # 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            if os.name == "posix":
                os.fchmod(handle.fileno(), 0o600)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(temp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temp).unlink()
        raise
