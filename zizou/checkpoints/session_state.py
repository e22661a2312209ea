"""What a turn changed besides files goes back with them: after an undo, a redo or a rewind in
a running session, its task state (goal, plan), open windows, hooks' state and sticky
instructions are set to what the state lines of the turns still in the conversation give
(zizou/sessions/state_lines.py). The session keeps those lines as its state changes, and
`zizou -c` after `zizou undo` loads the same state from the same lines in the session file, so
both ways agree.

The changes are told to the session's subscribers as any other (the sidebar, the session file),
so the sidebar, `/state` and the next request show the state as it was before the turn."""

from __future__ import annotations

from zizou.contracts.state import MAX_STICKY, SessionState
from zizou.contracts.task_state import TaskState
from zizou.sessions.state_lines import StateLines
from zizou.sessions.task_replay import replay_task_state


def follow_turns(state: SessionState, lines: StateLines, session_id: str) -> list[str]:
    """Set `state` to what `lines` give now; warnings for what could not be read back."""
    now = lines.in_force(session_id)
    warnings = list(now.warnings)
    with state.lock:
        if state.task is not None:
            task = TaskState(state.task.schema, max_chars=state.task.max_chars)
            warnings += replay_task_state(task, now.task)
            if task.compact_json() != state.task.compact_json():
                state.reset_task_to(task.value)
        state.restore(now.windows)
        state.hook_state = {hook: dict(values) for hook, values in now.hook_state.items()}
        state.sticky = tuple(now.sticky[:MAX_STICKY])
    return warnings


__all__ = ["follow_turns"]
