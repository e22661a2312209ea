"""What a turn set besides files (the task state, a hook's value) follows undo and redo, in the
running session and in its file alike: undone with the turn, back with the redo, settled by a
summary."""

from __future__ import annotations

from checkpoint_session import Session

from zizou.contracts.events import Compacted
from zizou.contracts.state import HookStateChanged, StateChanged, StateEvent


def told(session: Session, event: StateEvent) -> None:
    """As the session's state tells its subscribers: the file and the checkpoints."""
    session.writer.record_state(event)
    session.checkpoints.record_state(event)


def goal_and_count(session: Session, goal: str, count: int) -> None:
    told(session, StateChanged({"goal": goal}, "model", ("/goal",), merge={"goal": goal}))
    told(session, HookStateChanged("count.py", "count", count))


def seen(session: Session) -> tuple[list[object], object, list[object], object]:
    """The goals set and the hook's count: as the running session has them, then the file."""
    live = session.checkpoints.state_lines.in_force(session.id)
    loaded = session.store.load(session.id)
    return (
        [record.merge for record in live.task],
        live.hook_state.get("count.py", {}).get("count"),
        [record.merge for record in loaded.state],
        loaded.hook_state.get("count.py", {}).get("count"),
    )


def test_undo_takes_a_turns_state_back_and_redo_brings_it_again(session: Session) -> None:
    session.turn("one", {"a.txt": b"1\n"})
    goal_and_count(session, "first", 1)
    session.turn("two", {"a.txt": b"2\n"})
    goal_and_count(session, "second", 2)

    session.checkpoints.undo()
    assert seen(session) == ([{"goal": "first"}], 1, [{"goal": "first"}], 1)
    session.checkpoints.redo()
    both = [{"goal": "first"}, {"goal": "second"}]
    assert seen(session) == (both, 2, both, 2)
    session.checkpoints.rewind(0)
    assert seen(session) == ([], None, [], None)


def test_a_new_turn_after_an_undo_keeps_the_undone_state_out(session: Session) -> None:
    session.turn("one", {"a.txt": b"1\n"})
    goal_and_count(session, "first", 1)
    session.checkpoints.undo()
    session.turn("instead", {"b.txt": b"b\n"})
    goal_and_count(session, "other", 3)
    assert seen(session) == ([{"goal": "other"}], 3, [{"goal": "other"}], 3)


def test_a_summary_settles_the_state_of_the_turns_it_replaced(session: Session) -> None:
    for n, text in enumerate(("one", "two"), 1):
        session.turn(text, {"a.txt": f"{n}\n".encode()})
        goal_and_count(session, text, n)
    summary = [
        {"role": "user", "content": "This session was compacted: ..."},
        {"role": "assistant", "content": "Understood."},
    ]
    session.conversation.replace(summary)  # what /compact does, then tells the recorders
    event = Compacted("user", "...", 100, 10, tuple(summary))
    session.writer.emit(event)
    session.checkpoints.emit(event)
    session.turn("three", {"a.txt": b"3\n"})  # the second user message again, after the summary
    goal_and_count(session, "three", 3)

    session.checkpoints.undo()
    kept = [{"goal": "one"}, {"goal": "two"}]
    assert seen(session) == (kept, 2, kept, 2)
