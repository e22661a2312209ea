#!/usr/bin/env bash
# The one check: lint, format, types, then the tests. CI runs exactly this.
# `--fast` first: the same, but only the tests not marked slow (end-to-end, tmux, worker
# processes, MCP servers; see tests/e2e/conftest.py and tests/conftest.py): 65 s on 2 idle CPUs.
# The tests run in parallel (pytest-xdist): one worker per CPU and one more, since the
# end-to-end tests spend part of their time waiting on the zizou processes they start; idle
# workers steal queued tests, so the long ones do not pile up on one. The 15 slowest are listed.
# Other arguments go to pytest, and a later option wins: `scripts/check.sh -n 0 tests/ui`.
# ZIZOU_TEST_TIMEOUT_SCALE=3 gives every time limit inside the tests three times as long; unset,
# the limits follow the machine's load (tests/waiting.py), so a machine busy with other work gives
# the tests longer rather than failing them.
set -euo pipefail
cd "$(dirname "$0")/.."
cpus=$(getconf _NPROCESSORS_ONLN)
load=$(cut -d' ' -f1 /proc/loadavg)
echo "time limits in the tests: x${ZIZOU_TEST_TIMEOUT_SCALE:-(1 + load per CPU)} (load $load, $cpus CPUs)"
tier=()
if [[ "${1:-}" == "--fast" ]]; then
  shift
  tier=(-m "not slow")
fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
# Bytecode is cached (in the ignored __pycache__ dirs), so the workers and the many zizou
# processes the end-to-end tests start compile zizou and the tests once, not each time.
unset PYTHONDONTWRITEBYTECODE
workers=$((cpus + 1))
.venv/bin/python -m pytest -q -n "$workers" --dist worksteal --durations=15 "${tier[@]}" "$@"
