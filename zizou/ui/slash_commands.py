"""What each slash command does. Each is declared beside its handler (`@slash`); these are the
general ones, and `SlashCommands` runs any of them. The ones about the model and the keys are
`ModelSwitcher`'s, the ones that swap the conversation `Conversations'`,
the ones about the workspace's windows `WorkspaceCommands'`, the task state's `StateCommands'`,
the mode's `ModeController`'s, the hooks' `HookCommands'`, /undo, /redo and /rewind
`UndoCommands'`, the background jobs' `JobCommands'` and the approval rules' `RuleCommands'`.

Commands say what they did in the conversation (`Notices`) and ask the app for screens and for
quitting with messages, so they run, and are tested, without a Textual app. `/prompt` renders the
prompt (the repo map can take seconds on a large project) in a worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from zizou.agent.prompt import MAP_TOKENS_BY_LEVEL
from zizou.paths import debug_log_path
from zizou.plural import counted
from zizou.trace import redactor_for
from zizou.ui.hook_commands import HookCommands
from zizou.ui.host import QuitRequested, SessionChanged, ShowScreen
from zizou.ui.job_commands import JobCommands
from zizou.ui.rule_commands import RuleCommands
from zizou.ui.slash import by_name, commands, file_commands
from zizou.ui.slash_registry import SECTIONS, handlers, slash
from zizou.ui.state_commands import StateCommands
from zizou.ui.transcript import export_transcript, transcript_markdown
from zizou.ui.widgets.sidebar import cost, tokens

if TYPE_CHECKING:
    from zizou.contracts.instructions import InstructionSet
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening
    from zizou.ui.session import UiSession
    from zizou.ui.widgets.messages import NoticeKind

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
    """Runs a slash command: the handler declared for it (`@slash`) among its own methods and
    those of the app's controllers (`owners`), which it scans once."""

    def __init__(
        self, host: Host, opening: Opening, notices: Notices, owners: Iterable[object] = ()
    ) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices
        self.state = StateCommands(host, opening, notices)
        self.rules = RuleCommands(host, opening, notices)
        self.remove_rule = self.rules.remove  # a rule removed in `/permissions`
        jobs = JobCommands(host, opening, notices)
        owners = list(owners)
        if not any(isinstance(owner, HookCommands) for owner in owners):
            owners.append(HookCommands(host, opening, notices))
        self.table = handlers(self, self.state, self.rules, jobs, *owners)

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
        `raw`, the others their arguments split at white space. A command whose handler is
        not here (the app's alone: /mode, /undo, ...) says so."""
        found = self.table.get(name)
        if found is None:
            await self.say(f"/{name} is not available here.", "warning")
            return
        command, handler = found
        await handler(raw if command.raw else args)
        self.host.post_message(SessionChanged())

    @slash("help", help="show the commands and keys", section="app")
    async def help(self, args: list[str]) -> None:
        """Two columns: a description wraps under the description, never under the names."""
        rows: list[tuple[str, str]] = []
        for section, title in SECTIONS.items():
            listed = [(c.usage, c.help) for c in commands() if c.section == section]
            rows += [*([("", "")] if rows else []), (f"{title}:", ""), *listed]
        from_files = file_commands(self.root)
        if from_files.commands or from_files.problems:
            rows += [("", ""), ("From files:", ".claude/commands, .opencode/command, ~/.codex")]
            rows += [(c.usage, c.help) for c in from_files.commands.values()]
            rows += [("left out:", problem) for problem in from_files.problems]
        rows += [("", ""), ("Keys:", ""), *KEYS]
        await self.notices.add_notice("Commands:", rows=rows)

    @slash("exit", help="quit zizou", section="app")
    @slash("quit", help="quit zizou", section="app")
    async def exit(self, args: list[str]) -> None:
        self.host.post_message(QuitRequested())

    @slash("prompt", help="show the compiled system prompt", section="context")
    async def prompt(self, args: list[str]) -> None:
        self.host.run_worker(self._show_prompt(), group="prompt")

    async def _show_prompt(self) -> None:
        from zizou.ui.screens.text_viewer import TextViewerScreen

        compiled = await asyncio.to_thread(self.session.kernel.prompt.preview)
        layers = ", ".join(
            f"{name} {size:,} chars" + (f" ({note})" if note else "")
            for name, size, note in compiled.breakdown()
        )
        viewer = TextViewerScreen(f"System prompt: {layers}", compiled.text)
        self.host.post_message(ShowScreen(viewer))
        self.host.post_message(SessionChanged())

    @slash(
        "context",
        "[light|default|max]",
        help="what was loaded (instructions, commands, agents, hooks, rules); or the map budget",
        section="context",
    )
    async def context(self, args: list[str]) -> None:
        prompt = self.session.kernel.prompt
        if not args:
            from zizou.config.setup_report import setup_report

            loaded = await asyncio.to_thread(setup_report, self.root, frozenset(by_name()))
            budget = f"Repo map budget: {prompt.map_tokens} tokens."
            await self.say(f"{loaded}\n{budget} /context light|default|max changes it.")
            return
        level = args[0].lower()
        if level not in MAP_TOKENS_BY_LEVEL:
            await self.say(f"Unknown budget {args[0]!r}.", "warning", "Use light, default or max.")
            return
        prompt.set_context_level(level)
        await self.say(f"Repo map budget: {prompt.map_tokens} tokens ({level}).", "success")

    @slash(
        "instructions",
        "[NAME]",
        help="list the instructions on demand, or read one",
        section="context",
    )
    @slash("skills", "[NAME]", help="the same as /instructions", section="context")
    async def instructions(self, args: list[str]) -> None:
        """/instructions: name, summary and source of each; /instructions NAME: its text."""
        found = self.session.kernel.instructions
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

    @slash(
        "history",
        "[N|all]",
        help="how many earlier turns the model is sent",
        section="conversation",
    )
    async def history(self, args: list[str]) -> None:
        """/history: how many earlier turns the model is sent; /history N|all sets it."""
        kernel = self.session.kernel
        if not args:
            window = kernel.history_window
            await self.say(f"History window: {window_words(window)}", fix=HISTORY_FIX)
            return
        word = args[0].lower()
        if word != "all" and not (word.isdigit() and len(word) <= 6):
            await self.say(f"Not a number of turns: {args[0]!r}.", "warning", HISTORY_FIX)
            return
        window = None if word == "all" else int(word)
        kernel.set_history_window(window)
        await self.say(f"History window for this session: {window_words(window)}", "success")

    @slash(
        "export",
        "[FILE]",
        help="save the transcript, redacted (.zizou/exports/ or FILE)",
        section="conversation",
    )
    async def export(self, args: list[str]) -> None:
        session = self.session
        kernel = session.kernel
        messages = kernel.conversation.messages
        text = transcript_markdown(kernel.session_id, session.model_id, messages)
        redact = redactor_for(kernel.model).redact
        name = " ".join(args) or None
        try:
            target = await asyncio.to_thread(
                export_transcript, self.root, name, text, redact, kernel.session_id
            )
        except OSError as exc:
            await self.say(f"Could not write the transcript: {exc}", "error")
            return
        await self.say(
            f"Transcript saved to {target} (keys redacted, readable by you only).", "success"
        )

    @slash("cost", help="tokens and cost so far", section="model")
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
        for used in session.kernel.spending.against_caps():
            lines.append(f"Spending cap: {used} spent in this run.")
        await self.say("\n".join(lines))

    @slash(
        "status", help="model, key, sandbox, permission mode, MCP servers, context", section="model"
    )
    async def status(self, args: list[str]) -> None:
        from zizou.ui.status_command import status_text

        await self.say(status_text(self.session))

    @slash(
        "config",
        help="the settings this session started with, and where each came from",
        section="model",
    )
    async def config(self, args: list[str]) -> None:
        from zizou.ui.config_view import config_text

        options = self.session.options
        if options is None:
            await self.say("The settings are not known here: `zizou config` prints them.")
            return
        await self.say(config_text(options))

    @slash("log", help="where the debug log is and what the last turn cost", section="model")
    async def log(self, args: list[str]) -> None:
        log = self.session.kernel.debug_log
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
