"""Assembles one agent session (model, tools, prompt, permissions, session file) for either
front end.

The TUI and headless mode both call `build_runtime`, so they run the very same loop.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from zizou.core.calls import CallRunner
from zizou.core.conversation import Conversation
from zizou.core.loop import Agent, AgentConfig
from zizou.core.permissions import Rules
from zizou.core.prompt import PromptBuilder, latest_user_message
from zizou.core.protocols import Approver, Model, TurnRecorder
from zizou.env import scrubbed_env
from zizou.errors import PathError, UsageError
from zizou.paths import user_config_dir
from zizou.repomap import repo_map_for
from zizou.sandbox import Sandbox, SandboxStatus, detect, hidden_dirs_for
from zizou.sessions import SessionStore, SessionWriter
from zizou.tools import ToolContext, default_registry
from zizou.trace import DebugLog, ensure_excluded, open_debug_log, redactor_for


@dataclass(frozen=True)
class SessionChoice:
    """Which conversation to run in: a new one, the active one (`-c`), or a given one (`-r`)."""

    resume: str | None = None
    continue_last: bool = False


@dataclass
class Runtime:
    session_id: str
    agent: Agent
    ctx: ToolContext
    prompt: PromptBuilder
    writer: SessionWriter | None = None
    warnings: list[str] = field(default_factory=list)
    debug_log: DebugLog | None = None  # its `problem` says when writing it failed

    @property
    def sandbox_status(self) -> SandboxStatus:
        sandbox = self.ctx.sandbox
        return sandbox.status if sandbox is not None else SandboxStatus("off")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.debug_log is not None:
            self.debug_log.close()


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def build_runtime(
    root: Path,
    model: Model,
    approver: Approver,
    rules: Rules,
    max_steps: int = 15,
    *,
    session: SessionChoice | None = None,
    persist: bool = True,
    redact: Callable[[str], str] | None = None,
    debug_log: bool = True,
    call_parameters: Mapping[str, Any] | None = None,  # reported in the debug log, with the model's
    sandbox: SandboxStatus | None = None,  # default: what this machine has, as config says
) -> Runtime:
    ensure_excluded(root)  # zizou-debug.log and .zizou/ are never committed by accident
    registry = default_registry()
    env = scrubbed_env(os.environ)
    status = sandbox or detect(env=env)
    boxed = Sandbox(root, status, hidden_dirs_for(user_config_dir()))
    ctx = ToolContext(root=root, env=env, sandbox=boxed, code_map=repo_map_for(root))
    prompt = PromptBuilder(root, registry, ctx.workspace)
    runner = CallRunner(registry, ctx, approver, rules)
    if redact is None:  # session files never hold a key: the same redactor as the debug log
        redact = redactor_for(model).redact
    prompt.redact = redact  # nor does the compiled prompt written to .zizou/compiled/
    session_id, conversation, writer, warnings = _open_session(
        root, model.id, session or SessionChoice(), persist, redact
    )
    if status.warning():
        warnings.append(str(status.warning()))
    recorders: list[TurnRecorder] = [writer] if writer else []
    agent = Agent(model, runner, prompt, conversation, AgentConfig(max_steps=max_steps), recorders)
    prompt.mentions = lambda: latest_user_message(agent.conversation.messages)
    prompt.commands_note = _commands_note(status)
    reported = {**(call_parameters or {}), "sandbox": status.describe()}
    log = open_debug_log(root, agent, prompt, reported) if debug_log else None
    if log is not None:
        agent.recorders.append(log)
    return Runtime(session_id, agent, ctx, prompt, writer, warnings, log)


def _open_session(
    root: Path,
    model_id: str,
    choice: SessionChoice,
    persist: bool,
    redact: Callable[[str], str] | None,
) -> tuple[str, Conversation, SessionWriter | None, list[str]]:
    store = SessionStore(root)
    session_id = None
    if choice.resume:
        session_id = store.resolve(choice.resume)
    elif choice.continue_last:
        session_id = store.active_id()
        if session_id is None:
            raise UsageError("there is no session to continue in this project; drop -c")
    if session_id is None:
        session_id = new_session_id()
        writer, problems = _writer(partial(store.create, session_id, model_id, redact), persist)
        return session_id, _conversation(writer, []), writer, problems
    loaded = store.load(session_id)
    writer, problems = _writer(partial(store.reopen, session_id, redact), persist)
    return session_id, _conversation(writer, loaded.messages), writer, loaded.warnings + problems


def _writer(
    open_writer: Callable[[], SessionWriter], persist: bool
) -> tuple[SessionWriter | None, list[str]]:
    """The session file's writer; none, with a warning, when `.zizou/` is unsafe to write."""
    if not persist:
        return None, []
    try:
        return open_writer(), []
    except PathError as exc:
        return None, [f"{exc}; this session is not saved"]


def _conversation(writer: SessionWriter | None, messages: list[dict[str, object]]) -> Conversation:
    return Conversation(messages, writer.append_message if writer else None)


def _commands_note(status: SandboxStatus) -> str:
    """How run_bash's commands run, as the model should know it before it runs one."""
    match status.state:
        case "on":
            net = "with" if status.network else "without"
            return (
                f"commands run with bash -c in a sandbox ({status.kind}), {net} network: the "
                "project is writable except .git/ and .zizou/, secret files are unreadable, "
                "the rest of the disk is read-only, /tmp is private"
            )
        case "off":
            return "commands run with bash -c, unsandboxed; the user approves them"
        case _:
            return (
                "commands run with bash -c, unsandboxed (no sandbox here); the user approves each"
            )
