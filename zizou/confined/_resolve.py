"""Resolving a path strictly inside the project root: every component checked, every symlink
expanded here (a loop, or a link that leaves the root, is refused), every OSError a PathError.
See `zizou.confined` for why.
"""

from __future__ import annotations

import errno
import os
import stat as st
from pathlib import Path, PurePosixPath

from zizou.errors import PathError
from zizou.secret_files import is_secret_name

MAX_HOPS = 40


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
    return base.joinpath(*_Resolver(root, base, raw).run())


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
    "MAX_HOPS",
    "check_text",
    "failure",
    "read_link",
    "real_root",
    "relative",
    "resolve",
    "resolve_unasked",
]
