"""Where hook files come from, and which of them may run.

Two places hold hook files, `*.py` (Python) and `*.md` (Markdown): the user's config dir
(`<config>/hooks/`, for every project) and the project (`.zizou/hooks/`). A name starting with
`.` or `_` is not a hook. Each file is read once, its text kept with the SHA-256 of the very
bytes read: what was hashed is what runs, never the file read again later.

The project's files come with the repository, so they are read through `zizou.confined`: a
`.zizou` or `.zizou/hooks` that is a symlink, or a hook file that is one, is refused, never
followed. A project's Python hook runs only once the user trusted its exact content: the
`TrustStore` (`<config>/trusted-hooks.json`, private to the user) keeps the hash trusted for
each file. The user's own hooks and Markdown hooks (text, no code) need no trust.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from zizou import confined
from zizou.errors import PathError, UsageError
from zizou.hooks.runtime import HookRuntime, HookSource, Origin
from zizou.paths import PROJECT_DIR_NAME, write_private

PROJECT_HOOKS = f"{PROJECT_DIR_NAME}/hooks"
USER_HOOKS = "hooks"
TRUST_FILE = "trusted-hooks.json"
TRUST_VERSION = 1
MAX_HOOK_BYTES = 256 * 1024
HASH_CHARS = 12  # of a hook's SHA-256, where it is shown to the user
MAX_TRUST_BYTES = 4 * 1024 * 1024
KINDS: dict[str, Literal["python", "markdown"]] = {".py": "python", ".md": "markdown"}
_POSIX = os.name == "posix"

Status = Literal["trusted", "untrusted", "changed", "no trust needed"]


def user_hooks_dir(config_dir: Path) -> Path:
    """The user's hooks, run in every project: `<config dir>/hooks`."""
    return config_dir / USER_HOOKS


def needs_trust(source: HookSource) -> bool:
    """A project's Python hook, or a command of its settings, is code the repository brought:
    it runs only once trusted."""
    return source.origin == "project" and source.kind in ("python", "command")


# A hook's file name is shown, and pasted into commands (`zizou hooks trust NAME`): plain
# names only, so a name cannot hide a shell command or a terminal escape.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _kind(name: str, warnings: list[str]) -> Literal["python", "markdown"] | None:
    if name.startswith((".", "_")):
        return None
    kind = KINDS.get(Path(name).suffix)
    if kind is not None and not _PLAIN_NAME.fullmatch(name):
        shown = name.encode("ascii", "backslashreplace").decode()
        warnings.append(
            f"a hook file is skipped: its name {shown!r} has characters other than letters, "
            "digits, '.', '_' and '-'; rename it to use it"
        )
        return None
    return kind


def _source(
    name: str, origin: Origin, kind: Literal["python", "markdown"], path: Path, data: bytes
) -> HookSource | str:
    """The hook read from `data`, or why it is skipped."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        return f"the hook {name} is skipped: it is not UTF-8 text (byte {err.start})"
    digest = hashlib.sha256(data).hexdigest()
    return HookSource(name, origin, kind, text=text, path=path, sha256=digest)


def discover(root: Path, config_dir: Path) -> tuple[list[HookSource], list[str]]:
    """The user's hooks, then the project's, each group by name, and a warning for every hook
    file that is skipped (a symlink, not a regular file, over 256 KiB, not UTF-8)."""
    warnings: list[str] = []
    user = _user_hooks(user_hooks_dir(config_dir), warnings)
    project = _project_hooks(root, warnings)
    return [*user, *project], warnings


def _add(found: list[HookSource], result: HookSource | str, warnings: list[str]) -> None:
    if isinstance(result, str):
        warnings.append(result)
    else:
        found.append(result)


def _user_hooks(folder: Path, warnings: list[str]) -> list[HookSource]:
    try:
        names = sorted(entry.name for entry in os.scandir(folder))
    except FileNotFoundError:
        return []
    except OSError as err:
        warnings.append(f"the hooks in {folder} are skipped: {err.strerror or err}")
        return []
    real = Path(os.path.realpath(folder))
    found: list[HookSource] = []
    for file_name in names:
        kind = _kind(file_name, warnings)
        if kind is None:
            continue
        name = f"user:{file_name}"
        data = _read_user_file(folder / file_name, name)
        if isinstance(data, str):
            warnings.append(data)
            continue
        _add(found, _source(name, "user", kind, real / file_name, data), warnings)
    return found


def _read_user_file(path: Path, name: str) -> bytes | str:
    """The bytes of a user's hook file, opened without following a symlink, or why not."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return (
                f"the hook {name} is skipped: it is a symbolic link ({path}); "
                "zizou does not follow it"
            )
        return f"the hook {name} is skipped: {path} cannot be read ({err.strerror or err})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return f"the hook {name} is skipped: {path} is not a regular file"
        if _POSIX and (info.st_uid != os.getuid() or info.st_mode & 0o022):
            return (
                f"the hook {name} is skipped: {path} is not yours alone to write (your hooks run "
                "without a trust check): own it, and `chmod go-w` it"
            )
        data = confined.read_fd(fd, MAX_HOOK_BYTES + 1)
    except OSError as err:
        return f"the hook {name} is skipped: {path} cannot be read ({err.strerror or err})"
    finally:
        os.close(fd)
    if len(data) > MAX_HOOK_BYTES:
        return f"the hook {name} is skipped: it is larger than {MAX_HOOK_BYTES // 1024} KiB"
    return data


def _project_hooks(root: Path, warnings: list[str]) -> list[HookSource]:
    try:
        info = confined.stat(root, PROJECT_HOOKS)
        if info is None:
            return []
        if not stat.S_ISDIR(info.st_mode):
            warnings.append(f"{PROJECT_HOOKS} is not a directory: the project's hooks are skipped")
            return []
        entries = sorted(confined.scandir(root, PROJECT_HOOKS), key=lambda entry: entry.name)
    except PathError as err:
        warnings.append(f"the project's hooks are skipped: {err}")
        return []
    folder = confined.real_root(root) / PROJECT_HOOKS
    found: list[HookSource] = []
    for entry in entries:
        kind = _kind(entry.name, warnings)
        if kind is None:
            continue
        name = f"{PROJECT_HOOKS}/{entry.name}"
        if entry.is_link:
            warnings.append(
                f"the hook {name} is skipped: it is a symbolic link (to {entry.link}); "
                "zizou does not follow it"
            )
            continue
        if not entry.is_file:
            warnings.append(f"the hook {name} is skipped: it is not a regular file")
            continue
        try:
            data = confined.read_bytes(root, name, MAX_HOOK_BYTES)
        except PathError as err:
            warnings.append(f"the hook {name} is skipped: {err}")
            continue
        _add(found, _source(name, "project", kind, folder / entry.name, data), warnings)
    return found


class TrustStore:
    """The project hooks the user trusted: `<config dir>/trusted-hooks.json`, holding
    `{"version": 1, "trusted": {"<real path of the hook file>": "<sha256>"}}`.

    A file that cannot be used (not JSON, another shape, a symlink, writable by other users)
    trusts nothing: `problem` says why, and `trust` sets it aside as `trusted-hooks.json.bad`
    before writing a new one."""

    def __init__(self, config_dir: Path) -> None:
        self.path = config_dir / TRUST_FILE
        self.problem: str | None = None
        self._trusted: dict[str, str] = self._load()

    def _load(self) -> dict[str, str]:
        self.problem = None
        try:
            return self._read()
        except _Unusable as why:
            self.problem = (
                f"the trusted hooks file {self.path} cannot be used ({why}): no project hook "
                "is trusted until it is fixed or removed (trusting a hook sets it aside)"
            )
            return {}

    def _read(self) -> dict[str, str]:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self.path, flags)
        except FileNotFoundError:
            return {}
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise _Unusable("it is a symbolic link") from err
            raise _Unusable(err.strerror or str(err)) from err
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise _Unusable("it is not a regular file")
            if _POSIX and (info.st_uid != os.getuid() or info.st_mode & 0o022):
                raise _Unusable(f"other users can change it; `chmod 600 {self.path}`")
            if info.st_size > MAX_TRUST_BYTES:
                raise _Unusable(f"it is larger than {MAX_TRUST_BYTES // (1024 * 1024)} MiB")
            data = confined.read_fd(fd, MAX_TRUST_BYTES)
        except OSError as err:
            raise _Unusable(err.strerror or str(err)) from err
        finally:
            os.close(fd)
        try:
            document = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as err:
            raise _Unusable(f"not JSON: {err}") from err
        return _trusted_of(document)

    def is_trusted(self, source: HookSource) -> bool:
        return self.status(source) in ("trusted", "no trust needed")

    def status(self, source: HookSource) -> Status:
        if not needs_trust(source):
            return "no trust needed"
        return self.status_of(_key(source), source.sha256)

    def status_of(self, key: str, sha256: str) -> Literal["trusted", "untrusted", "changed"]:
        """Whether the file `key` (its real path) is trusted with the content hashed `sha256`:
        what a hook's trust and a project's `.mcp.json` approval are both made of."""
        stored = self._trusted.get(key)
        if stored is None or not sha256:
            return "untrusted"
        return "trusted" if stored == sha256 else "changed"

    def trust(self, source: HookSource) -> None:
        """Trust `source` as it is now (its hash); saved at once, privately (0600). A
        UsageError when the file cannot be written."""
        if not needs_trust(source):
            return
        if not source.sha256 or source.path is None:
            raise ValueError(f"the hook {source.name} has no content to trust")
        self.trust_content(_key(source), source.sha256)

    def trust_content(self, key: str, sha256: str) -> None:
        """Trust the file `key` (its real path) with the content hashed `sha256`; saved at
        once. A UsageError when the trust file cannot be written."""
        trusted = self._load()  # as it is now: another zizou may have trusted one meanwhile
        if self.problem is not None:
            self._set_aside()
        trusted[key] = sha256
        document = {"version": TRUST_VERSION, "trusted": dict(sorted(trusted.items()))}
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        try:
            _write_private(self.path, text.encode("utf-8"))
        except OSError as err:
            raise UsageError(
                f"cannot save the trusted hooks file {self.path}: {err.strerror or err}"
            ) from err
        self._trusted, self.problem = trusted, None

    def _set_aside(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.replace(self.path.with_name(f"{TRUST_FILE}.bad"))


class _Unusable(Exception):
    """Why the trust file cannot be used."""


def _key(source: HookSource) -> str:
    return str(source.path) if source.path is not None else source.name


def _trusted_of(document: Any) -> dict[str, str]:
    if not isinstance(document, dict):
        raise _Unusable("not a JSON object")
    if document.get("version") != TRUST_VERSION:
        raise _Unusable(f"version {document.get('version')!r}, not {TRUST_VERSION}")
    trusted = document.get("trusted")
    if not isinstance(trusted, dict) or not all(
        isinstance(path, str) and isinstance(digest, str) for path, digest in trusted.items()
    ):
        raise _Unusable('"trusted" is not an object of paths to hashes')
    return dict(trusted)


def _write_private(path: Path, data: bytes) -> None:
    """Replace `path` with `data` through a private temp file beside it (0600, the folder made
    0700 when new): a crash leaves the old file or the new one, whole."""
    folder = path.parent
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o700)
    write_private(path, data, ".trusted-hooks-")


def admit(
    hooks: HookRuntime,
    source: HookSource,
    trust: TrustStore,
    trust_all: bool,
    say: Callable[[str], None],
    shown: str = "",
) -> bool:
    """Load `source` into `hooks` if it may run: a project's hook only once its exact text is
    trusted (`trust_all`: `--trust-hooks` trusts it now). False when it waits for trust: it is
    skipped and `say` hears why and what to do (`shown`: how to show it, after its name)."""
    if needs_trust(source) and not trust.is_trusted(source):
        if not trust_all:
            changed = trust.status(source) == "changed"
            hooks.skip(source, "changed since trusted" if changed else "not trusted")
            what = "changed since it was trusted" if changed else "not trusted yet"
            say(
                f"the hook {source.name}{shown} was not run: it is {what}. Read it, then pass "
                f"--trust-hooks or run `zizou hooks trust {source.name}`"
            )
            return False
        trust.trust(source)
        say(f"trusted the hook {source.name} (sha256 {source.sha256[:12]})")
    if (problem := hooks.add(source)) is not None:
        say(problem)
    return True


__all__ = [
    "MAX_HOOK_BYTES",
    "PROJECT_HOOKS",
    "TRUST_FILE",
    "TrustStore",
    "admit",
    "discover",
    "needs_trust",
    "user_hooks_dir",
]
