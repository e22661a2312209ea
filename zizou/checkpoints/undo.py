"""One session's checkpoints, undone, redone or rewound by turn.

`Checkpoints` keeps what tools change as its `ChangeLog` does (checkpoints/recorder.py), and
adds the undo API the front ends use (the app's /undo, /redo, /rewind and `zizou undo`): call
it between turns, never while one runs. Undo puts back every file the conversation's last turn
changed, the turn's messages leave the conversation (an `undone` line), and what redo needs is
kept; a file changed outside zizou since the turn makes it refuse (`UndoRefused`) unless forced.
The files the turn's commands changed are among its files (commands.py); what they changed that
no snapshot keeps, and the commands whose changes stay, are in the previews.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from zizou import confined
from zizou.checkpoints.files import Found, look, put_back, remove, sweep_beside
from zizou.checkpoints.history import FileChange, Undone
from zizou.checkpoints.plans import (
    FileOutcome,
    FilePlan,
    Run,
    TurnInfo,
    TurnPreview,
    UndoError,
    UndoRefused,
    UndoResult,
    plan_file,
    ran,
    runs,
    user_text,
    users,
)
from zizou.checkpoints.recorder import ChangeLog
from zizou.contracts.conversation import Conversation
from zizou.contracts.messages import Message, from_wire, stored
from zizou.errors import PathError
from zizou.sessions.records import CommandNote, RedoneRecord, UndoneRecord
from zizou.sessions.store import SessionStore

DAMAGED = "its saved copy is damaged or gone from .zizou/checkpoints/, so it cannot be put back"
BULK = 16  # a turn of more files is written without a sync per file, then synced once


def _stopped(verb: str, failed: FileOutcome, outcomes: list[FileOutcome], done: int) -> str:
    """Why an undo or redo stopped at a file it could not write, and what to do."""
    written = [o.path for o in outcomes if o.ok and o.action != "none"]
    before = f"; already handled: {', '.join(written)}" if written else ""
    turns = f" ({done} later {'turn was' if done == 1 else 'turns were'} undone first)"
    kept = "the turn stays undone" if verb == "redo" else "the turn stays in the conversation"
    return (
        f"{verb} stopped at {failed.path}: {failed.note}{before}{turns if done else ''}. "
        f"{kept.capitalize()}; put {failed.path} right, then {verb} again"
    )


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _preview(
    turn: int, records: Sequence[Message], plans: tuple[FilePlan, ...], notes: Sequence[CommandNote]
) -> TurnPreview:
    did = ran(records, notes)
    text = user_text(records)
    return TurnPreview(turn, text, plans, did.commands, did.not_undone, did.unkept, did.more_unkept)


class Checkpoints(ChangeLog):
    """The checkpoints of one session, and its undo: its conversation, the file that keeps it
    (`writer`; None: kept in memory only) and the lines that file already holds."""

    @classmethod
    def open(cls, root: Path, session_id: str) -> Checkpoints:
        """A saved session's checkpoints, appending to its file (`zizou undo`, scripts)."""
        store = SessionStore(root)
        loaded = store.load(session_id)
        conversation = Conversation(loaded.messages)
        writer = store.writer(session_id)
        return cls(root, session_id, conversation, writer, loaded.checkpoints, loaded.state_lines)

    def turns(self) -> list[TurnInfo]:
        """Every turn undo can reach, oldest first, with the files it changed (the turns a
        summary replaced are not among them)."""
        records = self.conversation.records
        found: list[TurnInfo] = []
        for run in self._runs():
            turn = records[run.start : run.end]
            did = ran(turn, self.notes(run))
            files = tuple(change.path for change in self.changes(run))
            found.append(
                TurnInfo(
                    run.last,
                    user_text(turn),
                    files,
                    did.commands,
                    did.not_undone,
                    did.unkept,
                    did.more_unkept,
                )
            )
        return found

    def undo_preview(self) -> TurnPreview | None:
        """What `undo` would do to the last turn; None when there is no turn to undo."""
        found = self._runs()
        return self.rewind_preview(found[-1].last)[0] if found else None

    def rewind_preview(self, to_turn: int) -> tuple[TurnPreview, ...]:
        """What `rewind(to_turn)` would do: the turns from the last back to `to_turn`, latest
        first; a file of an earlier turn is planned as undoing the later ones will leave it."""
        found = self._runs()
        chosen = [run for run in found if run.last >= to_turn]
        if not chosen or to_turn < found[0].first:
            raise UndoError(f"there is no turn {to_turn} to undo in this conversation")
        expected: dict[str, Found] = {}  # each file as undoing the later turns leaves it
        previews: list[TurnPreview] = []
        for run in reversed(chosen):
            plans: list[FilePlan] = []
            for change in self.changes(run):
                now = expected.get(change.path) or look(self.root, change.path)
                plans.append(self._plan(change, now, undo=True))
                expected[change.path] = now if change.unsaved else Found(change.before)
            previews.append(self._preview(run, tuple(plans)))
        return tuple(previews)

    def undo(self, force: bool = False) -> UndoResult:
        """Undo the conversation's last turn: its files put back, its messages removed. Raises
        UndoError when there is no turn, UndoRefused (nothing changed) when a file changed
        outside zizou since, or cannot be put back, unless `force`: then those changed outside
        are overwritten (their bytes kept for redo) and those without a copy are left."""
        preview = self.undo_preview()
        if preview is None:
            why = "was compacted since its last turn" if self.history.floor else "has no turns"
            raise UndoError(f"there is nothing to undo: the conversation {why}")
        return self.rewind(preview.turn, force)

    def rewind(self, to_turn: int, force: bool = False) -> UndoResult:
        """Undo every turn from the last back to `to_turn` (a `TurnInfo.turn`), latest first;
        each can be redone in turn. Refuses as `undo` does, before changing anything."""
        previews, saved = self._verified(self.rewind_preview(to_turn))
        self._sweep(previews)
        if not force and any(preview.conflicts for preview in previews):
            raise UndoRefused(previews)
        outcomes: list[FileOutcome] = []
        for done, preview in enumerate(previews):
            turn_outcomes, stopped = self._undo_turn(preview, saved, force)
            if stopped is not None:
                raise UndoError(_stopped("undo", stopped, turn_outcomes, done))
            outcomes += turn_outcomes
        return UndoResult(previews, tuple(outcomes))

    @property
    def can_redo(self) -> bool:
        return self._redoable() is not None

    def redo_preview(self) -> TurnPreview | None:
        """What `redo` would do; None when there is nothing to redo."""
        entry = self._redoable()
        if entry is None:
            return None
        messages = [from_wire(m) for m in entry.messages]
        plans = tuple(self._redo_plan(change) for change in entry.files)
        return _preview(entry.turn, messages, plans, entry.commands)

    def redo(self, force: bool = False) -> UndoResult:
        """Do the last undone turn again: its files as undo found them, its messages back.
        Raises UndoError when there is nothing to redo (nothing undone, or the conversation
        went on since), UndoRefused as `undo` does unless `force`."""
        entry, found = self._redoable(), self.redo_preview()
        if entry is None or found is None:
            why = "nothing was undone" if not self.history.redo else "the conversation went on"
            raise UndoError(f"there is nothing to redo: {why} since")
        (preview,), saved = self._verified((found,))
        self._sweep((preview,))
        if not force and preview.conflicts:
            raise UndoRefused([preview], "redo")
        changes = {change.path: change for change in entry.files}
        outcomes: list[FileOutcome] = []
        redone: list[FileChange] = []
        durable = len(preview.files) <= BULK
        try:
            for plan in preview.files:
                change = changes[plan.path]
                now = look(self.root, plan.path)
                outcome = self._keep_for_undo(plan, change, now, durable)
                if outcome is None:
                    outcome = self._apply(plan, saved, durable)
                if outcome.ok and plan.action != "none" and now.sha != change.before:
                    change = replace(change, before=now.sha)  # undo brings the user's bytes back
                elif not outcome.ok and now.problem is None:
                    change = replace(change, before=now.sha, after=now.sha)  # left as it is
                outcomes.append(outcome)
                if not outcome.ok and not force:
                    raise UndoError(_stopped("redo", outcome, outcomes, 0))
                redone.append(change)
        finally:
            self._settle(durable)
        records = [stored(m) for m in self.conversation.records]
        self.conversation.replace([*records, *entry.messages])
        self.history.redone(entry.turn, redone, entry.commands)
        self.state_lines.redone(entry.turn)
        if self.writer is not None:
            files = replace(entry, files=tuple(redone)).changed()
            messages = list(entry.messages)
            notes = list(entry.commands)
            done = RedoneRecord(
                ts=_now(), turn=entry.turn, messages=messages, files=files, commands=notes
            )
            self.writer.record_undo(done, len(self.conversation))
        return UndoResult((preview,), tuple(outcomes))

    # The work.

    def _runs(self) -> list[Run]:
        """The conversation's turns that undo can reach: those after the last summary."""
        return [run for run in runs(self.conversation.records) if run.first >= self.history.floor]

    def _preview(self, run: Run, plans: tuple[FilePlan, ...]) -> TurnPreview:
        records = self.conversation.records[run.start : run.end]
        return _preview(run.last, records, plans, self.notes(run))

    def _plan(self, change: FileChange, now: Found, *, undo: bool) -> FilePlan:
        """The plan for one file as it is `now`; a file whose bytes cannot be read (too large,
        not a regular file) cannot be kept, so it is left as it is even when forced."""
        plan = plan_file(change, now.sha, now.problem, undo=undo, has=self.blobs.has)
        if now.problem is not None and plan.problem is None and plan.action != "none":
            verb = "undo" if undo else "redo"
            why = f"its bytes now cannot be kept, so {verb} leaves it as it is: {now.problem}"
            plan = replace(plan, problem=why)
        return plan

    def _verified(
        self, previews: tuple[TurnPreview, ...]
    ) -> tuple[tuple[TurnPreview, ...], dict[str, bytes]]:
        """The previews, each saved copy they need read back and checked before any file is
        changed: a file whose copy is damaged or gone gets that problem. The copies, by hash."""
        saved: dict[str, bytes] = {}
        checked: list[TurnPreview] = []
        for preview in previews:
            plans: list[FilePlan] = []
            for plan in preview.files:
                target = plan.target
                needs = plan.action != "none" and plan.problem is None
                if needs and target is not None and target not in saved:
                    data = self.blobs.get(target)
                    if data is None:
                        plan = replace(plan, problem=DAMAGED)
                    else:
                        saved[target] = data
                plans.append(plan)
            checked.append(replace(preview, files=tuple(plans)))
        return tuple(checked), saved

    def _undo_turn(
        self, preview: TurnPreview, saved: dict[str, bytes], force: bool
    ) -> tuple[list[FileOutcome], FileOutcome | None]:
        """Put back the files of the conversation's last turn, then remove its messages. Without
        `force` it stops at the first file that cannot be written (the failed outcome is
        returned second), and the turn stays."""
        run = runs(self.conversation.records)[-1]
        assert run.last == preview.turn, "the turns are undone latest first"
        changes = {change.path: change for change in self.changes(run)}
        outcomes: list[FileOutcome] = []
        kept: list[FileChange] = []
        durable = len(preview.files) <= BULK
        try:
            for plan in preview.files:
                change = changes[plan.path]
                now = look(self.root, plan.path)
                as_planned = plan.action == "none" and now.sha == plan.target
                after = change.after if now.problem is not None or as_planned else now.sha
                outcome = self._keep_for_undo(plan, change, now, durable)  # for redo
                if outcome is None:
                    outcome = self._apply(plan, saved, durable)
                outcomes.append(outcome)
                if not outcome.ok and not force:
                    return outcomes, outcome
                kept.append(replace(change, after=after))
        finally:
            self._settle(durable)
        records = self.conversation.records
        removed = tuple(stored(m) for m in records[run.start :])
        notes = tuple(self.notes(run))
        self.conversation.replace([stored(m) for m in records[: run.start]])
        entry = Undone(preview.turn, removed, tuple(kept), notes)
        self.history.undone(entry)
        self.state_lines.cut(entry.turn, users(self.conversation.records))
        if self.writer is not None:
            undone = UndoneRecord(
                ts=_now(),
                turn=entry.turn,
                messages=list(removed),
                files=entry.changed(),
                commands=list(notes),
            )
            self.writer.record_undo(undone, len(self.conversation))
        return outcomes, None

    def _sweep(self, previews: tuple[TurnPreview, ...]) -> None:
        """Remove the temp files a write cut short left (an undo killed halfway, a crash): in
        `.zizou/tmp`, and beside the files about to be put back."""
        confined.sweep_staged(self.root)
        sweep_beside(self.root, [plan.path for preview in previews for plan in preview.files])

    def _settle(self, durable: bool) -> None:
        """After a batch written without syncs: list its blobs, and make every write durable
        (one sync) before any record says it was done."""
        if not durable:
            self.blobs.flush()
            os.sync()

    def _keep_for_undo(
        self, plan: FilePlan, change: FileChange, now: Found, durable: bool = True
    ) -> FileOutcome | None:
        """Keep the file's bytes now, which undo (or redo) is about to overwrite, so the step
        after can bring them back; a failed outcome when they cannot be kept (the file is left
        as it is), None when they were kept or need no keeping."""
        if plan.action == "none" or plan.problem is not None:
            return None
        if now.problem is not None:  # it changed since the preview: too large or unreadable now
            why = f"its bytes now cannot be kept, so it was left as it is: {now.problem}"
            return FileOutcome(plan.path, plan.action, False, why)
        if now.data is None:
            return None
        try:
            self.blobs.put(now.data, durable=durable)
        except (PathError, OSError) as err:
            why = f"its bytes now could not be kept, so it was left as it is: {err}"
            return FileOutcome(plan.path, plan.action, False, why)
        return None

    def _apply(self, plan: FilePlan, saved: dict[str, bytes], durable: bool = True) -> FileOutcome:
        if plan.action == "none":
            return FileOutcome(plan.path, "none", True, "already as it was")
        if plan.problem is not None:
            return FileOutcome(plan.path, plan.action, False, plan.problem)
        try:
            if plan.target is None:
                remove(self.root, plan.path)
            else:
                data = saved.get(plan.target)
                if data is None:
                    raise PathError(DAMAGED)
                put_back(self.root, plan.path, data, plan.mode, durable=durable)
        except (PathError, OSError) as err:
            return FileOutcome(plan.path, plan.action, False, str(err) or type(err).__name__)
        note = "it had changed outside zizou; overwritten" if plan.outside else ""
        if plan.unsure and not plan.outside:
            note = "maybe not the command's change; put back as asked"
        return FileOutcome(plan.path, plan.action, True, note)

    def _redo_plan(self, change: FileChange) -> FilePlan:
        return self._plan(change, look(self.root, change.path), undo=False)

    def _redoable(self) -> Undone | None:
        """The last undone turn, if the conversation is still as its undo left it."""
        if not self.history.redo:
            return None
        entry = self.history.redo[-1]
        return entry if users(self.conversation.records) == entry.users_after else None


__all__ = ["Checkpoints"]
