"""The keys file, `<user config dir>/keys.toml`: the key store a user chooses explicitly (with
`zizou keys set PROVIDER --file`) when the machine has no usable OS keyring.

The keys in it are plain text, so the file is only as safe as its permissions: it is created 0600
in a 0700 dir, and zizou refuses to read or write it once it has become open to other users (any
group or world bit on the file, a group/world-writable dir, another owner, or a symlink), with a
message naming the `chmod` that fixes it. Writes go to a private temp file that replaces the old
one, so a crash never leaves a half-written or wider-open file.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tomllib
from pathlib import Path

from zizou.errors import UsageError
from zizou.paths import write_private
from zizou.user_dirs import user_config_dir

FILE_NAME = "keys.toml"
_POSIX = os.name == "posix"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_HEADER = "# zizou API keys, one per provider. Keep this file private (chmod 600).\n"


def keys_file_path() -> Path:
    return user_config_dir() / FILE_NAME


def _refuse(path: Path, why: str, fix: str) -> UsageError:
    return UsageError(f"refusing to use the keys file {path}: {why}; {fix}")


def _check_dir(folder: Path, path: Path) -> None:
    st = folder.stat()
    if not _POSIX:
        return
    if st.st_uid != os.getuid():
        raise _refuse(path, f"its folder {folder} belongs to another user", "move it aside")
    if st.st_mode & 0o022:
        mode = f"{stat.S_IMODE(st.st_mode):o}"
        why = f"its folder {folder} is writable by other users (mode {mode})"
        raise _refuse(path, why, f"run `chmod 700 {folder}`")


def _check_file(fd: int, path: Path) -> None:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, "it is not a regular file", "remove it and set the key again")
    if not _POSIX:
        return
    if st.st_uid != os.getuid():
        raise _refuse(path, "it belongs to another user", "remove it and set the key again")
    if st.st_mode & 0o077:
        mode = f"{stat.S_IMODE(st.st_mode):o}"
        why = f"other users can open it (mode {mode})"
        raise _refuse(path, why, f"run `chmod 600 {path}` and replace any key others may have read")


def _open_private(path: Path) -> int | None:
    """An fd for the file after the folder and file checks, or None when it does not exist."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refuse(path, "it is a symlink", "replace it with the file itself") from exc
        raise UsageError(f"cannot read the keys file {path}: {exc.strerror}") from exc
    try:
        _check_dir(path.parent, path)
        _check_file(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_keys(path: Path | None = None) -> dict[str, str]:
    """Every key in the file by provider; {} when there is no file."""
    path = path or keys_file_path()
    fd = _open_private(path)
    if fd is None:
        return {}
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read the keys file {path}: {exc}; fix or remove it") from exc
    keys = {name: value for name, value in data.items() if isinstance(value, str)}
    if len(keys) != len(data):
        raise UsageError(f"the keys file {path} holds something other than keys; fix or remove it")
    return keys


def _private_dir(folder: Path, path: Path) -> None:
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o700)
    _check_dir(folder, path)
    if _POSIX and stat.S_IMODE(folder.stat().st_mode) != 0o700:
        folder.chmod(0o700)  # zizou's own config dir: it holds keys now


def _render(keys: dict[str, str]) -> str:
    for name in keys:
        if not _NAME.match(name):
            raise UsageError(f"{name!r} is not a provider name zizou can store a key for")
    # JSON string escapes are valid TOML basic-string escapes.
    return _HEADER + "".join(f"{name} = {json.dumps(keys[name])}\n" for name in sorted(keys))


def write_keys(keys: dict[str, str], path: Path | None = None) -> Path:
    """Replace the file with `keys` (mode 0600, dir 0700); an empty mapping removes the file."""
    path = path or keys_file_path()
    _private_dir(path.parent, path)
    if not keys:
        path.unlink(missing_ok=True)
        return path
    write_private(path, _render(keys).encode("utf-8"), ".keys-")
    return path


def set_file_key(provider: str, key: str, path: Path | None = None) -> Path:
    path = path or keys_file_path()
    keys = read_keys(path)
    keys[provider] = key
    return write_keys(keys, path)


def delete_file_key(provider: str, path: Path | None = None) -> bool:
    """Remove the provider's key; False when the file held none."""
    path = path or keys_file_path()
    keys = read_keys(path)
    if keys.pop(provider, None) is None:
        return False
    write_keys(keys, path)
    return True


__all__ = [
    "delete_file_key",
    "keys_file_path",
    "read_keys",
    "set_file_key",
    "write_keys",
]
