"""A process group is named by its id and its leader's start time, so a group that ended is
never taken for another given the same number since (what the watchdog and the start-up sweep
rely on before they signal anything)."""

from __future__ import annotations

import subprocess

from waiting import wait_until

from zizou.process_groups import end_groups_now, group_command, same_group, start_time


def test_a_group_is_the_same_only_with_its_leaders_start_time() -> None:
    proc = subprocess.Popen(["sleep", "300.25"], start_new_session=True)
    try:
        started = start_time(proc.pid)
        assert started is not None and started > 0
        assert same_group(proc.pid, started)
        assert not same_group(proc.pid, started + 1)  # the number names another process
        assert group_command(proc.pid) == "sleep 300.25"
        end_groups_now([proc.pid])
        wait_until(lambda: proc.poll() is not None, "the group to end")
        assert not same_group(proc.pid, started)
    finally:
        proc.kill()
        proc.wait()
