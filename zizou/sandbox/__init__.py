"""The OS sandbox every command zizou runs for the model goes through.

Protected paths are protected by the kernel, not by reading the command's text: bubblewrap on
Linux, `sandbox-exec` on macOS. `detect` finds out once per process whether one can run here;
a `Sandbox` turns that into the argv prefix for one command, naming the project's `.git` and
secret files, which it finds with a walk that is redone in the background after each command.

Modes (`sandbox` in config.toml, `--sandbox`): `auto` uses one when it can and says so when it
cannot; `required` refuses to run commands without one; `off` runs commands unsandboxed, as the
user chose (then only rules for programs that cannot be widened by their arguments apply).

With bubblewrap, a foreground command also gets a copy-on-write layer of its own over the
project where the system allows one (`layer`; see layer.py), so that what it changed is known.
"""

from __future__ import annotations

import contextlib
import os
import platform
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from zizou.paths import project_dir
from zizou.sandbox import bwrap, seatbelt
from zizou.sandbox.layer import Layer, inner_ids, layers_dir, probe
from zizou.sandbox.protected import ProtectedPaths, find_protected

SandboxMode = Literal["auto", "required", "off"]
SandboxKind = Literal["bwrap", "seatbelt"]
SandboxState = Literal["on", "missing", "off"]
INSTALL_HINT = (
    "install bubblewrap (`apt-get install bubblewrap`, `dnf install bubblewrap`, "
    "`pacman -S bubblewrap`)"
)


@dataclass(frozen=True)
class SandboxStatus:
    """Whether commands run sandboxed here, and if not, why."""

    mode: SandboxMode
    kind: SandboxKind | None = None
    binary: str | None = None
    problem: str | None = None  # why there is none (mode auto or required)
    network: bool = False  # the network is allowed in the sandbox by default

    @property
    def state(self) -> SandboxState:
        if self.kind is not None:
            return "on"
        return "off" if self.mode == "off" else "missing"

    def describe(self) -> str:
        """One line for the status bar, the debug log header and `-p`'s stderr."""
        match self.state:
            case "on":
                net = "network allowed" if self.network else "no network"
                return f"sandbox: {self.kind} ({net})"
            case "off":
                return 'sandbox: off (sandbox = "off"): commands run unsandboxed'
            case _:
                return f"sandbox: none ({self.problem})"

    def commands_note(self) -> str:
        """How run_bash's commands run, as the model should know it before it runs one."""
        match self.state:
            case "on":
                net = "with" if self.network else "without"
                return (
                    f"commands run with bash -c in a sandbox ({self.kind}), {net} network: the "
                    "project is writable except .git/ and .zizou/, secret files are unreadable, "
                    "the rest of the disk is read-only, /tmp is private"
                )
            case "off":
                return "commands run with bash -c, unsandboxed; the user approves them"
            case _:
                return (
                    "commands run with bash -c, unsandboxed (no sandbox here); "
                    "the user approves each"
                )

    def warning(self) -> str | None:
        """What the user is told once when commands cannot be sandboxed, or None."""
        if self.state != "missing":
            return None
        return (
            f"no sandbox for commands: {self.problem}. Every command the model runs asks first "
            "and no always-allow rule applies; to sandbox them, "
            f"{INSTALL_HINT if platform.system() == 'Linux' else 'use Linux or macOS'}; to run "
            'them unsandboxed anyway, set sandbox = "off" in config.toml.'
        )


_detected: dict[tuple[str, bool], SandboxStatus] = {}
_lock = threading.Lock()


def detect(
    mode: SandboxMode = "auto", *, network: bool = False, env: Mapping[str, str] | None = None
) -> SandboxStatus:
    """The sandbox this machine can give commands (probed once per process)."""
    if mode == "off":
        return SandboxStatus(mode, network=network)
    key = (mode, network)
    with _lock:
        if key not in _detected:
            _detected[key] = _probe(mode, network, dict(env or {"PATH": os.defpath}))
        return _detected[key]


def _probe(mode: SandboxMode, network: bool, env: dict[str, str]) -> SandboxStatus:
    system = platform.system()
    if system == "Linux":
        binary = bwrap.find_bwrap()
        if binary is None:
            return SandboxStatus(mode, problem="bwrap (bubblewrap) is not installed")
        problem = bwrap.probe(binary, env)
        if problem:
            return SandboxStatus(mode, problem=problem)
        return SandboxStatus(mode, "bwrap", binary, network=network)
    if system == "Darwin":
        found = seatbelt.find_sandbox_exec()
        if found is None:
            return SandboxStatus(mode, problem="sandbox-exec is missing")
        return SandboxStatus(mode, "seatbelt", found, network=network)
    return SandboxStatus(mode, problem=f"zizou has no sandbox for {system}")


class Sandbox:
    """The argv prefix that puts one command in the sandbox, for one project."""

    def __init__(
        self, root: Path, status: SandboxStatus, hidden_dirs: tuple[Path, ...] = ()
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.status = status
        self.hidden_dirs = hidden_dirs
        self._protected: ProtectedPaths | None = None
        self._pending: Future[ProtectedPaths] | None = None

    @property
    def active(self) -> bool:
        return self.status.kind is not None

    def prefix(
        self, *, network: bool = False, readable: Sequence[Path] = (), layer: Layer | None = None
    ) -> list[str]:
        """What to put before `bash -c COMMAND`; empty when commands run unsandboxed.
        `readable`: files the program needs that the private /tmp would hide (an MCP server's
        script), made readable (regular files only, read-only). `layer`: the command's
        copy-on-write layer (see `layer`), mounted first."""
        if self.status.kind is None:
            return []
        with contextlib.suppress(OSError):  # made now, so the sandbox hides it from the start
            project_dir(self.root)  # (an unsafe one, a symlink, is refused and left alone)
        protected = self.protected()
        allowed = network or self.status.network
        if self.status.kind == "seatbelt":
            return seatbelt.seatbelt_argv(
                self.root, protected, network=allowed, hidden_dirs=self.hidden_dirs
            )
        assert self.status.binary is not None
        argv = bwrap.bwrap_argv(
            self.root,
            protected,
            network=allowed,
            hidden_dirs=self.hidden_dirs,
            binary=self.status.binary,
            readable=readable,
        )
        if layer is None:
            return argv
        return [*layer.prefix(), argv[0], *inner_ids(), *argv[1:]]

    def layer_problem(self) -> str | None:
        """Why commands get no copy-on-write layer here, or None when they do (tried once)."""
        if self.status.kind != "bwrap":
            return "only the bubblewrap sandbox has one"
        assert self.status.binary is not None
        sandbox = bwrap.bwrap_argv(
            self.root, ProtectedPaths(), network=False, binary=self.status.binary
        )
        return probe(self.root, layers_dir(), [sandbox[0], *inner_ids(), *sandbox[1:]])

    def layer(self) -> Layer | None:
        """A new copy-on-write layer for one command, or None where there is none."""
        if self.layer_problem() is not None:
            return None
        try:
            return Layer.create(self.root, layers_dir())
        except OSError:
            return None

    def protected(self) -> ProtectedPaths:
        """The project's `.git` entries and secret files, as of the last walk."""
        pending, self._pending = self._pending, None
        if pending is not None:
            with contextlib.suppress(Exception):
                self._protected = pending.result()
        if self._protected is None:
            self._protected = find_protected(self.root)
        return self._protected

    def refresh_soon(self) -> None:
        """Walk the project again in the background: a command may have added a secret file."""
        if self.status.kind is None or self._pending is not None:
            return
        future: Future[ProtectedPaths] = Future()

        def walk() -> None:
            try:
                future.set_result(find_protected(self.root))
            except BaseException as exc:  # reported through the future, never lost
                future.set_exception(exc)

        self._pending = future
        threading.Thread(target=walk, name="zizou-sandbox-walk", daemon=True).start()


def hidden_dirs_for(config_dir: Path) -> tuple[Path, ...]:
    """Directories no command may read: zizou's config dir and the session's runtime dir."""
    found = [config_dir]
    runtime = bwrap.runtime_dir() if platform.system() == "Linux" else None
    if runtime is not None:
        found.append(runtime)
    return tuple(Path(os.path.realpath(d)) for d in found)


__all__ = [
    "Sandbox",
    "SandboxKind",
    "SandboxMode",
    "SandboxState",
    "SandboxStatus",
    "detect",
    "hidden_dirs_for",
]
