"""A session's task state rebuilt from its `state` lines, as starting a resumed session and
undoing a turn both need it: the changes replayed in order on the zero value. A change that no
longer applies (the schema changed since) falls back to the last value that was valid."""

from __future__ import annotations

from collections.abc import Iterable

from zizou.contracts.task_state import TaskState
from zizou.sessions.records import StateRecord


def replay_task_state(task: TaskState, records: Iterable[StateRecord]) -> list[str]:
    """Apply `records` to `task` (at its zero value); warnings for those that no longer fit."""
    warnings: list[str] = []
    good = task.snapshot()
    skipping = False
    for record in records:
        if record.snapshot is not None:
            problems = task.restore(record.snapshot)
            skipping = bool(problems)
            if problems:
                task.restore(good)
                warnings.append(f"a saved task state no longer fits its schema ({problems[0]})")
            else:
                good = task.snapshot()
            continue
        if skipping:
            continue
        if record.patch is not None:
            result = task.apply_patch(record.patch, "session")
        else:
            result = task.apply_merge(record.merge or {}, "session")
        if not result.ok:
            task.restore(good)
            skipping = True
            warnings.append(
                f"the task state's saved changes no longer apply ({result.message}); it goes on "
                "from the last state that was valid"
            )
    task.take_user_edits()  # replayed edits were told to the model in their time
    task.mark_snapshot()
    return warnings


__all__ = ["replay_task_state"]
