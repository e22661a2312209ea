"""What a message may name of the MCP servers: `@SERVER:URI` attaches one of a server's
resources, and `/mcp__SERVER__PROMPT ARGS` sends one of its prompts. Pure: the reading and the
wording; the requests are the manager's.

A prompt's arguments are `name=value` pairs, or plain words given to its arguments in order
(the last takes the rest of the line): `/mcp__docs__review topic=parser` and
`/mcp__docs__review parser` are the same.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from zizou.mcp.schema import PREFIX, SEPARATOR
from zizou.mcp.status import ServerStatus

_MENTION = re.compile(r"(?:^|(?<=\s))@([A-Za-z0-9][A-Za-z0-9_-]*):(\S+)")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_TRAILING = ".,;:!?)]}'\""
MAX_ATTACHED = 5  # resources one message attaches


@dataclass(frozen=True)
class PromptCommand:
    """A server's prompt as a slash command."""

    command: str  # without the slash: mcp__SERVER__PROMPT
    server: str
    prompt: str  # its name on the server
    arguments: tuple[tuple[str, bool], ...]  # (name, required)
    description: str = ""

    @property
    def usage(self) -> str:
        names = [name if required else f"[{name}]" for name, required in self.arguments]
        return " ".join([f"/{self.command}", *names])


def prompt_commands(statuses: Iterable[ServerStatus]) -> dict[str, PromptCommand]:
    """The prompts of the ready servers, by command name."""
    found: dict[str, PromptCommand] = {}
    for status in statuses:
        if status.state != "ready":
            continue
        for prompt in status.prompts:
            name = prompt.get("name")
            if not isinstance(name, str) or not name:
                continue
            command = f"{PREFIX}{SEPARATOR}{status.name}{SEPARATOR}{_UNSAFE.sub('_', name)}"
            found.setdefault(command, _command(command, status.name, name, prompt))
    return found


def _command(command: str, server: str, name: str, prompt: dict[str, Any]) -> PromptCommand:
    raw = prompt.get("arguments")
    arguments = tuple(
        (str(item["name"]), bool(item.get("required")))
        for item in (raw if isinstance(raw, list) else ())
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    )
    description = str(prompt.get("description") or "")
    return PromptCommand(command, server, name, arguments, description)


def prompt_arguments(command: PromptCommand, text: str) -> dict[str, str]:
    """The arguments typed after the command; a ValueError names a missing required one."""
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    names = [name for name, _ in command.arguments]
    values: dict[str, str] = {}
    loose: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key in names:
            values[key] = value
        else:
            loose.append(word)
    free = [name for name in names if name not in values]
    for index, name in enumerate(free):
        if index >= len(loose):
            break
        values[name] = " ".join(loose[index:]) if index == len(free) - 1 else loose[index]
    missing = [name for name, required in command.arguments if required and name not in values]
    if missing:
        raise ValueError(f"/{command.command} needs {', '.join(missing)}: {command.usage}")
    return values


def resource_mentions(text: str, servers: Iterable[str]) -> list[tuple[str, str]]:
    """The `@SERVER:URI` of `text` whose server is one of `servers`, each once, in order."""
    known = set(servers)
    found: list[tuple[str, str]] = []
    for match in _MENTION.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(_TRAILING)
        if server in known and uri and (server, uri) not in found:
            found.append((server, uri))
    return found[:MAX_ATTACHED]


def without_resources(text: str, servers: Iterable[str]) -> str:
    """`text` without its `@SERVER:URI` mentions (what is left may name files)."""
    known = set(servers)
    return _MENTION.sub(lambda m: "" if m.group(1) in known else m.group(0), text)


def attached(text: str, resources: list[tuple[str, str, str]]) -> str:
    """The message with each resource read `(server, uri, content)` attached after it."""
    parts = [text]
    for server, uri, content in resources:
        parts.append(f'<resource server="{server}" uri="{uri}">\n{content}\n</resource>')
    return "\n\n".join(parts)


def resource_choices(statuses: Iterable[ServerStatus]) -> list[tuple[str, str]]:
    """`SERVER:URI` of every resource of the ready servers, with its name, for completion."""
    choices: list[tuple[str, str]] = []
    for status in statuses:
        if status.state != "ready":
            continue
        for resource in status.resources:
            uri = resource.get("uri")
            if isinstance(uri, str) and not any(c.isspace() for c in uri):
                choices.append((f"{status.name}:{uri}", str(resource.get("name") or "")))
    return choices


__all__ = [
    "PromptCommand",
    "attached",
    "prompt_arguments",
    "prompt_commands",
    "resource_choices",
    "resource_mentions",
    "without_resources",
]
