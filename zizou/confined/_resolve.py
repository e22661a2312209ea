"""Resolving a path strictly inside the project root: every component checked, every symlink
expanded here (a loop, or a link that leaves the root, is refused), every OSError a PathError.
See `zizou.confined` for why.

A path is also refused when the system could not use it, or when it is absurdly deep: a name
longer than NAME_MAX bytes, a whole path of PATH_MAX bytes or more, or more than MAX_DEPTH
levels below the root. Made one directory at a time by fd, such a path could be created, and
would then break every program that walks the tree by name (a recursive delete fails).
"""

from __future__ import annotations

import errno
import os
import stat as st
from functools import cache
from pathlib import Path, PurePosixPath

from zizou.errors import PathError
from zizou.secret_files import is_secret_name

MAX_HOPS = 40
MAX_DEPTH = 64  # levels below the project root a path may name
SHOWN_CHARS = 80  # of a path too long to quote whole in a message


def check_text(raw: str) -> None:
    """Refuse path text that cannot be a plain project path."""
    if not raw:
        raise PathError("the path is empty")
    bad = next((ch for ch in raw if ord(ch) < 32 or ord(ch) == 127), None)
    if bad is not None:
        raise PathError(f"the path contains a control character ({bad!r}); use a plain path")
    if raw.startswith("~"):
        raise PathError(f"{raw!r}: `~` is not expanded; give a path relative to the project root")


def real_root(root: Path) -> Path:
    return Path(os.path.realpath(root))


def resolve(root: Path, raw: str) -> Path:
    """The real path for `raw` (relative to `root`, or absolute inside it), every symlink
    expanded and kept inside the root; components that do not exist yet may end the path."""
    check_text(raw)
    base = real_root(root)
    path_max, _ = system_limits(base)
    if len(os.fsencode(raw)) >= path_max:
        raise PathError(
            f"{shown(raw)} is {len(os.fsencode(raw)):,} bytes long; the system takes paths of "
            f"at most {path_max - 1:,} bytes: use a shorter path"
        )
    parts = _Resolver(root, base, raw).run()
    check_size(base, parts, raw)
    return base.joinpath(*parts)


@cache
def system_limits(base: Path) -> tuple[int, int]:
    """PATH_MAX and NAME_MAX of the file system holding `base` (Linux's 4096 and 255 when the
    system does not say)."""
    limits = []
    for name, default in (("PC_PATH_MAX", 4096), ("PC_NAME_MAX", 255)):
        try:
            value = os.pathconf(base, name)
        except (OSError, ValueError):
            value = -1
        limits.append(value if value > 0 else default)
    return limits[0], limits[1]


def check_size(base: Path, parts: list[str], raw: str) -> None:
    """Refuse the components `parts` below `base` when the system could not use them as a
    path, or when they are more than MAX_DEPTH levels deep."""
    path_max, _ = system_limits(base)
    if len(parts) > MAX_DEPTH:
        raise PathError(
            f"{shown(raw)} is {len(parts):,} levels deep; zizou uses paths at most {MAX_DEPTH} "
            "levels below the project root: use a shallower path"
        )
    for part in parts:
        check_name(base, part, raw)
    size = len(os.fsencode(str(base.joinpath(*parts))))
    if size >= path_max:
        raise PathError(
            f"{shown(raw)} is {size:,} bytes long as a full path; the system takes paths of at "
            f"most {path_max - 1:,} bytes: use a shorter path"
        )


def check_name(base: Path, name: str, raw: str) -> None:
    """Refuse one component longer than the system's NAME_MAX."""
    _, name_max = system_limits(base)
    size = len(os.fsencode(name))
    if size > name_max:
        raise PathError(
            f"{shown(raw)}: the name {shown(name)} is {size:,} bytes long; the system takes "
            f"names of at most {name_max} bytes: use a shorter name"
        )


def shown(raw: str) -> str:
    """`raw` quoted for a message, its middle cut when it is long."""
    if len(raw) <= SHOWN_CHARS:
        return repr(raw)
    half = SHOWN_CHARS // 2
    return f"{raw[:half]!r}…{raw[-half:]!r} ({len(raw):,} characters)"


def resolve_unasked(root: Path, raw: str) -> Path:
    """`resolve`, for a file zizou reads on its own (an instruction file, a skill, a deck, a
    hook, a repo-map source, a schema): a name that may hold secrets, or a link to one, is a
    PathError. A link inside the project is no reason to trust its target: the target passes
    the rule a `read_file` of it would, and nobody is asked, so it is refused."""
    path = resolve(root, raw)
    rel = relative(root, path)
    for name in (PurePosixPath(raw).name, path.name):
        if is_secret_name(name):
            via = "" if rel == raw else f" (it links to {rel})"
            raise PathError(
                f"{raw} is not read{via}: `{name}` may hold secrets, and zizou reads secret "
                "files only when asked for them by name"
            )
    return path


class _Resolver:
    """One strict walk: `done` holds real names below the root, `todo` what is left to walk
    (last item next), each with the link whose target it came from."""

    def __init__(self, root: Path, base: Path, raw: str) -> None:
        self.roots = (base, root.absolute())
        self.base = base
        self.raw = raw
        self.done: list[str] = []
        self.todo: list[tuple[str, str | None]] = []
        self.hops = 0
        self.missing_at: int | None = None  # index in `done` of the first missing component
        start = _below(raw, self.roots)
        if start is None:
            raise PathError(self._outside())
        self._push(start, None)

    def _outside(self) -> str:
        return (
            f"{self.raw!r} resolves outside the project root ({self.base}); "
            "only paths inside the project can be used"
        )

    def _push(self, parts: list[str], link: str | None) -> None:
        self.todo.extend((part, link) for part in reversed(parts))

    def run(self) -> list[str]:
        while self.todo:
            part, link = self.todo.pop()
            if part in ("", "."):
                continue
            check_name(self.base, part, self.raw)
            if part == "..":
                self._up(link)
            elif self.missing_at is not None:
                self.done.append(part)  # below a missing directory everything is new
            else:
                self._step(part)
        return self.done

    def _up(self, link: str | None) -> None:
        if not self.done:
            if link is not None:
                raise PathError(f"{link} points outside the project root; zizou does not follow it")
            raise PathError(self._outside())
        self.done.pop()
        if self.missing_at is not None and len(self.done) <= self.missing_at:
            self.missing_at = None  # back among existing directories: strict again

    def _step(self, part: str) -> None:
        rel = "/".join([*self.done, part])
        path = self.base / rel
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            self.missing_at = len(self.done)
            self.done.append(part)
            return
        except NotADirectoryError as err:
            above = "/".join(self.done)
            raise PathError(f"{above} is not a directory, so {self.raw!r} cannot be used") from err
        except OSError as err:
            raise failure(rel, err) from err
        if st.S_ISLNK(info.st_mode):
            self._follow(path, rel)
        else:
            self.done.append(part)

    def _follow(self, path: Path, rel: str) -> None:
        self.hops += 1
        if self.hops > MAX_HOPS:
            slash = "/" if self.todo else ""
            raise PathError(
                f"{self.raw!r}: symlink loop at {rel}{slash} (more than {MAX_HOPS} links "
                "followed); use a path without it"
            )
        target = read_link(path, rel)
        parts = target.split("/")
        if target.startswith("/"):
            inside = _below(target, self.roots)
            if inside is None:
                raise PathError(
                    f"{rel} points outside the project root ({target}); zizou does not follow it"
                )
            self.done, parts = [], inside
        self._push(parts, rel)


def _below(raw: str, roots: tuple[Path, ...]) -> list[str] | None:
    """The components of `raw` below the root: all of a relative path, the tail of an absolute
    one that starts with the root; None for an absolute path elsewhere."""
    if not raw.startswith("/"):
        return raw.split("/")
    parts = PurePosixPath(raw).parts
    for root in roots:
        head = root.parts
        if parts[: len(head)] == head:
            return list(parts[len(head) :])
    return None


def read_link(path: Path, rel: str) -> str:
    """The target of the symlink at `path`; a PathError if it is no link (any more)."""
    try:
        return os.readlink(path)  # noqa: PTH115 (Path.readlink drops a trailing slash)
    except OSError as err:
        raise PathError(
            f"{rel} could not be read as a symbolic link ({err.strerror or err}); "
            "it changed while zizou was using it"
        ) from err


def failure(rel: str, err: OSError) -> PathError:
    """A PathError naming `rel` for an OSError met while walking or opening it."""
    code = err.errno
    if code == errno.ELOOP:
        why = "it is a symbolic link (or a loop of them), which zizou does not follow here"
    elif code == errno.ENOTDIR:
        why = "a part of the path is not a directory"
    elif code == errno.ENOENT:
        why = "it does not exist"
    elif code == errno.EISDIR:
        why = "it is a directory"
    elif code == errno.ENAMETOOLONG:
        why = "the name is longer than the system allows"
    elif code in (errno.EACCES, errno.EPERM):
        why = "permission denied"
    else:
        why = err.strerror or str(err)
    return PathError(f"{rel or '.'}: {why}")


def relative(root: Path, path: Path) -> str:
    """`path` relative to the real root, as a POSIX string (`.` for the root itself)."""
    text = path.relative_to(real_root(root)).as_posix()
    return text or "."


__all__ = [
    "MAX_DEPTH",
    "MAX_HOPS",
    "check_name",
    "check_size",
    "check_text",
    "failure",
    "read_link",
    "real_root",
    "relative",
    "resolve",
    "resolve_unasked",
]
