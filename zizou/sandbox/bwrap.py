"""The Linux sandbox: bubblewrap (`bwrap`) around `bash -c`.

Inside, the whole file system is read-only but for the project (writable) and a private `/tmp`;
the project's `.git` entries are bound read-only on top, its secret files and zizou's own
`.zizou/` are masked, and so are zizou's config dir (it may hold the key file) and the user's
runtime dir (the keyring's D-Bus socket lives there). A new PID namespace shows no process from
outside (so `/proc/$PPID/environ` reaches nothing), a new network namespace has only loopback
unless the network is allowed, and the sandbox dies with zizou.

zizou's own Python (its environment, and its package for an editable install) stays visible,
read-only, even when it lives under `/tmp` (a CI checkout): what zizou runs in the sandbox (a
compute deck's worker, a checker from the project's environment) needs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from zizou.sandbox.protected import ProtectedPaths

PROBE_TIMEOUT_S = 10.0


def bwrap_argv(
    root: Path,
    protected: ProtectedPaths,
    *,
    network: bool,
    hidden_dirs: Sequence[Path] = (),
    binary: str = "bwrap",
    readable: Sequence[Path] = (),
) -> list[str]:
    """The bwrap arguments (up to and including `--`) for a command run in `root`.

    Later binds win over earlier ones, so the order is: the read-only system, the private
    `/tmp` (but for zizou's own files and the `readable` files in it), the
    writable project, then what is protected inside it.
    """
    argv = [binary, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not network:
        argv.append("--unshare-net")
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for own in [*zizou_dirs_in(Path("/tmp")), *_files_in(Path("/tmp"), readable)]:
        argv += ["--ro-bind-try", str(own), str(own)]
    for directory in hidden_dirs:
        if directory.is_dir() and not _contains(directory, root):
            argv += ["--tmpfs", str(directory), "--remount-ro", str(directory)]
    argv += ["--bind", str(root), str(root)]
    for git in protected.git:
        argv += ["--ro-bind-try", str(git), str(git)]
    zizou_dir = root / ".zizou"
    if zizou_dir.is_dir() and not zizou_dir.is_symlink():
        argv += ["--tmpfs", str(zizou_dir), "--remount-ro", str(zizou_dir)]
    for secret in protected.secrets:
        if secret.exists():  # gone since the walk: binding would create it
            argv += ["--ro-bind", "/dev/null", str(secret)]
    argv += ["--chdir", str(root), "--"]
    return argv


def zizou_dirs_in(folder: Path) -> list[Path]:
    """zizou's Python environment and package directories that lie inside `folder`."""
    import zizou

    found: list[Path] = []
    for place in (sys.prefix, sys.base_prefix, Path(zizou.__file__).parent):
        path = Path(place).resolve()
        if _contains(folder, path) and path != folder and path not in found:
            found.append(path)
    return found


def _files_in(folder: Path, paths: Sequence[Path]) -> list[Path]:
    """The regular files among `paths` that lie inside `folder` (each alone: not its folder's
    other files, nor a socket or a directory)."""
    found: list[Path] = []
    for path in paths:
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if real.is_file() and _contains(folder, real) and real not in found:
            found.append(real)
    return found


def _contains(outer: Path, inner: Path) -> bool:
    """True when hiding `outer` would hide `inner` too (the project lives inside it)."""
    return inner == outer or inner.is_relative_to(outer)


def find_bwrap() -> str | None:
    return shutil.which("bwrap")


def probe(binary: str, env: dict[str, str]) -> str | None:
    """None when bwrap can build the namespaces it needs here, else why not (its own words)."""
    argv = [binary, "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/"]
    argv += ["--proc", "/proc", "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap could not start ({exc})"
    if done.returncode != 0:
        words = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return f"bwrap cannot create its namespaces here ({words})"
    return None


def runtime_dir() -> Path | None:
    """The user's runtime dir (`/run/user/UID`), where the D-Bus session socket lives."""
    path = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    return Path(path) if Path(path).is_dir() else None


__all__ = ["bwrap_argv", "find_bwrap", "probe", "runtime_dir"]
