"""How many modules each start-up path imports, as budgets: a change that makes `--version`,
`zizou -p` or the app's first frame import more than its budget fails here, and says which of
zizou's own modules the path imports, so the import that brought them can be found and made
lazy. Counts, not seconds: they do not move with the machine's load."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# (what the path imports, its budget: all modules, zizou's own). Measured on main, with a
# little room; lower them when a path gets leaner.
PATHS = {
    "--version": (
        "import sys; sys.argv = ['zizou', '--version']; from zizou.launcher import main; main()",
        (80, 2),
    ),
    "zizou -p": ("import zizou.cli, zizou.headless, zizou.session", (515, 165)),
    "the app": ("import zizou.cli, zizou.ui.launch, zizou.ui.app", (695, 182)),
}
COUNT = (
    "import atexit, json, sys\n"
    "def count():\n"
    "    own = sorted(m for m in sys.modules if m.split('.')[0] == 'zizou')\n"
    "    sys.stderr.write('\\nMODULES ' + json.dumps([len(sys.modules), own]) + '\\n')\n"
    "atexit.register(count)\n"
)


def imported(code: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", COUNT + code], capture_output=True, text=True, check=False
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    total, own = json.loads(line.removeprefix("MODULES "))
    return total, own


@pytest.mark.parametrize("path", PATHS)
def test_each_start_up_path_stays_within_its_module_budget(path: str) -> None:
    code, (budget, own_budget) = PATHS[path]
    total, own = imported(code)
    assert total <= budget and len(own) <= own_budget, (
        f"{path} imports {total} modules (budget {budget}), {len(own)} of zizou's "
        f"(budget {own_budget}): {own}"
    )
