#!/usr/bin/env bash
# The one check: lint, format, types, then the tests. CI runs exactly this.
# The tests run on two workers (pytest-xdist) and print the 15 slowest; arguments go to pytest,
# so `scripts/check.sh -n 0 tests/ui` runs just the TUI tests in this process.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest -q -n 2 --durations=15 "$@"
