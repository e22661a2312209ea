"""What each slash command does, on the running app. The table of commands is in `slash.py`."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from zizou.confined import relative
from zizou.confined import resolve as resolve_in_root
from zizou.errors import PathError, ZizouError
from zizou.paths import debug_log_path
from zizou.tools.base import Pin
from zizou.ui.model_actions import ModelActions
from zizou.ui.screens.picker import Entry, PickerScreen
from zizou.ui.slash import COMMANDS, SlashCommand
from zizou.ui.transcript import transcript_markdown
from zizou.ui.widgets.sidebar import cost, tokens

if TYPE_CHECKING:
    from zizou.ui.app import ZizouApp

CONTEXT_BUDGETS = {"light": 0, "default": 1024, "max": 8192}
KEYS = (
    ("Enter", "send (queued while zizou works)"),
    ("Ctrl+J", "new line (also Shift+Enter, or end a line with \\)"),
    ("Up/Down", "history"),
    ("Esc", "interrupt the running turn and its commands"),
    ("Ctrl+C twice", "quit"),
    ("Ctrl+P", "command palette"),
    ("Ctrl+B", "show or hide the sidebar"),
    ("@path", "complete a file name and pin the file"),
    ("!command", "run your own shell command"),
    ("Tab", "move to tool rows and the queue (Enter expands, e edits, x removes)"),
)


class SlashActions:
    def __init__(self, app: ZizouApp) -> None:
        self.app = app
        self.model_actions = ModelActions(app)
        self._table: dict[str, Callable[[list[str]], Awaitable[None]]] = {
            "help": self.help,
            "clear": self.clear,
            "exit": self.exit,
            "quit": self.exit,
            "model": self.model_actions.model,
            "models": self.model_actions.models,
            "keys": self.model_actions.keys,
            "sessions": self.model_actions.sessions,
            "prompt": self.prompt,
            "context": self.context,
            "add": self.add,
            "drop": self.drop,
            "export": self.export,
            "cost": self.cost,
            "permissions": self.permissions,
            "log": self.log,
        }

    @property
    def root(self) -> Path:
        return self.app.session.root

    async def say(self, text: str, kind: str = "info", fix: str | None = None) -> None:
        await self.app.chat.add_notice(text, kind, fix)  # type: ignore[arg-type]

    async def run(self, name: str, args: list[str]) -> None:
        await self._table[name](args)
        self.app.refresh_sidebar()

    def palette_commands(self) -> Iterator[SystemCommand]:
        """The commands for the palette (Ctrl+P). One that needs an argument is put in the
        prompt to finish; the others run."""
        for command in COMMANDS:
            yield SystemCommand(command.usage, command.help, self._palette(command))

    def _palette(self, command: SlashCommand) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            if command.args and not command.args.startswith("["):
                self.app.composer.set_text(f"/{command.name} ")
                self.app.composer.focus_prompt()
            else:
                await self.run(command.name, [])

        return run

    async def help(self, args: list[str]) -> None:
        width = max(len(c.usage) for c in COMMANDS)
        lines = ["Commands:"] + [f"  {c.usage:<{width}}  {c.help}" for c in COMMANDS]
        lines += ["", "Keys:"] + [f"  {key:<{width}}  {what}" for key, what in KEYS]
        await self.say("\n".join(lines))

    async def clear(self, args: list[str]) -> None:
        if self.app.busy:
            await self.say("A turn is running: press Esc to stop it first.", "warning")
            return
        from zizou.ui.widgets.mascot import Mascot

        self.app.session.new_conversation()
        await self.app.chat.clear()
        self.app.opening.conversation_dropped()
        await self.app.chat.mount(Mascot(self.app.tagline(), fade=False))
        await self.say(f"New conversation: session {self.app.session.runtime.session_id}.")

    async def exit(self, args: list[str]) -> None:
        await self.app.action_quit()

    async def prompt(self, args: list[str]) -> None:
        from zizou.ui.screens.text_viewer import TextViewerScreen

        compiled = self.app.session.runtime.prompt.render()
        layers = ", ".join(
            f"{name} {size:,} chars" + (f" ({note})" if note else "")
            for name, size, note in compiled.breakdown()
        )
        self.app.push_screen(TextViewerScreen(f"System prompt: {layers}", compiled.text))

    async def context(self, args: list[str]) -> None:
        prompt = self.app.session.runtime.prompt
        if not args:
            now = getattr(prompt, "map_tokens", None)
            shown = "not available yet" if now is None else f"{now} tokens"
            await self.say(f"Repo map budget: {shown}. /context light|default|max changes it.")
            return
        budget = CONTEXT_BUDGETS.get(args[0].lower())
        if budget is None:
            await self.say(f"Unknown budget {args[0]!r}.", "warning", "Use light, default or max.")
        elif not hasattr(prompt, "map_tokens"):
            await self.say("The repo map is not available in this version.", "warning")
        else:
            prompt.map_tokens = budget
            await self.say(f"Repo map budget: {budget} tokens ({args[0].lower()}).", "success")

    async def add(self, args: list[str]) -> None:
        if not args:
            await self.say("Which file?", "warning", "/add PATH, or type @ and a file name.")
            return
        for raw in args:
            try:
                path = resolve_in_root(self.root, raw.lstrip("@"))
            except PathError as exc:
                await self.say(str(exc), "error")
                continue
            if not path.is_file():
                await self.say(f"{raw} is not a file in the project.", "error")
                continue
            rel = relative(self.root, path)
            self.app.session.runtime.ctx.workspace.pin(Pin(rel))
            await self.say(f"Pinned {rel}: the model sees it in every step.", "success")

    async def drop(self, args: list[str]) -> None:
        workspace = self.app.session.runtime.ctx.workspace
        if not args:
            pins = ", ".join(p.path for p in workspace.pins) or "none"
            await self.say(f"Pinned files: {pins}.", fix="/drop PATH unpins one.")
            return
        for raw in args:
            name = raw.lstrip("@").removeprefix("./")
            if workspace.drop(name):
                await self.say(f"Unpinned {name}.", "success")
            else:
                await self.say(f"{name} is not pinned.", "warning")

    async def export(self, args: list[str]) -> None:
        runtime = self.app.session.runtime
        target = Path(args[0]) if args else Path(f"zizou-{runtime.session_id}.md")
        target = target if target.is_absolute() else self.root / target
        text = transcript_markdown(
            runtime.session_id, self.app.session.model_id, runtime.agent.conversation.messages
        )
        try:
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            await self.say(f"Could not write {target}: {exc}", "error")
            return
        await self.say(f"Transcript saved to {target}.", "success")

    async def cost(self, args: list[str]) -> None:
        session = self.app.session
        totals = session.totals
        lines = [
            f"This session: {tokens(totals.input_tokens)} tokens in, "
            f"{tokens(totals.output_tokens)} out, cost {cost(totals.cost_usd)}, "
            f"{session.turns} turns."
        ]
        if session.last_turn is not None:
            last = session.last_turn
            lines.append(
                f"Last turn: {tokens(last.input_tokens)} in, "
                f"{tokens(last.output_tokens)} out, cost {cost(last.cost_usd)}."
            )
        await self.say("\n".join(lines))

    async def permissions(self, args: list[str]) -> None:
        from zizou.config.project_rules import load_prefixes, rules_path

        try:
            saved = load_prefixes(self.root)
        except ZizouError as exc:
            await self.say(str(exc), "error")
            return
        rules = self.app.session.runtime.agent.runner.rules
        entries = [Entry(p, f"run_bash: {p}", "saved for this project", True) for p in saved]
        entries += [
            Entry(f"session:{p}", f"run_bash: {p}", "this session only (--allow)")
            for p in rules.bash_prefixes
            if p not in saved
        ]
        entries += [Entry(f"tool:{t}", t, "this session only") for t in sorted(rules.allowed_tools)]
        title = f"Approval rules ({rules_path(self.root)})"
        self.app.push_screen(PickerScreen(title, entries, pick=False))

    async def remove_rule(self, prefix: str) -> None:
        from zizou.config.project_rules import remove_prefix

        remove_prefix(self.root, prefix)
        runner = self.app.session.runtime.agent.runner
        kept = tuple(p for p in runner.rules.bash_prefixes if p != prefix)
        runner.rules = dataclasses.replace(runner.rules, bash_prefixes=kept)
        await self.say(f"Removed the rule `{prefix}`: such commands ask again.", "success")

    async def log(self, args: list[str]) -> None:
        path = debug_log_path(self.root)
        where = f"Debug log: {path}" + ("" if path.exists() else " (not written yet)")
        last = self.app.session.last_turn
        spent = (
            "no turn yet"
            if last is None
            else (
                f"last turn {tokens(last.input_tokens)} in, {tokens(last.output_tokens)} out, "
                f"cost {cost(last.cost_usd)}"
            )
        )
        await self.say(f"{where}\n{spent.capitalize()}.")


__all__ = ["CONTEXT_BUDGETS", "SlashActions"]
