"""The process that ends zizou's commands when zizou ends, however it ends (kill -9 included).

Each command runs in a process group of its own, in a new session, so nothing that happens to
zizou reaches it: without a sandbox (bubblewrap dies with its parent) it would run on,
re-parented to init, for good. The kernel's parent-death signal (PR_SET_PDEATHSIG) is no cure
by itself: it reaches only the direct child (bash), not what the command starts, and it fires
when the thread that started the child ends, not the process. So zizou starts this small
process on its first command (standard library only, in a session of its own, so signals to
zizou's group do not reach it) and tells it on a pipe each group it starts (`+ PGID START`)
and each that is over (`- PGID`). The pipe's end of file is zizou's death, the parent-death
signal that every Unix has: the groups still running, each still the same group by its
leader's start time, are ended, TERM then KILL.

Run as a script (`python -I -S watchdog_script.py`): it imports nothing of zizou but `groups`,
beside it, which uses the standard library only.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl+C meant for zizou is not for it
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from groups import end_groups_now, same_group  # type: ignore[import-not-found]

    groups: dict[int, int] = {}  # group id: its leader's start time
    for line in sys.stdin.buffer:  # until zizou, the only writer, is gone
        match line.split():
            case [b"+", pgid, started] if pgid.isdigit() and started.isdigit():
                groups[int(pgid)] = int(started)
            case [b"-", pgid, *_] if pgid.isdigit():
                groups.pop(int(pgid), None)
    end_groups_now([pgid for pgid, started in groups.items() if same_group(pgid, started)])


if __name__ == "__main__":
    main()
