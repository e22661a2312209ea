"""A session with nobody at the keyboard to ask: `zizou -p`, `zizou run`, and what a front end
says of a session's servers and jobs. Whatever the policy would ask about is denied (the model
is told how a user could approve it) unless `--allow` or `--yes` approved it up front."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from zizou.contracts.protocols import Approval, Model, PermissionRequest
from zizou.session.assembly import build_session

if TYPE_CHECKING:
    from zizou.config.options import RunOptions
    from zizou.mcp.status import ServerStatus
    from zizou.session.kernel import Session


class HeadlessApprover:
    """Nobody is there to ask: deny, and tell the model how a user could approve it."""

    async def ask(self, request: PermissionRequest) -> Approval:
        hook = _hook_reason(request.reason)
        if hook is not None:
            how = f"{hook}; a hook asks for it, so only a person can approve it (not --yes)"
        elif request.kind == "commit":
            how = f"a commit needs the user's approval: they can re-run with --allow {request.tool}"
        elif request.protected:
            how = "protected paths are never written or deleted without a person approving it"
        elif request.kind == "exec" and request.suggested_rules:
            flags = " ".join(f"--allow {_quoted(f'run_bash:{r}')}" for r in request.suggested_rules)
            how = f"the user can re-run with {flags} added, or with --yes"
        elif request.kind == "exec":
            how = f"{request.reason}; the user can re-run with --yes"
        elif request.kind == "mcp":
            server = request.tool.split("__")[1] if request.tool.count("__") >= 2 else "it"
            how = (
                f"the user can re-run with --allow {request.tool} (or "
                f"--allow {_quoted(f'mcp__{server}__*')} for every tool of {server}) or --yes"
            )
        else:
            how = f"the user can re-run with --allow {request.tool} or --yes"
        why = f"zizou is running headless and nothing approved this; {how}"
        return Approval("deny", why, by="headless")


def _hook_reason(reason: str) -> str | None:
    """What a hook's `ask` said (`hook:NAME: why`), when the question is a hook's."""
    at = 0 if reason.startswith("hook:") else reason.find("; hook:") + 2
    return reason[at:] if at == 0 or at > 1 else None


def _quoted(text: str) -> str:
    """`text` in single quotes, as a shell reads it back (`'run_bash:rm -rf '"'"'a b'"'"''`)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def open_unattended(
    options: RunOptions,
    say: Callable[[str], None],
    model: Model | None = None,
    *,
    persist: bool = True,
) -> Session:
    """The session `zizou -p` runs: the model `options` name (or `model`), asking nobody, its
    MCP servers given up to `[mcp] startup_wait_s` to be ready so that the first request offers
    their tools; `say` hears the warnings. `persist=False` keeps no session file (`zizou run`:
    the trace is its record)."""
    if model is None:
        from zizou.config.model_choice import open_model

        model = open_model(
            options.model,
            options.api_base,
            options.api_key_value,
            say,
            retry=options.retry,
            timeouts=options.timeouts,
            protocol=options.protocol,
        )
    session = build_session(options, model, HeadlessApprover(), persist=persist)
    wait_for_servers(session, options.mcp.startup_wait_s, say)
    return session


def wait_for_servers(session: Session, limit_s: float, say: Callable[[str], None]) -> None:
    """Give the MCP servers up to `limit_s` to be ready; `say` names those still starting,
    which the run goes on without."""
    if session.mcp is None:
        return
    slow = session.mcp.servers.wait_started(limit_s)
    if slow:
        names = ", ".join(slow)
        which = f"server {names} is" if len(slow) == 1 else f"servers {names} are"
        them = "it" if len(slow) == 1 else "them"
        say(
            f"the MCP {which} not ready after {limit_s:g} s (`[mcp] startup_wait_s` in "
            f"config.toml): the run goes on without waiting for {them}"
        )


def watch_servers(session: Session, say: Callable[[str], None]) -> None:
    """Say on stderr, once each, which MCP servers failed to start or stopped working (the
    model reads why in the result of a call to one of their tools)."""
    if session.mcp is None:
        return
    told: set[str] = set()

    def tell(status: ServerStatus) -> None:
        if status.state == "failed" and status.name not in told:
            told.add(status.name)
            tail = "".join(f"\n  {line}" for line in status.stderr[-5:])
            say(f"the MCP server {status.name} failed: {status.message}{tail}")

    servers = session.mcp.servers
    servers.subscribe(tell)
    for status in servers.statuses():
        tell(status)


def stopped_jobs(stopped: list[str]) -> str:
    """What the user is told of the background jobs zizou ended as it exited."""
    jobs = "job" if len(stopped) == 1 else "jobs"
    return f"stopped {len(stopped)} background {jobs} on exit: {', '.join(stopped)}"


__all__ = [
    "HeadlessApprover",
    "open_unattended",
    "stopped_jobs",
    "wait_for_servers",
    "watch_servers",
]
