"""`zizou mcp add | add-json | list | get | remove | approve`: the MCP servers of a project and
of the user, with the commands a Claude Code user already types.

    zizou mcp add git -- uvx mcp-server-git              # stdio, this project's .mcp.json
    zizou mcp add --transport http docs https://example.com/mcp -H "Authorization: Bearer ${T}"
    zizou mcp add --scope user -e TOKEN=abc tracker -- npx -y tracker-mcp

`list` and `get` start the servers (in the sandbox, as a session would) to say whether each one
works and what tools it has; a project's servers start only once its `.mcp.json` is approved
(`approve`, which shows every command line first).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from zizou.config.project_dir import project_dir
from zizou.errors import UsageError
from zizou.mcp.config import NAME_FORM, PROJECT_FILE, Scope, ServerSpec, read_project, valid_name
from zizou.mcp.edit import read_scope, set_server
from zizou.mcp.setup import McpSetup
from zizou.mcp.status import ServerStatus
from zizou.mcp.trust import approval, approve, describe
from zizou.user_dirs import user_config_dir

SETTLE_POLL_S = 0.1
cwd_option = click.option(
    "-C",
    "--cwd",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project directory (default: current).",
)
config_option = click.option(
    "--mcp-config",
    "mcp_config",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Servers from FILE too, as `zizou --mcp-config FILE` would start them.",
)
scope_option = click.option(
    "-s",
    "--scope",
    type=click.Choice(["project", "user"]),
    help="project: this project's .mcp.json (shared through git); user: your own servers, "
    "for every project.",
)


@click.group(name="mcp", context_settings={"help_option_names": ["-h", "--help"]})
def mcp() -> None:
    """MCP servers: configured in the project's .mcp.json (Claude Code's format) or in the
    mcp.json of your zizou config dir. A project's servers start only once you approved its
    .mcp.json as it is (`zizou mcp approve`)."""


def _root(cwd: Path | None) -> Path:
    return project_dir(cwd)


@mcp.command(name="add", context_settings={"ignore_unknown_options": True})
@click.option(
    "-t",
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    help="stdio (default): zizou starts COMMAND; http: a streamable HTTP server at URL.",
)
@scope_option
@click.option(
    "-e", "--env", "env", multiple=True, metavar="KEY=VALUE", help="A variable for a stdio server."
)
@click.option(
    "-H",
    "--header",
    "headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="A header for an http server's requests.",
)
@cwd_option
@click.argument("name")
@click.argument("target", metavar="COMMAND_OR_URL")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def add(
    transport: str,
    scope: Scope | None,
    env: tuple[str, ...],
    headers: tuple[str, ...],
    cwd: Path | None,
    name: str,
    target: str,
    args: tuple[str, ...],
) -> None:
    """Add a server: `zizou mcp add NAME -- COMMAND [ARGS...]`, or
    `zizou mcp add --transport http NAME URL`. ${VAR} in the env, URL and headers is read
    when the server starts."""
    entry: dict[str, Any]
    if transport == "http":
        if args or env:
            raise UsageError("an http server takes a URL and --header, not a command or --env")
        entry = {"type": "http", "url": target}
        if headers:
            entry["headers"] = dict(_header(h) for h in headers)
    else:
        if headers:
            raise UsageError("--header is for --transport http; a stdio server takes --env")
        entry = {"command": target, "args": list(args)}
        if env:
            entry["env"] = dict(_pair(e) for e in env)
    _save(name, entry, scope or "project", cwd)


@mcp.command(name="add-json")
@scope_option
@cwd_option
@click.argument("name")
@click.argument("json_text", metavar="JSON")
def add_json(scope: Scope | None, cwd: Path | None, name: str, json_text: str) -> None:
    """Add a server from its JSON, as .mcp.json holds it: '{"command": "uvx", "args": [...]}'."""
    import json

    try:
        entry = json.loads(json_text)
    except ValueError as err:
        raise UsageError(f"not JSON: {err}") from None
    if not isinstance(entry, dict):
        raise UsageError("the server's JSON must be an object")
    _save(name, entry, scope or "project", cwd)


def _save(name: str, entry: dict[str, Any], scope: Scope, cwd: Path | None) -> None:
    import json

    from zizou.mcp.config import parse

    if not valid_name(name):
        raise UsageError(f"the server name {name!r} must be {NAME_FORM}")
    probe = parse(json.dumps({"mcpServers": {name: entry}}).encode(), Path("-"), scope)
    if probe.problems:
        raise UsageError(probe.problems[0].removeprefix("-: "))
    path = set_server(scope, _root(cwd), user_config_dir(), name, entry)
    click.echo(f"Added the MCP server {name} to {path}: {probe.servers[0].describe()}")
    if scope == "project":
        found = read_project(_root(cwd))
        if found is not None and approval(found, user_config_dir()) != "approved":
            click.echo(f"{PROJECT_FILE} is not approved: read it, then `zizou mcp approve`")


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(f"--env {text!r}: write KEY=VALUE")
    return key, value


def _header(text: str) -> tuple[str, str]:
    key, sep, value = text.partition(":")
    if not sep or not key.strip():
        raise UsageError(f"--header {text!r}: write 'Name: value'")
    return key.strip(), value.strip()


@mcp.command(name="remove")
@scope_option
@cwd_option
@click.argument("name")
def remove(scope: Scope | None, cwd: Path | None, name: str) -> None:
    """Remove a server from the project's .mcp.json or your mcp.json."""
    root, config_dir = _root(cwd), user_config_dir()
    scopes: list[Scope] = [scope] if scope else ["project", "user"]
    holders = [
        s
        for s in scopes
        if (found := read_scope(s, root, config_dir)) is not None
        and any(spec.name == name for spec in found.servers)
    ]
    if not holders:
        raise UsageError(f"no MCP server named {name} in {' or '.join(scopes)} scope")
    if len(holders) > 1:
        raise UsageError(f"both scopes name {name}: say which with --scope project or user")
    path = set_server(holders[0], root, config_dir, name, None)
    click.echo(f"Removed the MCP server {name} from {path}")


@mcp.command(name="list")
@cwd_option
@config_option
def list_servers(cwd: Path | None, mcp_config: tuple[Path, ...]) -> None:
    """Every server, where it is configured, and whether it starts (each is started to see)."""
    setup = _started(cwd, mcp_config)
    try:
        statuses = _settled(setup)
        if not statuses:
            click.echo("no MCP servers: add one with `zizou mcp add NAME -- COMMAND`")
        for status in statuses:
            click.echo(f"{status.name} ({status.scope}, {status.transport}): {status.target}")
            click.echo(f"  {_mark(status)} {setup.servers.line(status.name)}")
    finally:
        setup.servers.close()
    for warning in setup.warnings:
        click.echo(f"note: {warning}", err=True)


@mcp.command(name="get")
@cwd_option
@config_option
@click.argument("name")
def get(cwd: Path | None, mcp_config: tuple[Path, ...], name: str) -> None:
    """One server: its configuration, its state, and its tools."""
    setup = _started(cwd, mcp_config)
    try:
        spec = next((s for s in _specs(setup) if s.name == name), None)
        if spec is None:
            raise UsageError(f"no MCP server named {name}; `zizou mcp list` lists them")
        status = next(s for s in _settled(setup) if s.name == name)
        click.echo(f"{name}\n  scope: {spec.scope} ({spec.source})\n  type: {spec.transport}")
        click.echo(f"  {'url' if spec.transport == 'http' else 'command'}: {spec.describe()}")
        config = spec.config
        names = sorted(getattr(config, "env", None) or getattr(config, "headers", None) or {})
        if names:
            kind = "env" if spec.transport == "stdio" else "headers"
            click.echo(f"  {kind}: {', '.join(names)}")
        click.echo(f"  state: {_mark(status)} {setup.servers.line(name)}")
        for line in status.stderr:
            click.echo(f"    {line}")
        for tool in setup.servers.tools():
            if tool.server == name:
                reads = " (says it only reads)" if tool.read_only_hint else ""
                click.echo(f"  tool {tool.name}{reads}: {tool.summary}")
        for problem in setup.servers.left_out(name):
            click.echo(f"  left out: {problem}")
    finally:
        setup.servers.close()


@mcp.command(name="approve")
@cwd_option
@click.option("--yes", is_flag=True, help="Approve without asking (read the file first).")
def approve_project(cwd: Path | None, yes: bool) -> None:
    """Approve the project's .mcp.json as it is now: its servers then start in every session
    here, until the file changes."""
    root, config_dir = _root(cwd), user_config_dir()
    found = read_project(root)
    if found is None or not found.servers:
        raise UsageError(f"{root} has no {PROJECT_FILE} with servers to approve")
    state = approval(found, config_dir)
    click.echo(describe(found, state))
    if state == "approved":
        click.echo("already approved as it is: nothing to do")
        return
    if not yes:
        if not sys.stdin.isatty():
            raise UsageError("read the file, then run `zizou mcp approve --yes`")
        if not click.confirm("Start these servers in your sessions here?", default=False):
            click.echo("not approved")
            return
    approve(found, config_dir)
    click.echo("approved: its servers start in every session here until the file changes")


def _started(cwd: Path | None, mcp_config: tuple[Path, ...] = ()) -> McpSetup:
    from zizou.config.options import Flags, resolve_options
    from zizou.session.assembly import mcp_setup

    setup = mcp_setup(resolve_options(Flags(cwd=_root(cwd), mcp_config=mcp_config)))
    setup.servers.start()
    return setup


def _specs(setup: McpSetup) -> list[ServerSpec]:
    return [setup.servers.spec(name) for name in setup.servers.names()]


def _settled(setup: McpSetup) -> list[ServerStatus]:
    """The servers once none is starting (or the connect time-out passed)."""
    deadline = time.monotonic() + setup.servers.launch.settings.connect_timeout_s + 2
    while time.monotonic() < deadline:
        statuses = setup.servers.statuses()
        if all(status.state != "starting" for status in statuses):
            return statuses
        time.sleep(SETTLE_POLL_S)
    return setup.servers.statuses()


def _mark(status: ServerStatus) -> str:
    return {"ready": "✓", "failed": "✗"}.get(status.state, "·")


__all__ = ["mcp"]
