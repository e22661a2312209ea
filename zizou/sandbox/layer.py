"""A command's own copy-on-write layer over the project, so that what it changed is known.

Without one, a snapshot before and after a command sees every change made while it ran: the
user's editor saving a file, another zizou's tools. With one, the command sees the project
through an overlay file system whose upper directory takes every write it makes; the real
project is not touched while it runs, and when it ends its changes are moved in from the upper
directory (`layer_apply.py`), which says exactly what it created, changed and deleted.

On Linux the overlay is mounted in a user and mount namespace of the command's own
(`unshare`, unprivileged since kernel 5.11), on top of the project, then the usual bubblewrap
sandbox is started inside it and binds that overlay as the project. The upper and work
directories live in zizou's cache directory, outside the project (overlayfs refuses an upper
directory inside its lower one); on the same file system, applying a change is a rename.
`probe` tries a whole layer once per project: where it fails, commands run as before and their
changes cannot be attributed (see zizou/checkpoints/commands.py). A layer whose zizou died
before applying it (kill -9) is found by the next zizou in the project (`left_behind`) and
applied then, so a command's work is never lost.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat as st
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from zizou.user_dirs import user_cache_dir

LAYERS = "layers"
OWNER = "owner"  # in a layer's directory: when it was made, and the project it lies over
PROBE_TIMEOUT_S = 10.0
# The clock file change times are read from (Linux's CLOCK_REALTIME_COARSE: Python 3.11 does
# not name it): a change made after a reading of it never has an earlier time.
COARSE_CLOCK = getattr(time, "CLOCK_REALTIME_COARSE", 5)
# Mounts the overlay on the project ($1) with the upper ($2) and work ($3) directories, then
# runs the sandbox (the rest of the arguments) inside it; exit 125 when it cannot be mounted.
MOUNT = (
    'mount -t overlay zizou-layer -o "lowerdir=$1,upperdir=$2,workdir=$3,userxattr" "$1" '
    '|| { echo "zizou: the copy-on-write layer could not be mounted" >&2; exit 125; }; '
    'shift 3; exec "$@"'
)
UNSAFE = (",", ":", "\\", '"', "\n")  # characters the mount options cannot carry


def layers_dir() -> Path:
    """Where layers are made: zizou's cache dir (under ZIZOU_HOME when it is set)."""
    return user_cache_dir() / LAYERS


class Layer:
    """One command's layer over the project at `root`: made by `create`, mounted by the argv
    `prefix` gives, read and removed by `layer_apply.apply_layer` once the command ended.
    `started_ns` is when it was made, in the clock file change times use: a project file whose
    change time is not before it changed while the command ran."""

    def __init__(self, root: Path, directory: Path, started_ns: int) -> None:
        self.root = root
        self.directory = directory
        self.started_ns = started_ns

    @property
    def upper(self) -> Path:
        return self.directory / "upper"

    @property
    def work(self) -> Path:
        return self.directory / "work"

    @classmethod
    def create(cls, root: Path, base: Path) -> Layer:
        """A new, empty layer in `base` (an OSError when it cannot be made)."""
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        directory = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=base))
        layer = cls(root, directory, time.clock_gettime_ns(COARSE_CLOCK))
        try:
            layer.upper.mkdir()
            layer.work.mkdir()
            (directory / OWNER).write_text(f"{layer.started_ns}\n{root}")
        except OSError:
            layer.remove()
            raise
        return layer

    def prefix(self) -> list[str]:
        """What goes before the sandbox's argv: the namespaces and the mount."""
        ids = ["--map-root-user"]  # the command's uid is given back by bwrap (`inner_ids`)
        argv = ["unshare", "--user", *ids, "--mount", "--propagation", "private"]
        return [*argv, "sh", "-c", MOUNT, "sh", str(self.root), str(self.upper), str(self.work)]

    def remove(self) -> None:
        """Delete the layer's directories (the work directory holds entries no one may read)."""
        for path in (self.work / "work", self.work, self.upper, self.directory):
            with contextlib.suppress(OSError):
                path.chmod(0o700)
        shutil.rmtree(self.directory, ignore_errors=True)


def left_behind(root: Path, base: Path) -> list[Layer]:
    """The layers over `root` whose zizou ended before it could apply them (killed, crashed),
    each claimed by this process (renamed, so that no other zizou applies it too)."""
    found: list[Layer] = []
    root = Path(os.path.realpath(root))  # as the sandbox names it
    with contextlib.suppress(OSError):
        for directory in sorted(base.iterdir()):
            owner, _, _ = directory.name.partition("-")
            if not owner.isdigit() or _alive(int(owner)):
                continue
            try:
                started, lower = (directory / OWNER).read_text().split("\n", 1)
                if lower != str(root):
                    continue
                claimed = base / f"{os.getpid()}-left-{directory.name}"
                directory.rename(claimed)
            except (OSError, ValueError):
                continue
            found.append(Layer(root, claimed, int(started)))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def inner_ids() -> list[str]:
    """The bwrap options that give the command the user's own ids inside the layer's
    namespace, where the user is root (nothing to give for root itself)."""
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        return []
    return ["--unshare-user", "--uid", str(uid), "--gid", str(gid)]


def unusable(root: Path) -> str | None:
    """Why a layer cannot be put over `root` at all, or None."""
    if any(char in str(root) for char in UNSAFE):
        return "the project's path holds a character the overlay's options cannot carry"
    for program in ("unshare", "mount"):
        if shutil.which(program) is None:
            return f"`{program}` is not installed"
    return None


_probed: dict[tuple[Path, Path], str | None] = {}
_probe_lock = threading.Lock()


def probe(root: Path, base: Path, sandbox_argv: list[str]) -> str | None:
    """None when a layer works over `root` here (tried once per project and process, with
    the sandbox's own argv), else why not."""
    key = (root, base)
    with _probe_lock:
        if key not in _probed:
            _probed[key] = unusable(root) or _try(root, base, sandbox_argv)
        return _probed[key]


def _try(root: Path, base: Path, sandbox_argv: list[str]) -> str | None:
    try:
        layer = Layer.create(root, base)
    except OSError as err:
        return f"its directory could not be made in {base}: {err.strerror or err}"
    try:
        argv = [*layer.prefix(), *sandbox_argv, "true"]
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
            stdin=subprocess.DEVNULL, check=False, cwd=root,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as err:
        return f"the overlay could not be tried ({err})"
    finally:
        layer.remove()
    if done.returncode != 0:
        words = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return f"the overlay cannot be mounted here ({words})"
    return None


def is_whiteout(info: os.stat_result) -> bool:
    """An overlay's mark of a deleted entry: a character device 0/0."""
    return st.S_ISCHR(info.st_mode) and info.st_rdev == 0


__all__ = [
    "Layer",
    "inner_ids",
    "is_whiteout",
    "layers_dir",
    "left_behind",
    "probe",
    "unusable",
]
