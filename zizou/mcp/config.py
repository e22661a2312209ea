"""MCP servers as users already configure them: the `.mcp.json` format of Claude Code.

    {"mcpServers": {
        "git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"TOKEN": "${TOKEN}"}},
        "docs": {"type": "http", "url": "https://example.com/mcp",
                 "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}

Three places hold such files: the project's `.mcp.json` (it comes with the repository: its
servers start only once the user approved the file's exact content, see `trust.py`), the user's
`<config dir>/mcp.json` (their own servers, for every project), and files named on the command
line (`--mcp-config FILE`). Each server is read on its own: a bad one is left out with a
problem naming it, the others still start. Keys other tools add (`disabled`, `timeout`...) are
ignored. `${VAR}` and `${VAR:-default}` are expanded in the command, the arguments, `env`,
`url` and `headers` when a server starts, never in the file.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zizou import confined
from zizou.errors import PathError

PROJECT_FILE = ".mcp.json"
USER_FILE = "mcp.json"  # in the user's config dir
MAX_CONFIG_BYTES = 1024 * 1024
# Provider tool names are [A-Za-z0-9_-]{1,64}, and `mcp__SERVER__TOOL` splits at the `__`.
NAME_FORM = "letters, digits, '-' and '_' (no '__'), at most 40 characters"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

Scope = Literal["project", "user", "flag"]


class StdioServer(BaseModel):
    """A server zizou starts as a process and speaks to over its stdin and stdout."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)


class HttpServer(BaseModel):
    """A server reached over streamable HTTP."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    type: Literal["http"] = "http"
    url: str = Field(min_length=1)
    headers: dict[str, str] = Field(default_factory=dict)


ServerConfig = Annotated[StdioServer | HttpServer, Field(discriminator="type")]


class _Entry(BaseModel):
    server: ServerConfig


@dataclass(frozen=True)
class ServerSpec:
    """One configured server: its name, how it is reached, and the file that named it."""

    name: str
    config: StdioServer | HttpServer
    scope: Scope
    source: Path

    @property
    def transport(self) -> str:
        return self.config.type

    def describe(self) -> str:
        """The command line or the URL, as the file says it (variables unexpanded)."""
        if isinstance(self.config, StdioServer):
            return " ".join([self.config.command, *self.config.args])
        return self.config.url

    def fingerprint(self, root: Path) -> str:
        """What identifies this server's configuration (for the cache of its tools)."""
        where = str(root) if self.scope == "project" else self.scope
        text = json.dumps([where, self.name, self.config.model_dump(mode="json")], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class ConfigFile:
    """A configuration file as read: its servers, what is wrong with it, and the SHA-256 of
    the very bytes read (a project file's approval is for that content)."""

    path: Path
    scope: Scope
    servers: tuple[ServerSpec, ...] = ()
    problems: tuple[str, ...] = ()
    sha256: str = ""
    data: bytes = field(default=b"", repr=False)


def valid_name(name: str) -> bool:
    return _NAME.fullmatch(name) is not None and "__" not in name


def parse(data: bytes, path: Path, scope: Scope) -> ConfigFile:
    """The servers of a configuration file's bytes; a file that is not a JSON object with an
    `mcpServers` object has no servers and one problem."""
    digest = hashlib.sha256(data).hexdigest()
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        return ConfigFile(path, scope, (), (f"{path} is not JSON ({err})",), digest, data)
    servers = document.get("mcpServers") if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        problem = f'{path} has no "mcpServers" object; write {{"mcpServers": {{"NAME": {{...}}}}}}'
        return ConfigFile(path, scope, (), (problem,), digest, data)
    found: list[ServerSpec] = []
    problems: list[str] = []
    for name, raw in servers.items():
        spec = _server(str(name), raw, path, scope)
        if isinstance(spec, str):
            problems.append(spec)
        else:
            found.append(spec)
    return ConfigFile(path, scope, tuple(found), tuple(problems), digest, data)


def _server(name: str, raw: Any, path: Path, scope: Scope) -> ServerSpec | str:
    where = f"{path}: the server {name!r}"
    if not valid_name(name):
        return f"{where} is left out: its name must be {NAME_FORM}"
    if not isinstance(raw, dict):
        return f"{where} is left out: it is not an object"
    kind = raw.get("type", "stdio" if "command" in raw else None)
    if kind in ("streamable-http", "streamableHttp"):
        kind = "http"
    if kind == "sse":
        return f'{where} is left out: zizou speaks streamable HTTP, not SSE; use "type": "http"'
    if kind not in ("stdio", "http"):
        return f'{where} is left out: give "command" (stdio) or "type": "http" with "url"'
    try:
        entry = _Entry.model_validate({"server": {**raw, "type": kind}})
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'server'}: {e['msg']}"
            for e in err.errors()
        )
        return f"{where} is left out: {problems}"
    return ServerSpec(name, entry.server, scope, path)


def read_project(root: Path) -> ConfigFile | None:
    """The project's `.mcp.json`, read without following a symlink; None when there is none.
    A file that cannot be read safely is a ConfigFile with that problem and no servers."""
    path = confined.real_root(root) / PROJECT_FILE
    try:
        if confined.stat(root, PROJECT_FILE) is None:
            return None
        data = confined.read_bytes(root, PROJECT_FILE, MAX_CONFIG_BYTES)
    except PathError as err:
        return ConfigFile(path, "project", (), (f"the project's {PROJECT_FILE} is skipped: {err}",))
    return parse(data, path, "project")


def read_user(config_dir: Path) -> ConfigFile | None:
    """The user's own servers, `<config dir>/mcp.json`; None when there is none."""
    path = config_dir / USER_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        return ConfigFile(path, "user", (), (f"{path} cannot be read: {err.strerror or err}",))
    return parse(data[: MAX_CONFIG_BYTES + 1], path, "user")


def read_flag(path: Path) -> ConfigFile:
    """A file named with `--mcp-config`: one that cannot be read is a ValueError (a usage
    error), since the user asked for it by name."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ValueError(f"--mcp-config {path}: cannot be read ({err.strerror or err})") from None
    found = parse(data, path, "flag")
    if not found.servers and found.problems:
        raise ValueError(f"--mcp-config {path}: {found.problems[0]}")
    return found


def merged(files: list[ConfigFile]) -> tuple[list[ServerSpec], list[str]]:
    """The servers of `files` (flag files first, then the project's, then the user's: the
    first to name a server wins), and the problems, a shadowed server's included."""
    order = {"flag": 0, "project": 1, "user": 2}
    chosen: dict[str, ServerSpec] = {}
    problems: list[str] = []
    for found in sorted(files, key=lambda f: order[f.scope]):
        problems += found.problems
        for spec in found.servers:
            first = chosen.get(spec.name)
            if first is None:
                chosen[spec.name] = spec
            else:
                problems.append(
                    f"the server {spec.name!r} of {spec.source} is left out: "
                    f"{first.source} names one too, and it wins"
                )
    return list(chosen.values()), problems


class MissingVariable(ValueError):
    """A `${VAR}` the environment does not set (and no `:-default` given)."""


def expand(text: str, environ: Mapping[str, str]) -> str:
    """`text` with each `${VAR}` (or `${VAR:-default}`) replaced from `environ`."""

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = environ.get(name)
        if found is not None and (found or default is None):
            return found
        if default is not None:
            return default
        raise MissingVariable(
            f"${{{name}}}, which is not set: export {name}, or write ${{{name}:-default}}"
        )

    return _VARIABLE.sub(value, text)


def expanded(
    config: StdioServer | HttpServer, environ: Mapping[str, str]
) -> StdioServer | HttpServer:
    """`config` with its variables expanded (a MissingVariable names the first one unset)."""
    if isinstance(config, StdioServer):
        return StdioServer(
            command=expand(config.command, environ),
            args=tuple(expand(arg, environ) for arg in config.args),
            env={key: expand(value, environ) for key, value in config.env.items()},
        )
    return HttpServer(
        url=expand(config.url, environ),
        headers={key: expand(value, environ) for key, value in config.headers.items()},
    )


def user_file(config_dir: Path) -> Path:
    return config_dir / USER_FILE


__all__ = [
    "PROJECT_FILE",
    "USER_FILE",
    "ConfigFile",
    "HttpServer",
    "MissingVariable",
    "Scope",
    "ServerSpec",
    "StdioServer",
    "expand",
    "expanded",
    "merged",
    "parse",
    "read_flag",
    "read_project",
    "read_user",
    "user_file",
    "valid_name",
]
