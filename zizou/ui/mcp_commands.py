"""The MCP servers from the app: `/mcp` lists them (starting, ready with their tools, failed
with the last lines of their stderr), `/mcp NAME` shows one, `/mcp restart|disable|enable
NAME` acts on one, `/mcp approve` asks about the project's `.mcp.json`; at start-up a project
file waiting for approval is asked about (its command lines shown). A server that fails while
the app runs is said in the conversation, with the fix.

Before a turn, `expand` turns what the message names into what the model gets: a leading
`/mcp__SERVER__PROMPT ARGS` becomes the prompt's text, and each `@SERVER:URI` attaches the
resource after the message (the conversation shows what was typed; the session file and the
debug log keep what was sent).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.message import Message

from zizou.errors import ZizouError
from zizou.mcp.mentions import (
    attached,
    prompt_arguments,
    prompt_commands,
    resource_mentions,
    without_resources,
)
from zizou.mcp.status import CallFailed, ServerStatus
from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.slash_registry import slash

if TYPE_CHECKING:
    from zizou.mcp.manager import McpServers
    from zizou.mcp.setup import McpSetup
    from zizou.session.kernel import Session
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening
    from zizou.ui.widgets.messages import NoticeKind, TypingClock

USAGE = (
    "/mcp lists the servers; /mcp NAME shows one; /mcp restart|disable|enable NAME; /mcp approve"
)
SHOWN_STDERR = 8


class McpChanged(Message):
    """A server's status changed (posted from the MCP thread)."""

    def __init__(self, status: ServerStatus) -> None:
        super().__init__()
        self.status = status


class McpCommands:
    def __init__(
        self, host: Host, opening: Opening, notices: Notices, typing: TypingClock | None = None
    ) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices
        self.typing = typing
        self._watched: McpServers | None = None
        self._told: set[tuple[str, float]] = set()  # the failures said already

    @property
    def setup(self) -> McpSetup | None:
        return self.opening.current.kernel.mcp

    async def say(self, text: str, kind: NoticeKind = "info", fix: str | None = None) -> None:
        await self.notices.add_notice(text, kind, fix)

    def watch(self) -> None:
        """Hear of every server's changes from now on (once per set of servers)."""
        setup = self.setup
        if setup is None or setup.servers is self._watched:
            return
        self._watched = setup.servers

        def tell(status: ServerStatus) -> None:
            self.host.post_message(McpChanged(status))  # from the MCP thread: safe to post

        setup.servers.subscribe(tell)
        for status in setup.servers.statuses():  # one that failed before the app listened
            if status.state == "failed":
                tell(status)

    async def changed(self, status: ServerStatus) -> None:
        """Say a failure in the conversation, once."""
        self.host.post_message(SessionChanged())
        if status.state != "failed" or (status.name, status.since) in self._told:
            return
        self._told.add((status.name, status.since))
        tail = "\n".join(f"  {line}" for line in status.stderr[-SHOWN_STDERR:])
        text = f"The MCP server {status.name} failed: {status.message}"
        await self.say(text + (f"\n{tail}" if tail else ""), "error", f"/mcp restart {status.name}")

    @slash(
        "mcp",
        "[NAME|restart NAME|disable NAME|enable NAME|approve]",
        help="the MCP servers and tools",
        section="tools",
    )
    async def command(self, args: list[str]) -> None:
        setup = self.setup
        if setup is None or not (setup.servers.names() or setup.waiting):
            await self.say(
                "No MCP servers are configured.",
                fix="`zizou mcp add NAME -- COMMAND` adds one (see README: MCP servers).",
            )
            return
        verb = args[0].lower() if args else ""
        if not verb:
            await self.say(listing(setup.servers), fix=USAGE)
        elif verb == "approve":
            await self.ask_waiting(asked=True)
        elif verb in ("restart", "disable", "enable"):
            await self._act(verb, args[1] if len(args) > 1 else "")
        elif verb in setup.servers.names():
            await self.say(detail(setup.servers, verb))
        else:
            await self.say(f"No MCP server named {args[0]!r}.", "warning", USAGE)

    async def _act(self, verb: str, name: str) -> None:
        setup = self.setup
        assert setup is not None
        if name not in setup.servers.names():
            names = ", ".join(setup.servers.names())
            await self.say(f"Which server? They are: {names}.", "warning", USAGE)
            return
        status = setup.servers.status(name)
        if status is not None and status.state == "unapproved":
            await self.say(f"{name} is not approved.", "warning", "/mcp approve asks about it.")
            return
        act = {
            "restart": setup.servers.restart,
            "disable": setup.servers.disable,
            "enable": setup.servers.enable,
        }[verb]
        await asyncio.to_thread(act, name)  # stopping one waits for its process to end
        done = {"restart": "Restarting", "disable": "Disabled", "enable": "Starting"}[verb]
        await self.say(f"{done} the MCP server {name}.", "success")

    async def ask_waiting(self, asked: bool = False) -> None:
        """The project's `.mcp.json` waiting for approval: show it and ask."""
        from zizou.mcp.trust import describe
        from zizou.ui.screens.mcp_approval import McpApprovalScreen
        from zizou.user_dirs import user_config_dir

        setup = self.setup
        if setup is None or setup.waiting is None:
            if asked:
                await self.say("No project MCP server waits for approval.")
            return
        waiting, state = setup.waiting, setup.state
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def answered(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        screen = McpApprovalScreen(describe(waiting, state), state == "changed", self.typing)
        self.host.post_message(ShowScreen(screen, answered))
        if not await answer:
            await self.say(
                f"The MCP servers of {waiting.path.name} were not started.",
                fix="/mcp approve asks again.",
            )
            return
        try:
            names = await asyncio.to_thread(setup.approve_waiting, user_config_dir())
        except (ZizouError, OSError) as exc:
            await self.say(f"{waiting.path.name} was not approved: {exc}", "error")
            return
        await self.say(f"Approved {waiting.path.name}: starting {', '.join(names)}.", "success")

    def without_resources(self, text: str) -> str:
        """`text` without the resources it names (the rest may name files to open)."""
        setup = self.setup
        return without_resources(text, setup.servers.names()) if setup is not None else text

    async def expand(self, text: str) -> str | None:
        """What the model is sent for `text`: a prompt command's text, with the resources
        it names attached; None when a prompt could not be had (said in the conversation)."""
        setup = self.setup
        if setup is None:
            return text
        servers = setup.servers
        sent = text
        first, _, rest = text.strip().partition(" ")
        if first.startswith("/mcp__"):
            command = prompt_commands(servers.statuses()).get(first[1:])
            if command is None:
                await self.say(f"No MCP prompt {first}.", "error", "/mcp lists the servers.")
                return None
            try:
                values = prompt_arguments(command, rest)
                sent = await servers.get_prompt(command.server, command.prompt, values)
            except (ValueError, CallFailed) as exc:
                await self.say(str(exc), "error")
                return None
        read: list[tuple[str, str, str]] = []
        for server, uri in resource_mentions(text, servers.names()):
            try:
                read.append((server, uri, await servers.read_resource(server, uri)))
            except CallFailed as exc:
                await self.say(f"{server}:{uri} was not attached: {exc}", "warning")
        if read:
            await self.say(f"Attached {', '.join(f'{s}:{u}' for s, u, _ in read)}.", "success")
        return attached(sent, read) if read else sent


def waiting_warning(session: Session, warning: str) -> bool:
    """Whether `warning` is the note that the project's MCP servers wait for approval: the
    app asks about them instead."""
    setup = session.mcp
    waiting = setup.waiting if setup is not None else None
    return waiting is not None and warning.startswith(f"the MCP servers of {waiting.path.name}")


def listing(servers: McpServers) -> str:
    """What `/mcp` says: one line a server."""
    statuses = servers.statuses()
    lines = [f"MCP servers ({len(statuses)}):"]
    for status in statuses:
        lines.append(f"  {status.name} · {status.scope} · {servers.line(status.name)}")
        if status.state == "failed":
            lines += [f"      {line}" for line in status.stderr[-3:]]
    return "\n".join(lines)


def detail(servers: McpServers, name: str) -> str:
    """What `/mcp NAME` says: the server, its state, its tools, resources and prompts."""
    status = servers.status(name)
    assert status is not None
    lines = [
        f"{name} ({status.scope}, {status.transport}): {status.target}",
        f"  {servers.line(name)}",
    ]
    for tool in servers.tools():
        if tool.server == name:
            reads = " · says it only reads" if tool.read_only_hint else ""
            lines.append(f"  {tool.name}{reads}: {tool.summary}")
    lines += [f"  left out: {problem}" for problem in servers.left_out(name)]
    lines += [f"  resource @{name}:{r.get('uri')}" for r in status.resources]
    commands = prompt_commands([status]).values()
    lines += [f"  prompt {command.usage}" for command in commands]
    if status.stderr:
        lines.append("  stderr:")
        lines += [f"    {line}" for line in status.stderr[-SHOWN_STDERR:]]
    return "\n".join(lines)


__all__ = ["McpChanged", "McpCommands", "detail", "listing", "waiting_warning"]
