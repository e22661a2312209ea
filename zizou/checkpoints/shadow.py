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

import fnmatch
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from zizou import confined
from zizou.checkpoints.blobs import CHECKPOINTS_DIR
from zizou.checkpoints.snapshot_diff import (
    Blob,
    Changed,
    Snapshot,
    SnapshotError,
    Stamp,
    feed,
    parse_raw,
    read_blob,
    stamp_of,
)
from zizou.errors import PathError
from zizou.git import Repository, git_command, git_environment
from zizou.paths import DEBUG_LOG_NAME, OWN_DEBUG_LOG_NAME, PROJECT_DIR_NAME, project_dir
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
OWN = (f"{PROJECT_DIR_NAME}/", DEBUG_LOG_NAME, OWN_DEBUG_LOG_NAME)  # a pattern, as git reads it
EXCLUDE = "".join(f"/{name}\n" for name in OWN) + "".join(
    f"{name}/\n" for name in sorted(SKIPPED_DIRS)
)
IGNORED = ("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
_locks: dict[Path, threading.Lock] = {}
_locks_lock = threading.Lock()


def _own_log(name: str) -> bool:
    """A debug log of a second zizou process in the project (`zizou-debug.PID.log`)."""
    return fnmatch.fnmatchcase(name, OWN_DEBUG_LOG_NAME)


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
            if listing.returncode != 0:  # it read the index `add` then made again: once more
                listed = self._git(IGNORED).stdout
        return Snapshot(tree, self._stamps(listed))

    def changes(self, before: str, after: str) -> list[Changed]:
        """The paths whose kept bytes or mode differ between two snapshots' trees."""
        args = ["diff-tree", "-r", "-z", "--no-renames", "--raw", before, after]
        return list(parse_raw(self._git(args).stdout))

    def blobs(self, oids: Sequence[str]) -> Iterator[tuple[str, Blob | None]]:
        """The bytes of each object (None: it is gone), in order, streamed."""
        if not oids:
            return
        proc = self._popen(["cat-file", "--batch"])
        assert proc.stdin is not None and proc.stdout is not None
        feeder = threading.Thread(target=feed, args=(proc.stdin, oids), daemon=True)
        feeder.start()
        try:
            for oid in oids:
                yield oid, read_blob(proc.stdout)
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
        without a commit) is left out and the rest added. Waits for another zizou's snapshot;
        a damaged index is dropped once (the next snapshot hashes every file again)."""
        deadline = time.monotonic() + LOCK_WAIT_S
        fresh = False
        while True:
            done = self._git(["add", "-A", "--ignore-errors"], check=False)
            locked = b"index.lock" in done.stderr
            if done.returncode in (0, 1) and not locked:
                return
            if not locked and not fresh:  # a damaged index: start again from the files
                fresh = True
                (self.git_dir / "index").unlink(missing_ok=True)
                continue
            if not locked or time.monotonic() > deadline:
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

    def _stamps(self, listed: bytes) -> dict[str, Stamp]:
        """Each ignored entry listed (the first MAX_IGNORED), zizou's own files left out, with
        its stat data."""
        found: dict[str, Stamp] = {}
        base = str(self.root)
        for name in listed.decode("utf-8", "surrogateescape").split("\0"):
            if len(found) == MAX_IGNORED:
                break
            if name and name not in OWN and not name.startswith(OWN[0]) and not _own_log(name):
                found[name] = stamp_of(f"{base}/{name}")
        return found

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


def _said(done: subprocess.CompletedProcess[bytes], what: str) -> str:
    text = done.stderr.decode("utf-8", "replace").strip().splitlines()
    errors = [line for line in text if line.startswith(("fatal:", "error:"))] or text
    return f"{what} failed ({done.returncode}): {' '.join(errors[-2:]) or 'no message'}"


__all__ = ["SHADOW_DIR", "ShadowRepo"]
