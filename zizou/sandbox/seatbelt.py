"""The macOS sandbox: `sandbox-exec` with a generated Seatbelt profile.

The same promises as bubblewrap's where macOS can keep them: writes only inside the project and
the temp dirs, never into `.git/` or `.zizou/`; secret files and zizou's config dir unreadable;
no network unless allowed. macOS has no PID namespace: other processes stay visible to `ps`
(the README says so).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from zizou.sandbox.protected import ProtectedPaths

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
TEMP_DIRS = ("/private/tmp", "/private/var/folders")


def _quote(path: Path | str) -> str:
    text = str(path).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def seatbelt_profile(
    root: Path, protected: ProtectedPaths, *, network: bool, hidden_dirs: Sequence[Path] = ()
) -> str:
    """The profile text: allow by default, then take writes, reads and network away."""
    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    writable = [f"(subpath {_quote(root)})", *(f"(subpath {_quote(d)})" for d in TEMP_DIRS)]
    writable += ['(literal "/dev/null")', '(literal "/dev/tty")', '(regex #"^/dev/fd/")']
    lines.append(f"(allow file-write* {' '.join(writable)})")
    read_only = [*(f"(subpath {_quote(g)})" for g in protected.git)]
    read_only.append(f"(subpath {_quote(root / '.zizou')})")
    lines.append(f"(deny file-write* {' '.join(read_only)})")
    hidden = [f"(literal {_quote(s)})" for s in protected.secrets]
    hidden += [f"(subpath {_quote(d)})" for d in hidden_dirs]
    hidden.append(f"(subpath {_quote(root / '.zizou')})")
    lines.append(f"(deny file-read* {' '.join(hidden)})")
    if not network:
        lines.append("(deny network*)")
        lines.append(
            '(allow network* (remote unix-socket (path-literal "/private/var/run/syslog")))'
        )
    return "\n".join(lines) + "\n"


def seatbelt_argv(
    root: Path, protected: ProtectedPaths, *, network: bool, hidden_dirs: Sequence[Path] = ()
) -> list[str]:
    profile = seatbelt_profile(root, protected, network=network, hidden_dirs=hidden_dirs)
    return [SANDBOX_EXEC, "-p", profile]


def find_sandbox_exec() -> str | None:
    return SANDBOX_EXEC if Path(SANDBOX_EXEC).exists() else shutil.which("sandbox-exec")


__all__ = ["find_sandbox_exec", "seatbelt_argv", "seatbelt_profile"]
