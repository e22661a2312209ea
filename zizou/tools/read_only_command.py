"""Whether a command only reads, and only inside the project: such a command never asks.

`ls -la`, `wc -l *.py`, `cat app.py | head` cannot write a file or run a program whatever their
options (shell_policy.READ_ONLY_PROGRAMS), so asking about them only wears the user out. What
they can still do is read: `/etc`, `~/.aws/credentials`, a link the repository ships to either,
or `.env`. So each word that may name a file, each glob's matches and each input redirection
must resolve strictly inside the project (links followed only inside it) and name no file that
may hold secrets, as a file zizou reads on its own must (confined.resolve_unasked). Anything
in doubt is not read-only, and asks as before.
"""

from __future__ import annotations

import glob
import itertools
from pathlib import Path

from zizou import confined
from zizou.contracts.shell_policy import read_only_operands
from zizou.errors import PathError

MAX_GLOB_MATCHES = 1000  # past this, asking is cheaper than checking


def reads_only_inside(root: Path, command: str) -> bool:
    """True when `command` only reads, and only files of the project that hold no secrets."""
    found = read_only_operands(command)
    if found is None:
        return False
    words, patterns = found
    for pattern in patterns:
        if pattern.startswith("/"):
            return False
        # as bash expands it, from the root, hidden names included (more to check, never less)
        found_names = glob.iglob(pattern, root_dir=root, include_hidden=True)  # noqa: PTH207
        matches = list(itertools.islice(found_names, MAX_GLOB_MATCHES + 1))
        if len(matches) > MAX_GLOB_MATCHES:
            return False
        words = [*words, *matches]
    try:
        for word in words:
            confined.resolve_unasked(root, word)
    except PathError:
        return False
    return True


__all__ = ["reads_only_inside"]
