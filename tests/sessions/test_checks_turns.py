"""A checks report in a saved conversation is zizou's message, not a turn of the user's: the
turns counted when a session is loaded match the turns its checkpoints name."""

from __future__ import annotations

from zizou.contracts.conversation import turn_start
from zizou.sessions.turns import users_asked

REPORT = {"role": "user", "content": "The checks ... found", "checks": True}
MESSAGES = [
    {"role": "user", "content": "one"},
    {"role": "assistant", "content": "a"},
    REPORT,
    {"role": "assistant", "content": "fixed"},
    {"role": "user", "content": "two"},
    {"role": "assistant", "content": "b"},
]


def test_a_checks_report_is_not_counted_as_a_users_turn() -> None:
    assert users_asked(MESSAGES) == (2, "two")
    assert turn_start(MESSAGES, 1) == 4
