"""The MCP servers of a session: which files name them, which may start, and the manager.

Flag files (`--mcp-config`) come first, then the project's `.mcp.json`, then the user's own
`mcp.json`; a name given twice keeps the first. The project's servers start only when the file
is approved as it is (`trust.py`); otherwise they are listed as waiting, the front end asks
(the app) or says how to approve them (`zizou -p`: `zizou mcp approve`), and none starts.
Naming the project's file with `--mcp-config` approves it for that run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from zizou.mcp.config import ConfigFile, merged, read_flag, read_project, read_user
from zizou.mcp.connection import Launch
from zizou.mcp.manager import McpServers
from zizou.mcp.tool_cache import ToolCache
from zizou.mcp.trust import Approval, approval, approve


@dataclass
class McpSetup:
    servers: McpServers
    warnings: list[str] = field(default_factory=list)
    waiting: ConfigFile | None = None  # the project's file, when it awaits the user's approval
    state: Approval = "no approval needed"  # the waiting file's: unapproved or changed

    def approve_waiting(self, config_dir: Path) -> list[str]:
        """The user approved the project's file as it was read: remember its hash and start
        its servers; the names started. A UsageError when the approval cannot be saved."""
        waiting = self.waiting
        if waiting is None:
            return []
        approve(waiting, config_dir)
        names = [spec.name for spec in waiting.servers if spec.name in self.servers.names()]
        self.servers.approve(names)
        self.waiting, self.state = None, "approved"
        return names


def open_servers(
    root: Path, config_dir: Path, flag_files: tuple[Path, ...], launch: Launch
) -> McpSetup:
    """The session's servers, not started yet (`McpServers.start`). A ValueError names a flag
    file that cannot be read."""
    flags = [read_flag(path) for path in flag_files]
    named = {_real(found.path) for found in flags}
    project = read_project(root)
    if project is not None and _real(project.path) in named:
        project = None  # named on the command line: approved for this run
    user = read_user(config_dir)
    files = [*flags, *(f for f in (project, user) if f is not None)]
    specs, problems = merged(files)
    setup = McpSetup(McpServers(launch, ToolCache(config_dir)), list(problems))
    waiting_names: set[str] = set()
    if project is not None and project.servers:
        state = approval(project, config_dir)
        if state != "approved":
            setup.waiting, setup.state = project, state
            waiting_names = {spec.name for spec in project.servers}
            what = "changed since you approved it" if state == "changed" else "not approved yet"
            names = ", ".join(sorted(waiting_names))
            setup.warnings.append(
                f"the MCP servers of {project.path.name} ({names}) were not started: the file is "
                f"{what}. Read it, then run `zizou mcp approve` (the app asks)"
            )
    for spec in specs:
        waits = spec.scope == "project" and spec.name in waiting_names
        setup.servers.add([spec], approved=not waits)
    return setup


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


__all__ = ["McpSetup", "open_servers"]
