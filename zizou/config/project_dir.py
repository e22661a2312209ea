"""The project directory a run starts in, checked before anything else is loaded: the app
draws its first frame for it before the run's options are resolved (`zizou.config.options`)."""

from __future__ import annotations

from pathlib import Path

from zizou.errors import UsageError


def project_dir(cwd: Path | None) -> Path:
    """`-C DIR` or the current directory, resolved; a UsageError when it is no directory."""
    root = (cwd or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory: pass an existing project with -C")
    return root


__all__ = ["project_dir"]
