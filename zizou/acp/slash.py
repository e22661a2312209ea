"""The slash commands an editor is offered (`available_commands_update`), and what a prompt that
starts with one does.

An editor has its own undo, files and model picker, so it is offered the commands that act on
zizou's side of the session: `/compact`, `/undo` and `/redo` (the files of zizou's last turn
put back, as `zizou undo` puts them), `/init`, the decks (`/decks` lists them, `/run DECK
[INPUT]` runs one) and the project's command files (`.claude/commands/*.md` and the like,
zizou/contracts/file_commands.py), whose body is sent as the user's message. A prompt that starts
with any other `/word` is sent as it is, as `zizou -p` sends it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import cache

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from zizou.agent.guards import StopTurn
from zizou.checkpoints import UndoError, UndoResult
from zizou.checkpoints.plans import REDONE_WORDS, UNDONE_WORDS
from zizou.contracts.file_commands import load_file_commands, message_for, split_command
from zizou.errors import ProviderError
from zizou.session.kernel import Session

EDITOR_COMMANDS: dict[str, tuple[str, str]] = {  # name: (what it does, its input's hint)
    "compact": ("summarise the conversation, and go on from the summary", "[instructions]"),
    "undo": ("undo zizou's last turn: the files it changed put back, its messages dropped", ""),
    "redo": ("do the last undone turn again", ""),
    "init": ("write ZIZOU.md for this project (you approve the file)", ""),
    "decks": ("list the decks (sub-agents), and the deck files left out", ""),
    "run": ("run a deck on an input (JSON or text), not through the model", "DECK [INPUT]"),
}
INIT_IN_PLAN = "/init writes ZIZOU.md, and plan mode changes nothing: switch to build first."


@dataclass(frozen=True)
class Said:
    """The command was answered: `text` goes to the editor as zizou's message."""

    text: str


@dataclass(frozen=True)
class Send:
    """`text` is sent as the user's message (a turn); `notes` are told first."""

    text: str
    notes: tuple[str, ...] = ()


@cache
def reserved() -> frozenset[str]:
    """zizou's own command names (the app's), which win over a command file's."""
    from zizou.ui.slash import by_name

    return frozenset(by_name())


def command_input(hint: str) -> AvailableCommandInput | None:
    return AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None


def available_commands(session: Session) -> list[AvailableCommand]:
    """zizou's commands for an editor, then the project's and the user's command files."""
    commands = [
        AvailableCommand(name=name, description=about, input=command_input(hint))
        for name, (about, hint) in EDITOR_COMMANDS.items()
    ]
    found = load_file_commands(session.root, reserved())
    for command in found.commands.values():
        about = command.help
        commands.append(
            AvailableCommand(
                name=command.name, description=about, input=command_input(command.argument_hint)
            )
        )
    return commands


async def slash_command(session: Session, text: str) -> Said | Send:
    """What the prompt `text` does: a command of `EDITOR_COMMANDS` runs here; a command file
    sends its body; anything else is sent as it is."""
    found = split_command(text)
    if found is None:
        return Send(text)
    name, arguments = found[0].lower(), found[1]
    if name not in EDITOR_COMMANDS:
        message, notes = await asyncio.to_thread(message_for, session.root, text, reserved())
        return Send(message, tuple(notes))
    if name == "compact":
        return Said(await compact(session, arguments))
    if name in ("undo", "redo"):
        return Said(await undo_or_redo(session, name, arguments))
    if name == "init":
        from zizou.hooks.init import INIT_REQUEST

        return Said(INIT_IN_PLAN) if session.state.mode == "plan" else Send(INIT_REQUEST)
    from zizou.acp.deck_commands import decks_listing, run_deck

    if name == "decks":
        return Said(decks_listing(session))
    return Said(await run_deck(session, arguments))


async def compact(session: Session, instructions: str) -> str:
    if len(session.conversation) == 0:
        return "Nothing to compact yet: the conversation is empty."
    try:
        event = await session.compact(instructions)
    except (ProviderError, StopTurn) as exc:
        return f"The conversation was not compacted (it is unchanged): {exc}"
    size = f"~{event.tokens_before:,} to ~{event.tokens_after:,} tokens"
    return f"Compacted: the conversation is now this summary ({size}).\n\n{event.summary}"


async def undo_or_redo(session: Session, verb: str, arguments: str) -> str:
    """Undo or redo a turn as `zizou undo` does; a file changed outside zizou since stops it
    (nothing is changed) and the answer names the file."""
    if arguments:
        return f"/{verb} takes no arguments."
    if session.checkpoints is None:
        return "Undo is not available in this session: its changes were not recorded."
    do = session.undo if verb == "undo" else session.redo
    try:
        taken = await asyncio.to_thread(do, False)
    except UndoError as exc:
        return sentence(str(exc))
    return "\n".join([report(verb, taken.result), *(sentence(p) for p in taken.problems)])


def report(verb: str, result: UndoResult) -> str:
    words = REDONE_WORDS if verb == "redo" else UNDONE_WORDS
    turn = result.turns[0]
    done: dict[str, list[str]] = {}
    for outcome in result.files:
        if outcome.ok and outcome.action != "none" and outcome.action in words:
            done.setdefault(words[outcome.action], []).append(outcome.path)
    files = "; ".join(f"{word} {', '.join(paths)}" for word, paths in done.items())
    what = "Redid" if verb == "redo" else "Undid"
    lines = [f"{what} turn {turn.text!r}: {files or 'it changed no files'}."]
    lines += [f"Not put back: {o.path}: {o.note}" for o in result.failed]
    return "\n".join(lines)


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


__all__ = [
    "EDITOR_COMMANDS",
    "Said",
    "Send",
    "available_commands",
    "slash_command",
]
