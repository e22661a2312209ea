"""One agent session: the parts `build_session` put together, and the operations every front end
performs on them. The app, `zizou -p`, `zizou run`, `zizou acp` and the decks' `/run` call these;
none of them reaches into the agent, the call runner or the tool context to change a session.

A session owns its state (`SessionState`: the conversation, the workspace windows, the task
state, the mode), the agent that runs its turns, the commands and jobs it started, its spend, its
hooks, its undo history, its decks and (unless an earlier session of the app lent them) its MCP
servers. `hand_over` moves what outlives one conversation (jobs, spend, windows, servers) to the
session that follows it: a cleared or a resumed conversation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zizou.checkpoints import UndoError
from zizou.checkpoints.session_state import follow_turns
from zizou.contracts.state import SessionState
from zizou.errors import UsageError
from zizou.hooks.sources import TrustStore
from zizou.sandbox import SandboxStatus
from zizou.user_dirs import user_config_dir

if TYPE_CHECKING:
    from zizou.agent.loop import Agent
    from zizou.agent.permissions import PermissionMode, Rules
    from zizou.agent.prompt import PromptBuilder
    from zizou.agent.spending import Spending
    from zizou.checkpoints import Checkpoints, UndoResult
    from zizou.contracts.conversation import Conversation
    from zizou.contracts.events import AnyEvent, Compacted, Nested
    from zizou.contracts.instructions import InstructionSet
    from zizou.contracts.messages import ImagePart
    from zizou.contracts.protocols import Model, ToolCall
    from zizou.contracts.state import Subscriber
    from zizou.contracts.task_state import SchemaError
    from zizou.decks.run import DeckEnv
    from zizou.decks.spec import Deck
    from zizou.decks.tools import Caller, Outcome
    from zizou.hooks.runtime import HookRuntime, HookSource
    from zizou.mcp.setup import McpSetup
    from zizou.sessions import SessionWriter
    from zizou.tools import ToolContext
    from zizou.tools.jobs import JobTable
    from zizou.trace import DebugLog


@dataclass(frozen=True)
class TakenBack:
    """What an undo, a redo or a rewind did: the files, and what of the session's state (task
    state, windows, hooks' state) could not be set back as the turns left in it left it."""

    result: UndoResult
    problems: list[str]


@dataclass
class Session:
    session_id: str
    agent: Agent
    ctx: ToolContext
    prompt: PromptBuilder
    writer: SessionWriter | None = None
    warnings: list[str] = field(default_factory=list)
    debug_log: DebugLog | None = None  # its `problem` says when writing it failed
    schema_error: SchemaError | None = None  # the project's state schema, when it is unusable
    hooks: HookRuntime | None = None
    untrusted: list[HookSource] = field(default_factory=list)  # project hooks awaiting trust
    checkpoints: Checkpoints | None = None  # undo, redo and rewind of the session's turns
    decks: DeckEnv | None = None  # the project's decks (sub-agents), run as tools
    mcp: McpSetup | None = None  # the MCP servers (shared by the app's sessions)
    owns_mcp: bool = True  # `close` stops the servers too (the app closes them itself)

    # What the session is.

    @property
    def root(self) -> Path:
        return self.ctx.root

    @property
    def state(self) -> SessionState:
        """The session's state: the conversation, the files in view, what the model saw."""
        state = self.ctx.state
        assert isinstance(state, SessionState)
        return state

    @property
    def conversation(self) -> Conversation:
        return self.agent.conversation

    @property
    def model(self) -> Model:
        return self.agent.model

    @property
    def instructions(self) -> InstructionSet | None:
        """The skills and instruction files the session found."""
        return self.ctx.instructions

    @property
    def rules(self) -> Rules:
        """The approval rules every call obeys now (saved, `--allow`, "always" said, the
        permission mode)."""
        return self.agent.runner.gates.book.rules

    @property
    def max_steps(self) -> int:
        return self.agent.config.max_steps

    @property
    def history_window(self) -> int | None:
        """How many earlier turns each request carries (None: all)."""
        return self.agent.config.history_window

    @property
    def spending(self) -> Spending:
        """The run's spend, its caps and the per-turn cap on model calls."""
        spending = self.agent.spending
        assert spending is not None
        return spending

    @property
    def jobs(self) -> JobTable:
        """The commands the model started: background jobs and the outputs kept for it."""
        return self.ctx.jobs

    @property
    def sandbox_status(self) -> SandboxStatus:
        sandbox = self.ctx.sandbox
        return sandbox.status if sandbox is not None else SandboxStatus("off")

    def call_label(self, call: ToolCall) -> str:
        """How a call is named where it is shown (`read_file · app.py`), as its live row is."""
        return self.agent.runner.parse(call).label

    # What the front ends do to it.

    def run_turn(
        self, text: str, images: tuple[ImagePart, ...] = ()
    ) -> AsyncGenerator[AnyEvent, None]:
        """Run one turn for the user's `text` (and `images`, for a model that reads them);
        cancelling the task that iterates it cancels the turn (its commands end, the history
        stays valid)."""
        return self.agent.run_turn(text, images)

    def switch_model(self, model: Model) -> None:
        """Send the next request to `model`."""
        self.agent.switch_model(model)

    def set_mode(self, mode: str, by: str = "user") -> bool:
        """Switch the session's mode (build, plan, ...); False when it was in it already."""
        return self.state.set_mode(mode, by)

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """Ask before edits and commands, accept edits, or run what the sandbox holds."""
        book = self.agent.runner.gates.book
        book.replace(dataclasses.replace(book.rules, permission_mode=mode))

    def set_history_window(self, window: int | None) -> None:
        """Send the last `window` turns only (None: all of them)."""
        self.agent.set_history_window(window)

    async def compact(self, instructions: str = "") -> Compacted:
        """The conversation so far becomes the model's summary of it; ProviderError when the
        model fails (the conversation is then unchanged)."""
        return await self.agent.compact(instructions)

    async def with_inline_output(
        self, typed: str, message: str, reserved: frozenset[str] = frozenset()
    ) -> tuple[str, list[str]]:
        """What `typed` sends when it runs a command file (`/review 42`): `message` (its body,
        as `message_for` made it) with the output of the file's inline `` !`command` ``s, each
        run as the model's run_bash would be (approval, hooks, rules, sandbox); and what to
        say. `reserved`: the names of zizou's own commands, which win a clash."""
        from zizou.agent.inline_commands import with_inline_output

        return await with_inline_output(self.root, typed, message, reserved, self.agent.runner)

    def limit_steps(self, max_steps: int) -> None:
        self.agent.limit_steps(max_steps)

    def forget_tool_rule(self, tool: str) -> None:
        """`tool` asks again: its "always" of this session goes (the saved rule is the
        caller's to remove from the file)."""
        self.agent.runner.gates.book.forget_tool(tool)

    def forget_command_rule(self, prefix: str) -> None:
        """Commands starting with `prefix` ask again."""
        self.agent.runner.gates.book.forget_prefix(prefix)

    def undo(self, force: bool = False) -> TakenBack:
        """Undo the last turn: its files, its messages, and the state it set. UndoError when
        there is none; UndoRefused (nothing changed) when a file changed outside zizou since,
        unless `force`."""
        return self._take_back(lambda checkpoints: checkpoints.undo(force))

    def redo(self, force: bool = False) -> TakenBack:
        """Do the last undone turn again, as `undo` refuses."""
        return self._take_back(lambda checkpoints: checkpoints.redo(force))

    def rewind(self, to_turn: int, force: bool = False) -> TakenBack:
        """Undo every turn from the last back to `to_turn` (a `TurnInfo.turn`)."""
        return self._take_back(lambda checkpoints: checkpoints.rewind(to_turn, force))

    def _take_back(self, do: Callable[[Checkpoints], UndoResult]) -> TakenBack:
        checkpoints = self.checkpoints
        if checkpoints is None:
            raise UndoError("undo is not available in this session: its changes were not recorded")
        result = do(checkpoints)
        problems = follow_turns(self.state, checkpoints.state_lines, self.session_id)
        if self.hooks is not None:
            self.hooks.state_restored()
        return TakenBack(result, problems)

    def find_deck(self, ref: str, cwd: Path, *, trust_all: bool = False) -> Deck:
        """The deck `ref` names: a deck of the session, or a deck file's path (from `cwd`),
        loaded and kept among the session's decks. UsageError when there is none."""
        from zizou.decks.refs import resolve_or_load

        env = self._decks()
        config_dir = user_config_dir()
        env.decks, deck = resolve_or_load(
            env.decks,
            ref,
            cwd,
            self.root,
            config_dir,
            trust=TrustStore(config_dir),
            trust_all=trust_all,
        )
        return deck

    async def run_deck(
        self,
        deck: Deck,
        value: Any,
        *,
        title: str,
        caller: Caller | None = None,
        nest: Callable[[Nested], None] | None = None,
        kept_for_undo: bool = True,
    ) -> Outcome:
        """Run `deck` on `value` (its validated input) outside a turn (`/run`, `zizou run`),
        under every gate of the session; `title` names it where a turn's text would. Its model
        calls are counted afresh (`decks.deck_calls`). `kept_for_undo=False`: its edits are
        not kept for undo, as it is no turn of the conversation."""
        from zizou.decks.tools import Caller, action_of

        env = self._decks()
        env.begin_turn(title, [])  # the cap on model calls is per run
        action, caller = action_of(deck), caller or Caller()
        if kept_for_undo:
            return await env.call(deck, action, value, caller, nest)
        with env.kept_from_undo():
            return await env.call(deck, action, value, caller, nest)

    def _decks(self) -> DeckEnv:
        if self.decks is None:
            raise UsageError("decks are not available in this session")
        return self.decks

    def watch_state(self, subscriber: Subscriber) -> None:
        """Tell `subscriber` each change of the workspace and the task state."""
        self.state.subscribe(subscriber)

    def trust_hook(self, source: HookSource) -> str | None:
        """The user approved `source` as it is now: remember its hash and run it from the next
        step; a warning when it fails to load."""
        TrustStore(user_config_dir()).trust(source)
        self.untrusted = [s for s in self.untrusted if s.name != source.name]
        return self.hooks.add(source) if self.hooks is not None else None

    def hand_over(self, successor: Session) -> None:
        """Go on in `successor` (a new or a resumed conversation of the same run): it takes the
        background jobs, the run's spend (its caps hold for the whole run), the open windows
        unless it has its own, and the MCP servers if this session owned them; this one is
        closed."""
        successor.spending.carry(self.spending)
        if not successor.state.windows:
            successor.state.restore(self.state.workspace.windows)
        successor.jobs.take_over(self.jobs)  # background jobs run on
        if self.owns_mcp and successor.mcp is self.mcp:
            self.owns_mcp, successor.owns_mcp = False, True
        self.close()

    def close(self) -> list[str]:
        """End the session: every command's process group is ended (no process is left
        behind), the files are closed. The background jobs that were still running."""
        stopped = self.jobs.close()
        if self.writer is not None:
            self.writer.close()
        if self.debug_log is not None:
            self.debug_log.close()
        if self.owns_mcp:
            self.close_servers()
        return stopped

    def close_servers(self) -> None:
        """Stop every MCP server: each process group ends."""
        if self.mcp is not None:
            self.mcp.servers.close()


__all__ = ["Session", "TakenBack"]
