#!/usr/bin/env bash
# The one check: lint, format, types, then the tests. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest -q "$@"
