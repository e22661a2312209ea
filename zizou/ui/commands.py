"""What each slash command does. The table of commands is in `slash.py`; the ones about the
model and the keys are `ModelSwitcher`'s, the ones that swap the conversation `Conversations'`,
the ones about the workspace's windows `WorkspaceCommands'`, the task state's `StateCommands'`,
the mode's `ModeController`'s, the hooks' `HookCommands'`, /undo, /redo and /rewind
`UndoCommands'`, the background jobs' `JobCommands'` and the approval rules' `RuleCommands'`.

Commands say what they did in the conversation (`Notices`) and ask the app for screens and for
quitting with messages, so they run, and are tested, without a Textual app. `/prompt` renders the
prompt (the repo map can take seconds on a large project) in a worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from zizou.core.prompt import MAP_TOKENS_BY_LEVEL
from zizou.paths import debug_log_path
from zizou.plural import counted
from zizou.trace import redactor_for
from zizou.ui.hook_commands import HookCommands
from zizou.ui.host import QuitRequested, SessionChanged, ShowScreen
from zizou.ui.job_commands import JobCommands
from zizou.ui.rule_commands import RuleCommands
from zizou.ui.slash import COMMANDS, file_commands
from zizou.ui.state_commands import StateCommands
from zizou.ui.transcript import export_transcript, transcript_markdown
from zizou.ui.widgets.sidebar import cost, tokens

if TYPE_CHECKING:
    from zizou.core.instructions import InstructionSet
    from zizou.ui.context_commands import ContextCommands
    from zizou.ui.conversations import Conversations
    from zizou.ui.host import Host, Notices
    from zizou.ui.model_switcher import ModelSwitcher
    from zizou.ui.modes import ModeController
    from zizou.ui.opening import Opening
    from zizou.ui.session import UiSession
    from zizou.ui.undo_commands import UndoCommands
    from zizou.ui.widgets.messages import NoticeKind
    from zizou.ui.workspace_commands import WorkspaceCommands

Handler = Callable[[list[str]], Awaitable[None]]
RawHandler = Callable[[str], Awaitable[None]]
KEYS = (
    ("Enter", "send (queued while zizou works)"),
    ("Ctrl+J", "new line (also Shift+Enter, or end a line with \\)"),
    ("Up/Down", "history"),
    ("Esc", "interrupt the running turn and its commands"),
    ("Esc Esc", "at an idle, empty prompt: /rewind (pick a turn to go back to)"),
    ("Ctrl+C twice", "quit"),
    ("Ctrl+P", "command palette"),
    ("Ctrl+B", "show or hide the sidebar"),
    ("@path", "complete a file name and open the file in the workspace"),
    ("!command", "run your own shell command"),
    ("Shift+Tab", "in the prompt: switch the mode (build, plan); elsewhere: focus back"),
    ("Tab", "move to the queue, the sidebar's plan, then the tool rows (Enter expands)"),
    ("Plan keys", "space done · b blocked · e edit · a add · d delete · Esc back to the prompt"),
)


HISTORY_FIX = "/history N sends the last N earlier turns; /history all sends them all."
INSTRUCTIONS_FIX = "Add NAME.md files to .zizou/instructions/ (front matter: description)."


def window_words(window: int | None) -> str:
    """The history window, and what the model is sent of the conversation, in words."""
    if window is None:
        return "all (the model is sent the whole conversation)."
    earlier = {0: "", 1: "the last earlier turn and "}.get(
        window, f"the last {window} earlier turns and "
    )
    return f"{window} (the model is sent {earlier}the current turn; the session keeps them all)."


class SlashCommands:
    def __init__(
        self,
        host: Host,
        opening: Opening,
        notices: Notices,
        models: ModelSwitcher,
        conversations: Conversations,
        workspace: WorkspaceCommands,
        modes: ModeController | None = None,
        hooks: HookCommands | None = None,
        context: ContextCommands | None = None,
        undo: UndoCommands | None = None,
    ) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices
        self.state = StateCommands(host, opening, notices)
        self.rules = RuleCommands(host, opening, notices)
        self.remove_rule = self.rules.remove  # a rule removed in `/permissions`
        self.hooks = hooks or HookCommands(host, opening, notices)
        self.raw_table: dict[str, RawHandler] = {}  # commands that read their text as typed
        self.table: dict[str, Handler] = {
            "help": self.help,
            "clear": conversations.clear,
            "reset": conversations.clear,
            "exit": self.exit,
            "quit": self.exit,
            "model": models.model,
            "models": models.models,
            "modelid": models.model_id_command,
            "ollama": models.ollama,
            "keys": models.keys_command,
            "sessions": conversations.sessions,
            "prompt": self.prompt,
            "context": self.context,
            "state": self.state.command,
            "hooks": self.hooks.command,
            "instructions": self.instructions,
            "skills": self.instructions,
            "history": self.history,
            "add": workspace.add,
            "drop": workspace.drop,
            "workspace": workspace.workspace,
            "export": self.export,
            "cost": self.cost,
            "status": self.status,
            "config": self.config,
            "permissions": self.rules.permissions,
            "log": self.log,
            "jobs": JobCommands(host, opening, notices).command,
        }
        if modes is not None:  # it needs the running turns: the app's
            self.table["mode"] = modes.command
        if context is not None:  # so do these
            self.table["compact"] = context.compact
            self.table["init"] = context.init
        if undo is not None:
            self.table.update(undo=undo.undo, redo=undo.redo, rewind=undo.rewind)

    @property
    def session(self) -> UiSession:
        return self.opening.current

    @property
    def root(self) -> Path:
        return self.session.root

    async def say(self, text: str, kind: NoticeKind = "info", fix: str | None = None) -> None:
        await self.notices.add_notice(text, kind, fix)

    async def run(self, name: str, args: list[str], raw: str = "") -> None:
        """Run the command `name`; one that reads its text as typed (`/run`'s JSON) gets
        `raw`, the others their arguments split at white space."""
        if name in self.raw_table:
            await self.raw_table[name](raw)
        else:
            await self.table[name](args)
        self.host.post_message(SessionChanged())

    async def help(self, args: list[str]) -> None:
        """Two columns: a description wraps under the description, never under the names."""
        rows = [(c.usage, c.help) for c in COMMANDS]
        from_files = file_commands(self.root)
        if from_files.commands or from_files.problems:
            rows += [("", ""), ("From files:", ".claude/commands, .opencode/command, ~/.codex")]
            rows += [(c.usage, c.help) for c in from_files.commands.values()]
            rows += [("left out:", problem) for problem in from_files.problems]
        rows += [("", ""), ("Keys:", ""), *KEYS]
        await self.notices.add_notice("Commands:", rows=rows)

    async def exit(self, args: list[str]) -> None:
        self.host.post_message(QuitRequested())

    async def prompt(self, args: list[str]) -> None:
        self.host.run_worker(self._show_prompt(), group="prompt")

    async def _show_prompt(self) -> None:
        from zizou.ui.screens.text_viewer import TextViewerScreen

        compiled = await asyncio.to_thread(self.session.runtime.prompt.preview)
        layers = ", ".join(
            f"{name} {size:,} chars" + (f" ({note})" if note else "")
            for name, size, note in compiled.breakdown()
        )
        viewer = TextViewerScreen(f"System prompt: {layers}", compiled.text)
        self.host.post_message(ShowScreen(viewer))
        self.host.post_message(SessionChanged())

    async def context(self, args: list[str]) -> None:
        prompt = self.session.runtime.prompt
        if not args:
            budget = f"Repo map budget: {prompt.map_tokens} tokens."
            await self.say(f"{budget} /context light|default|max changes it.")
            return
        level = args[0].lower()
        if level not in MAP_TOKENS_BY_LEVEL:
            await self.say(f"Unknown budget {args[0]!r}.", "warning", "Use light, default or max.")
            return
        prompt.set_context_level(level)
        await self.say(f"Repo map budget: {prompt.map_tokens} tokens ({level}).", "success")

    async def instructions(self, args: list[str]) -> None:
        """/instructions: name, summary and source of each; /instructions NAME: its text."""
        found = self.session.runtime.ctx.instructions
        if not found:
            await self.say("No instructions are installed.", fix=INSTRUCTIONS_FIX)
        elif args:
            await self._show_instructions(found, args[0])
        else:
            lines = [
                f"Instructions on demand ({len(found)}): the model reads one when it needs it."
            ]
            lines += [f"  {i.name}: {i.summary or '(no summary)'}  [{i.source}]" for i in found]
            await self.say("\n".join(lines), fix="/instructions NAME shows one.")

    async def _show_instructions(self, found: InstructionSet, name: str) -> None:
        from zizou.ui.screens.text_viewer import TextViewerScreen

        item = found.get(name)
        if item is None:
            nearest = found.nearest(name)
            hint = f" Did you mean {nearest}?" if nearest else ""
            await self.say(
                f"No instructions named {name!r}.{hint}", "warning", "/instructions lists them."
            )
            return
        viewer = TextViewerScreen(f"Instructions: {item.name} ({item.source})", item.body)
        self.host.post_message(ShowScreen(viewer))

    async def history(self, args: list[str]) -> None:
        """/history: how many earlier turns the model is sent; /history N|all sets it."""
        agent = self.session.runtime.agent
        if not args:
            window = agent.config.history_window
            await self.say(f"History window: {window_words(window)}", fix=HISTORY_FIX)
            return
        word = args[0].lower()
        if word != "all" and not (word.isdigit() and len(word) <= 6):
            await self.say(f"Not a number of turns: {args[0]!r}.", "warning", HISTORY_FIX)
            return
        window = None if word == "all" else int(word)
        agent.set_history_window(window)
        await self.say(f"History window for this session: {window_words(window)}", "success")

    async def export(self, args: list[str]) -> None:
        session = self.session
        runtime = session.runtime
        messages = runtime.agent.conversation.messages
        text = transcript_markdown(runtime.session_id, session.model_id, messages)
        redact = redactor_for(runtime.agent.model).redact
        name = " ".join(args) or None
        try:
            target = await asyncio.to_thread(
                export_transcript, self.root, name, text, redact, runtime.session_id
            )
        except OSError as exc:
            await self.say(f"Could not write the transcript: {exc}", "error")
            return
        await self.say(
            f"Transcript saved to {target} (keys redacted, readable by you only).", "success"
        )

    async def cost(self, args: list[str]) -> None:
        session = self.session
        totals = session.totals
        lines = [
            f"This session: {tokens(totals.input_tokens)} tokens in, "
            f"{tokens(totals.output_tokens)} out, cost {cost(totals.cost_usd)}, "
            f"{counted(session.turns, 'turn')}."
        ]
        if session.last_turn is not None:
            last = session.last_turn
            lines.append(
                f"Last turn: {tokens(last.input_tokens)} in, "
                f"{tokens(last.output_tokens)} out, cost {cost(last.cost_usd)}."
            )
        for used in session.runtime.spending.against_caps():
            lines.append(f"Spending cap: {used} spent in this run.")
        await self.say("\n".join(lines))

    async def status(self, args: list[str]) -> None:
        from zizou.ui.status_command import status_text

        await self.say(status_text(self.session))

    async def config(self, args: list[str]) -> None:
        from zizou.ui.config_view import config_text

        options = self.session.options
        if options is None:
            await self.say("The settings are not known here: `zizou config` prints them.")
            return
        await self.say(config_text(options))

    async def log(self, args: list[str]) -> None:
        log = self.session.runtime.debug_log
        path = log.path if log is not None else debug_log_path(self.root)
        where = f"Debug log: {path}" + ("" if path.exists() else " (not written yet)")
        last = self.session.last_turn
        spent = (
            "no turn yet"
            if last is None
            else (
                f"last turn {tokens(last.input_tokens)} in, {tokens(last.output_tokens)} out, "
                f"cost {cost(last.cost_usd)}"
            )
        )
        await self.say(f"{where}\n{spent.capitalize()}.")


__all__ = ["KEYS", "SlashCommands"]
