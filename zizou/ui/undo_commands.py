"""`/undo`, `/redo` and `/rewind`: the app's side of the checkpoints (zizou/checkpoints/).

`/undo` puts back the files the last turn changed and takes the turn out of the conversation;
its message goes back into the prompt box to be edited and sent again. `/redo` does the undone
turn again. `/rewind` lists the turns and undoes every one from the last back to the one picked.
The chat is then shown afresh from the session (`zizou.ui.resumed`), as `zizou -c` would show it.

They act at once when nothing stands in the way, as aider's /undo does: an undo is undone by
/redo (and a redo by /undo), so a dialog every time would only be pressed through; for /rewind,
picking the turn is the choice. What the user may not expect is asked first: a file changed
outside zizou since the turn (its new bytes are overwritten; a redo brings them back) or one
whose saved copy is gone (left as it is). The dialog shows each file and what happens to it;
`n` changes nothing. The files a turn's commands changed are undone with the others; what no
snapshot keeps (ignored files, what lies outside the project) is named in the notice and the
dialog, never claimed.

The checkpoints are called only between turns, in a thread (a turn may have changed large
files), with the session held so that what is sent meanwhile queues.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from zizou.checkpoints import (
    FileOutcome,
    FilePlan,
    TurnInfo,
    UndoError,
    UndoRefused,
    UndoResult,
    caveats,
)
from zizou.checkpoints.plans import PLANNED_WORDS, REDONE_WORDS, UNDONE_WORDS, UNSURE
from zizou.errors import ZizouError
from zizou.ui.conversations import TAGLINE
from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.resumed import show_conversation
from zizou.ui.screens.confirm import ConfirmScreen
from zizou.ui.screens.picker import Entry, PickerScreen
from zizou.ui.slash_registry import slash
from zizou.ui.widgets.mascot import Mascot

if TYPE_CHECKING:
    from zizou.checkpoints import Checkpoints
    from zizou.session.kernel import TakenBack
    from zizou.ui.host import Host
    from zizou.ui.opening import Opening
    from zizou.ui.turns import TurnController
    from zizou.ui.widgets.chat_view import ChatView
    from zizou.ui.widgets.composer import Composer

Do = Callable[[bool], "TakenBack"]  # undo, redo or rewind; True: go ahead despite the conflicts

BUSY = "A turn is running: /{verb} once it ends (Esc stops it)."
UNAVAILABLE = "Undo is not available in this session: its changes were not recorded."
NO_ARGS = "/{verb} takes no arguments: /rewind picks an earlier turn to go back to."
EDIT_AGAIN = "Its message is back in the prompt: edit it and Enter sends it again; or /redo."
REWIND_TITLE = "Rewind: undo every turn from the last back to the one you pick (Enter)"
SHOWN_DONE = 12  # the notice names this many files of each kind, then says how many more
DONE, REDONE, PLANNED = UNDONE_WORDS, REDONE_WORDS, PLANNED_WORDS


class UndoCommands:
    def __init__(
        self,
        host: Host,
        opening: Opening,
        chat: ChatView,
        turns: TurnController,
        composer: Composer,
    ) -> None:
        self.host = host
        self.opening = opening
        self.chat = chat
        self.turns = turns
        self.composer = composer
        self.put_back: str | None = None  # the message the last undo put in the prompt box

    @slash(
        "undo",
        help="undo the last turn: its files put back, its message to edit",
        section="conversation",
    )
    async def undo(self, args: list[str]) -> None:
        """/undo: undo the last turn, its files and its messages."""
        if await self._usable("undo", args) is not None:
            await self._attempt("undo", self.opening.current.kernel.undo)

    @slash("redo", help="do the last undone turn again", section="conversation")
    async def redo(self, args: list[str]) -> None:
        """/redo: do the last undone turn again."""
        if await self._usable("redo", args) is not None:
            await self._attempt("redo", self.opening.current.kernel.redo)

    @slash(
        "rewind",
        help="pick a turn to go back to before: it and later ones undone",
        section="conversation",
    )
    async def rewind(self, args: list[str]) -> None:
        """/rewind: pick a turn; it and every later one are undone."""
        checkpoints = await self._usable("rewind")
        if checkpoints is None:
            return
        found = checkpoints.turns()
        if not found:
            why = "was compacted since its last turn" if checkpoints.history.floor else "has none"
            await self.chat.add_notice(f"There is no turn to rewind: the conversation {why}.")
            return

        async def picked(value: str | None) -> None:
            if value is not None:
                kernel = self.opening.current.kernel
                await self._attempt("rewind", partial(kernel.rewind, int(value)))

        entries = [turn_entry(info) for info in reversed(found)]  # the latest first
        self.host.post_message(ShowScreen(PickerScreen(REWIND_TITLE, entries), picked))

    async def _usable(self, verb: str, args: list[str] | None = None) -> Checkpoints | None:
        """The session's checkpoints, when they can be used now; else says why not."""
        checkpoints = self.opening.current.kernel.checkpoints
        problem = None
        if self.turns.busy:
            problem = BUSY.format(verb=verb)
        elif args:
            problem = NO_ARGS.format(verb=verb)
        elif checkpoints is None:
            problem = UNAVAILABLE
        if problem is not None:
            await self.chat.add_notice(problem, "warning")
        return checkpoints if problem is None else None

    async def _attempt(self, verb: str, do: Do, force: bool = False) -> None:
        """Do it; when a file stands in the way, ask first (nothing has changed yet)."""
        if self.turns.busy:  # a dialog was answered after a turn started
            await self.chat.add_notice(BUSY.format(verb=verb), "warning")
            return
        self.opening.hold()  # what is sent meanwhile queues
        try:
            try:
                taken = await asyncio.to_thread(do, force)
            except UndoRefused as refused:
                self._ask(verb, do, refused)
                return
            except UndoError as exc:
                await self.chat.add_notice(sentence(str(exc)), "warning")
                return
            except (ZizouError, OSError) as exc:  # the session file could not take the line
                await self._show_again()
                await self.chat.add_notice(f"The {verb} failed: {exc}", "error")
                return
            result, problems = taken.result, taken.problems
            self.opening.current.last_request_tokens = 0  # the context in use is not known
            await self._show_again()
            await self._report(verb, result)
            for problem in problems:
                await self.chat.add_notice(sentence(problem), "warning")
        finally:
            await self.turns.ready()
            self.host.post_message(SessionChanged())

    def _ask(self, verb: str, do: Do, refused: UndoRefused) -> None:
        async def answered(yes: bool | None) -> None:
            if yes:
                await self._attempt(verb, do, force=True)
            else:
                what = "undone" if verb != "redo" else "redone"
                await self.chat.add_notice(f"Nothing was {what}: every file is as it was.")

        dialog = ConfirmScreen(question(verb, refused), dialog_text(verb, refused))
        self.host.post_message(ShowScreen(dialog, answered))

    async def _show_again(self) -> None:
        """The conversation as it is now, in place of the chat (the mascot stays)."""
        mascot = next(iter(self.chat.query(Mascot)), None)
        await self.chat.clear(keep=mascot)
        if mascot is None:
            await self.chat.mount(Mascot(TAGLINE, fade=False))
        await show_conversation(self.chat, self.opening.current)

    async def _report(self, verb: str, result: UndoResult) -> None:
        done = result.turns
        if verb == "redo":
            text = f"Redid turn {quoted(done[0].text)}: {files_done(result.files, REDONE)}."
        elif len(done) == 1:
            text = f"Undid turn {quoted(done[0].text)}: {files_done(result.files, DONE)}."
        else:
            back = f"back to before {quoted(done[-1].text)}"
            text = f"Rewound {len(done)} turns, {back}: {files_done(result.files, DONE)}."
        message = done[-1].text  # the earliest turn undone: the conversation goes on from it
        fix = None
        if verb == "redo":
            if self.put_back is not None and self.composer.text == self.put_back:
                self.composer.set_text("")
            self.put_back = None
        elif not self.composer.text.strip() or self.composer.text == self.put_back:
            self.composer.set_text(message)
            self.put_back, fix = message, EDIT_AGAIN
        else:
            fix = f"Your draft stays in the prompt; the turn asked {quoted(message)}."
        await self.chat.add_notice(text, "success", fix)
        said = [sentence(line) for turn in done for line in caveats(turn, verb)]
        if said:
            await self.chat.add_notice(" ".join(dict.fromkeys(said)))
        if result.failed:
            failed = "; ".join(f"{o.path}: {o.note}" for o in result.failed)
            fix = "The other files were handled; these are as they were: put them right by hand."
            what = "Not done again" if verb == "redo" else "Not put back"
            await self.chat.add_notice(f"{what} — {failed}.", "error", fix)
        self.composer.focus_prompt()


def turn_entry(info: TurnInfo) -> Entry:
    """A turn in /rewind's list: what was asked, then its files and commands."""
    changed = f"{len(info.files)} {files(len(info.files))}"
    if info.files:
        changed += ": " + short(", ".join(info.files), 40)
    note = f"turn {info.turn + 1} · {changed}"
    if info.commands:
        note += f" · ran {len(info.commands)} command{'s' * (len(info.commands) != 1)}"
    return Entry(str(info.turn), short(info.text, 60) or "(no message)", note)


def question(verb: str, refused: UndoRefused) -> str:
    unsure = sum(1 for p in refused.conflicts if p.problem is None and p.unsure and not p.outside)
    outside = sum(1 for plan in refused.conflicts if plan.problem is None) - unsure
    missing = len(refused.conflicts) - outside - unsure
    since = "the turn" if verb != "redo" else "the undo"
    parts = [f"{outside} {files(outside)} changed outside zizou since {since}"] if outside else []
    parts += [f"{missing} {files(missing)} cannot be put back"] if missing else []
    parts += [f"{unsure} {files(unsure)} maybe not changed by its commands"] if unsure else []
    return f"{verb.capitalize()} anyway? {' and '.join(parts)}."


def dialog_text(verb: str, refused: UndoRefused) -> str:
    """Each turn and file, what happens to it, and why the dialog asks."""
    lines: list[str] = []
    for turn in refused.turns:
        lines.append(f"Turn {quoted(turn.text)}:")
        for plan in turn.files:
            lines.append(f"  {PLANNED[plan.action]:<11} {plan.path}{flag(verb, plan)}")
        lines += [f"  ran: {short('; '.join(turn.commands))}"] if turn.commands else []
        lines += [f"  {sentence(line)}" for line in caveats(turn, verb)]
    lines.append("Nothing has changed yet: n (or Esc) leaves it so.")
    return "\n".join(lines)


def flag(verb: str, plan: FilePlan) -> str:
    """Why a file is in the question: undo keeps what it overwrites (redo brings it back),
    redo does not."""
    if plan.problem is not None:
        return f"\n      ⚠ cannot be put back, left as it is: {plan.problem}"
    if plan.outside and verb == "redo":
        return "\n      ⚠ changed since the undo: overwritten"
    if plan.outside:
        return "\n      ⚠ changed outside zizou since the turn (kept for /redo)"
    if plan.unsure:
        return f"\n      ⚠ {UNSURE} (kept for /redo)"
    return ""


def files(count: int) -> str:
    return "file" if count == 1 else "files"


def files_done(outcomes: tuple[FileOutcome, ...], words: dict[str, str]) -> str:
    """What happened to the files, grouped: "restored a.py, b.py; deleted c.py"."""
    last = {o.path: o for o in outcomes}  # a rewind may touch a file in several turns
    grouped: dict[str, list[str]] = {}
    for outcome in last.values():
        if outcome.ok and outcome.action in words:
            note = " (it had changed outside zizou)" if "outside" in outcome.note else ""
            grouped.setdefault(words[outcome.action], []).append(outcome.path + note)
    if not grouped:
        return "it changed no files" if not outcomes else "no file needed changing"
    return "; ".join(f"{word} {named(paths)}" for word, paths in grouped.items())


def named(paths: list[str]) -> str:
    """The paths, the first SHOWN_DONE of them by name: "a.py, b.py and 40 more files"."""
    if len(paths) <= SHOWN_DONE:
        return ", ".join(paths)
    more = len(paths) - SHOWN_DONE
    return f"{', '.join(paths[:SHOWN_DONE])} and {more} more {files(more)}"


def quoted(text: str) -> str:
    return repr(short(text))


def short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


__all__ = ["UndoCommands", "dialog_text", "files_done", "question", "turn_entry"]
