"""Snapshots of the project's files before and after each command, in a shadow git repository.

A command can change any file, so undo cannot keep files one by one as the file tools do. Before
a command runs, the project's files are added to a git repository of zizou's own,
`.zizou/checkpoints/snapshots.git` (its own index and objects, the project as its work tree;
the project's `.git` is never read or written), and the tree is written; after the command,
again. The two trees say exactly which files the command created, changed or deleted, and hold
their bytes. Its index keeps each file's stat data, so a snapshot of an unchanged tree only
stats the files (`bench/snapshots.py`).

What a snapshot leaves out: what the project's ignore rules ignore (its `.gitignore` files and
its repository's `info/exclude`), the directories every zizou walk skips (`node_modules/`,
`.venv/`, ...) and zizou's own files. Those are listed (ignored directories as one entry) with
their stat data, so that a command that changes, deletes or creates one can be named as not
restorable. Git is run as `zizou.git` runs it (nothing in a repository's config runs code), with
the user's and the system's git config ignored and every conversion (line endings, filters)
switched off by the repository's own `info/attributes`, so the bytes kept are the bytes on disk.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from zizou import confined
from zizou.checkpoints.blobs import CHECKPOINTS_DIR, MAX_SAVED_BYTES
from zizou.errors import PathError
from zizou.git import Repository, git_command, git_environment
from zizou.paths import DEBUG_LOG_NAME, PROJECT_DIR_NAME, project_dir
from zizou.sessions.records import UnkeptChange
from zizou.skipped_dirs import SKIPPED_DIRS
from zizou.trace.git_exclude import exclude_file

SHADOW_DIR = f"{CHECKPOINTS_DIR}/snapshots.git"
TIMEOUT_S = 120.0  # a first snapshot hashes every file; a later one only stats them
LOCK_WAIT_S = 5.0  # for another zizou's snapshot of the same project to end
STALE_LOCK_S = 300.0  # an index.lock this old was left by a zizou that died mid-snapshot
MAX_IGNORED = 20_000  # ignored entries watched per snapshot; past this, they are not named
GRACE = "1.hour.ago"  # objects younger than this may be another zizou's snapshot, in progress
PRUNE_EVERY_S = 86_400.0
PRUNED = "pruned"  # its mtime: when unneeded objects were last pruned

CONFIG = b"""[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = true
\tsymlinks = true
\tignorecase = false
\tautocrlf = false
\tsafecrlf = false
\tuntrackedCache = true
\tfsmonitor = false
[index]
\tversion = 4
[gc]
\tauto = 0
[advice]
\taddEmbeddedRepo = false
"""
# Highest precedence of all attributes: the bytes are kept as they are on disk.
ATTRIBUTES = b"* -text -eol -filter -ident -working-tree-encoding -diff -merge\n"
OWN = (f"{PROJECT_DIR_NAME}/", DEBUG_LOG_NAME)
EXCLUDE = "".join(f"/{name}\n" for name in OWN) + "".join(
    f"{name}/\n" for name in sorted(SKIPPED_DIRS)
)
IGNORED = ("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
EMPTY_MODE = "000000"
REGULAR = ("100644", "100755")
LINK, GITLINK = "120000", "160000"

_locks: dict[Path, threading.Lock] = {}
_locks_lock = threading.Lock()

Stamp = tuple[int, int, int, int]  # an ignored entry's mode, size, mtime and inode
MISSING: Stamp = (0, 0, 0, 0)


class SnapshotError(Exception):
    """The project's files could not be snapshotted; the message says why."""


@dataclass(frozen=True)
class Snapshot:
    """The project's files at one moment: the tree of what is kept, and the stat data of each
    ignored entry (a wholly ignored directory is one entry, `dir/`)."""

    tree: str
    ignored: dict[str, Stamp] = field(default_factory=dict)
    ignored_cut: bool = False  # there were more than MAX_IGNORED


@dataclass(frozen=True)
class Entry:
    """A path in a tree: its git mode (`100644`, `100755`, `120000` a link, `160000` a nested
    repository) and object id."""

    mode: str
    oid: str

    @property
    def regular(self) -> bool:
        return self.mode in REGULAR


@dataclass(frozen=True)
class Changed:
    """A path that differs between two snapshots (None: it was not there)."""

    path: str
    before: Entry | None
    after: Entry | None


@dataclass(frozen=True)
class Blob:
    """A file's bytes read back from a snapshot: their SHA-256, and the bytes themselves unless
    they are over MAX_SAVED_BYTES (then only hashed)."""

    sha256: str
    data: bytes | None


class ShadowRepo:
    """The shadow repository of the project at `root`, made on first use."""

    def __init__(self, root: Path, timeout_s: float = TIMEOUT_S) -> None:
        self.root = root
        self.timeout_s = timeout_s
        self.git_dir = root / SHADOW_DIR
        self._ready = False
        self._excludes: str | None = None  # the project repository's info/exclude, if any
        with _locks_lock:
            self._lock = _locks.setdefault(root.resolve(), threading.Lock())

    def snapshot(self) -> Snapshot:
        """The project's files now (one zizou snapshot at a time per project)."""
        with self._lock:
            self._prepare()
            # The ignored entries are listed meanwhile: listing takes no lock, and what `add`
            # adds was never ignored.
            listing = self._popen(IGNORED, feed=False)
            try:
                self._add()
                tree = self._git(["write-tree"]).stdout.decode("ascii").strip()
                listed, _ = listing.communicate(timeout=self.timeout_s)
            except subprocess.TimeoutExpired as err:
                raise SnapshotError(f"listing the ignored files took over {err.timeout} s") from err
            finally:
                if listing.poll() is None:
                    listing.kill()
                listing.wait()
            if listing.returncode != 0:
                raise SnapshotError(f"git ls-files failed ({listing.returncode})")
        return Snapshot(tree, *self._stamps(listed))

    def changes(self, before: str, after: str) -> list[Changed]:
        """The paths whose kept bytes or mode differ between two snapshots' trees."""
        args = ["diff-tree", "-r", "-z", "--no-renames", "--raw", before, after]
        return list(_parse_raw(self._git(args).stdout))

    def blobs(self, oids: Sequence[str]) -> Iterator[tuple[str, Blob | None]]:
        """The bytes of each object (None: it is gone), in order, streamed."""
        if not oids:
            return
        proc = self._popen(["cat-file", "--batch"])
        assert proc.stdin is not None and proc.stdout is not None
        feeder = threading.Thread(target=_feed, args=(proc.stdin, oids), daemon=True)
        feeder.start()
        try:
            for oid in oids:
                yield oid, _read_blob(proc.stdout)
        finally:
            proc.kill()
            proc.wait()
            feeder.join()

    def prune(self, max_age_s: float, now: float | None = None) -> None:
        """At start-up: a repository unused for `max_age_s` goes whole; otherwise, once a day,
        the objects no snapshot needs any more (older than an hour) go."""
        now = time.time() if now is None else now
        try:
            index = confined.stat(self.root, f"{SHADOW_DIR}/index")
            pruned = confined.stat(self.root, f"{SHADOW_DIR}/{PRUNED}")
        except PathError:
            return
        if index is None:
            return
        with self._lock:
            if now - index.st_mtime > max_age_s:
                self._remove()
            elif pruned is None or now - pruned.st_mtime > PRUNE_EVERY_S:
                self._prepare()
                self._git(["prune", f"--expire={GRACE}"])
                confined.atomic_write(self.root, f"{SHADOW_DIR}/{PRUNED}", b"", durable=False)

    # The work.

    def _prepare(self) -> None:
        """Make the repository, or check that its config and rules are still zizou's."""
        if self._ready:
            return
        try:
            project_dir(self.root)
            for name in ("objects", "refs", "info"):
                confined.make_dirs(self.root, f"{SHADOW_DIR}/{name}")
            self._own("HEAD", b"ref: refs/heads/snapshots\n")
            self._own("config", CONFIG)
            self._own("info/attributes", ATTRIBUTES)
            self._own("info/exclude", EXCLUDE.encode())
        except PathError as err:
            raise SnapshotError(f"the snapshot store could not be made: {err}") from err
        found = exclude_file(self.root)
        self._excludes = str(found) if found is not None and found.is_file() else os.devnull
        self._ready = True

    def _own(self, name: str, data: bytes) -> None:
        rel = f"{SHADOW_DIR}/{name}"
        try:
            same = confined.read_bytes(self.root, rel, len(data) + 1) == data
        except PathError:
            same = False
        if not same:
            confined.atomic_write(self.root, rel, data, new_mode=0o600)

    def _add(self) -> None:
        """Update the index from the work tree; a file git cannot read (or a nested repository
        without a commit) is left out and the rest added. Waits for another zizou's snapshot."""
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            done = self._git(["add", "-A", "--ignore-errors"], check=False)
            if done.returncode in (0, 1) and b"index.lock" not in done.stderr:
                return
            if b"index.lock" not in done.stderr or time.monotonic() > deadline:
                raise SnapshotError(_said(done, "git add"))
            self._clear_stale_lock()
            time.sleep(0.05)

    def _clear_stale_lock(self) -> None:
        lock = self.git_dir / "index.lock"
        try:
            if time.time() - lock.lstat().st_mtime > STALE_LOCK_S:
                lock.unlink()
        except OSError:
            pass

    def _stamps(self, listed: bytes) -> tuple[dict[str, Stamp], bool]:
        """Each ignored entry listed, zizou's own files left out, with its stat data; and
        whether there were more than MAX_IGNORED."""
        found: dict[str, Stamp] = {}
        base = str(self.root)
        for name in listed.decode("utf-8", "surrogateescape").split("\0"):
            if not name or name in OWN or name.startswith(OWN[0]):
                continue
            if len(found) == MAX_IGNORED:
                return found, True
            found[name] = _stamp(f"{base}/{name}")
        return found, False

    def _remove(self) -> None:
        try:
            if confined.stat(self.root, SHADOW_DIR) is not None:
                shutil.rmtree(self.git_dir)
        except (PathError, OSError):
            pass
        self._ready = False

    def _argv(self, args: Sequence[str]) -> list[str]:
        repo = Repository(self.git_dir, self.root)
        return git_command(repo, ["-c", f"core.excludesFile={self._excludes}", *args])

    def _env(self) -> dict[str, str]:
        env = git_environment(os.environ, self.root)
        env["GIT_CONFIG_GLOBAL"] = os.devnull
        return env

    def _git(self, args: Sequence[str], check: bool = True) -> subprocess.CompletedProcess[bytes]:
        try:
            done = subprocess.run(
                self._argv(args),
                cwd=self.root,
                env=self._env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=self.timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired as err:
            why = f"git {args[0]} took over {self.timeout_s:.0f} s"
            raise SnapshotError(f"the snapshot was given up: {why}") from err
        except OSError as err:
            raise SnapshotError(f"git could not be started: {err}") from err
        if check and done.returncode != 0:
            raise SnapshotError(_said(done, f"git {args[0]}"))
        return done

    def _popen(self, args: Sequence[str], feed: bool = True) -> subprocess.Popen[bytes]:
        try:
            return subprocess.Popen(
                self._argv(args),
                cwd=self.root,
                env=self._env(),
                stdin=subprocess.PIPE if feed else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as err:
            raise SnapshotError(f"git could not be started: {err}") from err


def ignored_changes(
    root: Path, before: Snapshot, after: Snapshot
) -> list[tuple[str, UnkeptChange]]:
    """The ignored entries a command created, changed or deleted: (path, which). An entry no
    longer listed as it was (the ignore rules changed, or a directory is now listed file by
    file) is looked at where it is."""
    found: list[tuple[str, UnkeptChange]] = []
    for name, stamp in before.ignored.items():
        now = after.ignored.get(name)
        if now is None:
            now = _stamp(root / name)
            if now == MISSING:
                found.append((name, "deleted"))
                continue
        if now != stamp:
            found.append((name, "changed"))
    hidden = was_ignored(before)
    found += [(name, "created") for name in after.ignored if not hidden(name)]
    return sorted(found)


def was_ignored(snapshot: Snapshot) -> Callable[[str], bool]:
    """Whether a path was ignored in `snapshot` (listed, or in a directory listed whole): one
    that a later snapshot keeps is then not new, only no longer ignored."""
    collapsed = {name for name in snapshot.ignored if name.endswith("/")}
    return lambda name: name in snapshot.ignored or _above(name, collapsed)


def _above(name: str, dirs: set[str]) -> bool:
    """Whether a directory that holds `name` is one of `dirs`."""
    parts = name.rstrip("/").split("/")
    return any("/".join(parts[:n]) + "/" in dirs for n in range(1, len(parts)))


def _stamp(path: str | Path) -> Stamp:
    try:
        info = os.lstat(path)
    except OSError:
        return MISSING
    return (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino)


def _said(done: subprocess.CompletedProcess[bytes], what: str) -> str:
    text = done.stderr.decode("utf-8", "replace").strip().splitlines()
    errors = [line for line in text if line.startswith(("fatal:", "error:"))] or text
    return f"{what} failed ({done.returncode}): {' '.join(errors[-2:]) or 'no message'}"


def _parse_raw(out: bytes) -> Iterator[Changed]:
    """`diff-tree --raw -z`: `:MODE MODE OID OID STATUS\\0PATH\\0` per path."""
    parts = out.split(b"\0")
    for head, raw in zip(parts[0::2], parts[1::2], strict=False):
        fields = head.decode("ascii").lstrip(":").split()
        if len(fields) < 5:
            continue
        old_mode, new_mode, old_oid, new_oid = fields[:4]
        before = None if old_mode == EMPTY_MODE else Entry(old_mode, old_oid)
        after = None if new_mode == EMPTY_MODE else Entry(new_mode, new_oid)
        yield Changed(raw.decode("utf-8", "surrogateescape"), before, after)


def _feed(stdin: IO[bytes], oids: Iterable[str]) -> None:
    try:
        for oid in oids:
            stdin.write(f"{oid}\n".encode("ascii"))
        stdin.close()
    except (OSError, ValueError):
        pass  # git was stopped early: the reader gave up


def _read_blob(out: IO[bytes]) -> Blob | None:
    """One answer of `cat-file --batch`: `OID TYPE SIZE\\n` and the bytes, or `OID missing`."""
    header = out.readline().split()
    if len(header) != 3:
        if not header:
            raise SnapshotError("git cat-file ended early")
        return None
    size, hasher, kept = int(header[2]), hashlib.sha256(), bytearray()
    left = size
    while left:
        chunk = out.read(min(left, 1 << 20))
        if not chunk:
            raise SnapshotError("git cat-file ended early")
        hasher.update(chunk)
        if size <= MAX_SAVED_BYTES:
            kept += chunk
        left -= len(chunk)
    out.read(1)  # the newline after the bytes
    return Blob(hasher.hexdigest(), bytes(kept) if size <= MAX_SAVED_BYTES else None)


__all__ = [
    "SHADOW_DIR",
    "Blob",
    "Changed",
    "Entry",
    "ShadowRepo",
    "Snapshot",
    "SnapshotError",
    "ignored_changes",
    "was_ignored",
]
