"""Process groups: ending a command and everything it started, and the watchdog that ends them
when zizou itself ends, however it ends. The system layer: the tools, the checkers, the compute
decks and the MCP servers all start process groups and end them through here."""

from __future__ import annotations

from zizou.process_groups.groups import (
    KILL_GRACE_S,
    end_groups_now,
    group_alive,
    group_command,
    kill_process_group,
    same_group,
    start_time,
)

__all__ = [
    "KILL_GRACE_S",
    "end_groups_now",
    "group_alive",
    "group_command",
    "kill_process_group",
    "same_group",
    "start_time",
]
