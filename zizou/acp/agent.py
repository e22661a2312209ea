"""The ACP agent: `initialize`, `authenticate`, sessions made, loaded, prompted, cancelled,
switched between build and plan, and given another model (`session/set_config_option`). Each
session is built as `zizou -p` builds its run, from the command line's flags with the session's
`cwd` as the project (`resolve_options`, `build_session`), asking the editor where the app would
ask the person, and reading files through the editor when it offers to (`editor_reads`)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Protocol

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthMethodAgent,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from zizou import __version__
from zizou.acp.client_servers import ClientServer, servers_file
from zizou.acp.config_options import MODE_OPTION, MODEL_OPTION, model_choices
from zizou.acp.editor_reads import EditorReadFile, FileClient
from zizou.acp.permissions import ClientApprover, PermissionClient
from zizou.acp.prompt_text import PromptBlock, prompt_images, prompt_text
from zizou.acp.session import AcpSession, UpdateClient
from zizou.config.options import Flags, RunOptions
from zizou.errors import UsageError
from zizou.hooks.modes import MODES
from zizou.session.kernel import Session

log = logging.getLogger(__name__)
KEYS_METHOD = AuthMethodAgent(
    id="zizou-keys",
    name="Give zizou a key",
    description="Run `zizou keys set PROVIDER` in a terminal (the OS keyring, or a private file), "
    "or set the provider's variable (OPENAI_API_KEY, ANTHROPIC_API_KEY...) in the environment "
    "the editor starts zizou with; then try again.",
)
MODE_LIST = [
    SessionMode(id="build", name="Build", description="Reads, edits and runs commands."),
    SessionMode(id="plan", name="Plan", description="Read-only: investigates and plans."),
]


def one_line(text: str, limit: int = 80) -> str:
    """A session's title: its first message on one line, cut to `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class _SessionName:
    """A session's id, once its kernel has made it (its approver is built before)."""

    value = ""

    def __call__(self) -> str:
        return self.value


class EditorClient(PermissionClient, UpdateClient, FileClient, Protocol):
    """What zizou asks of the editor's side of the connection."""


class ZizouAgent:
    def __init__(self, flags: Flags, client: EditorClient) -> None:
        self.flags = flags
        self.client = client
        self.sessions: dict[str, AcpSession] = {}
        self._later: set[asyncio.Task[None]] = set()  # what is told once an answer is out
        self.reads_buffers = False  # the editor offers fs/read_text_file (see editor_reads)

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        **_: Any,
    ) -> InitializeResponse:
        files = client_capabilities.fs if client_capabilities is not None else None
        self.reads_buffers = bool(files is not None and files.read_text_file)
        capabilities = AgentCapabilities(
            load_session=True,
            # Images go to a model that takes them; with any other, the prompt is refused.
            prompt_capabilities=PromptCapabilities(embedded_context=True, image=True),
            mcp_capabilities=McpCapabilities(http=True),
            session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
        )
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=capabilities,
            auth_methods=[KEYS_METHOD],
            agent_info=Implementation(name="zizou", title="zizou", version=__version__),
        )

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        """Whether a key is found now; never waits for one."""
        if method_id != KEYS_METHOD.id:
            raise RequestError.invalid_params({"message": f"no such method: {method_id}"})
        await asyncio.to_thread(self._open_model, self._options(Path.cwd(), None))
        return AuthenticateResponse()

    async def new_session(
        self, cwd: str, mcp_servers: list[ClientServer] | None = None, **_: Any
    ) -> NewSessionResponse:
        session = await self._open(cwd, None, mcp_servers or [])
        # Told once the editor knows the session: the transport writes in order, and this
        # answer is queued before the task first runs.
        told = asyncio.create_task(session.tell_commands())
        self._later.add(told)
        told.add_done_callback(self._later.discard)
        return NewSessionResponse(
            session_id=session.id,
            modes=self._modes(session),
            config_options=session.config_options(),
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[ClientServer] | None = None, **_: Any
    ) -> LoadSessionResponse:
        if session_id in self.sessions:
            await self.sessions.pop(session_id).close()
        session = await self._open(cwd, session_id, mcp_servers or [])
        await session.replay()
        await session.tell_commands()
        return LoadSessionResponse(
            modes=self._modes(session), config_options=session.config_options()
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        """The project's sessions, newest first, titled by their first message (one page)."""
        from zizou.sessions import SessionStore

        root = Path(cwd) if cwd else Path.cwd()
        summaries = await asyncio.to_thread(SessionStore(root).list)
        sessions = [
            SessionInfo(
                session_id=summary.id,
                cwd=str(root),
                title=one_line(summary.first_prompt),
                updated_at=summary.created,
            )
            for summary in summaries
        ]
        return ListSessionsResponse(sessions=sessions)

    async def set_session_mode(
        self, mode_id: str, session_id: str, **_: Any
    ) -> SetSessionModeResponse:
        if mode_id not in MODES:
            raise RequestError.invalid_params({"message": f"no such mode: {mode_id}"})
        self._session(session_id).set_mode(mode_id)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        """The editor changed the model or the mode."""
        session = self._session(session_id)
        if config_id == MODE_OPTION and value in MODES:
            session.set_mode(str(value))
        elif config_id == MODEL_OPTION and value in {c.value for c in session.models}:
            options = self._options(session.kernel.root, None)
            model = await asyncio.to_thread(self._open_model, options, str(value))
            session.switch_model(model)
        else:
            what = f"{config_id} = {value!r}"
            raise RequestError.invalid_params({"message": f"no such setting: {what}"})
        return SetSessionConfigOptionResponse(config_options=session.config_options())

    async def prompt(self, prompt: list[PromptBlock], session_id: str, **_: Any) -> PromptResponse:
        session = self._session(session_id)
        stop = await session.prompt(prompt_text(prompt), prompt_images(prompt))
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **_: Any) -> None:
        if (session := self.sessions.get(session_id)) is not None:
            session.cancel()

    async def close(self) -> None:
        """The client is gone: every session ends, with its commands, jobs and servers."""
        for told in list(self._later):
            told.cancel()
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            await session.close()

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"message": f"no such session: {session_id}"})
        return session

    def _modes(self, session: AcpSession) -> SessionModeState:
        return SessionModeState(
            current_mode_id=session.kernel.state.mode, available_modes=MODE_LIST
        )

    async def _open(self, cwd: str, resume: str | None, servers: list[ClientServer]) -> AcpSession:
        if not Path(cwd).is_absolute():
            raise RequestError.invalid_params({"message": f"cwd must be absolute: {cwd}"})
        listed = servers_file(servers)
        try:
            kernel = await asyncio.to_thread(self._build, Path(cwd), resume, listed)
        finally:
            if listed is not None:
                listed.unlink(missing_ok=True)
        for warning in kernel.warnings:
            log.warning("%s", warning)
        models = await asyncio.to_thread(model_choices, kernel.model.id)
        session = AcpSession(kernel, self.client, models)
        self.sessions[session.id] = session
        return session

    def _build(self, cwd: Path, resume: str | None, servers: Path | None) -> Session:
        from zizou.config.project_rules import save_prefix, save_tool_rule
        from zizou.session.assembly import build_session
        from zizou.session.unattended import wait_for_servers

        options = self._options(cwd, resume, servers)
        model = self._open_model(options)
        name = _SessionName()
        approver = ClientApprover(self.client, options.root, name, save_prefix, save_tool_rule)
        tools = [EditorReadFile(self.client, name)] if self.reads_buffers else []
        try:
            session = build_session(options, model, approver, tools=tools)
        except UsageError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        name.value = session.session_id
        # As `zizou -p` does: the first prompt's request offers the servers' tools.
        wait_for_servers(session, options.mcp.startup_wait_s, lambda said: log.warning("%s", said))
        return session

    def _options(self, cwd: Path, resume: str | None, servers: Path | None = None) -> RunOptions:
        from zizou.config.options import resolve_options

        listed = (*self.flags.mcp_config, servers) if servers is not None else ()
        update: dict[str, Any] = {"cwd": cwd, "resume": resume}
        if listed:
            update["mcp_config"] = listed
        try:
            return resolve_options(self.flags.model_copy(update=update))
        except UsageError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None

    def _open_model(self, options: RunOptions, model_id: str | None = None) -> Any:
        """The model `options` name, or `model_id` with their address, key and settings."""
        from zizou.config.model_choice import MissingKey, open_model

        try:
            return open_model(
                model_id or options.model,
                options.api_base,
                options.api_key_value,
                lambda warning: log.warning("%s", warning),
                retry=options.retry,
                timeouts=options.timeouts,
                protocol=options.protocol,
            )
        except MissingKey as exc:
            raise RequestError.auth_required({"message": str(exc)}) from None
        except UsageError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None


__all__ = ["KEYS_METHOD", "EditorClient", "ZizouAgent"]
