#!/usr/bin/env bash
# Set up (first run only), lint (ruff), check types (mypy) and import layers (import-linter), and run
# the whole test suite, or the tests named (`bash scripts/test.sh tests/test_game.py -k undo`).
# pytest runs on three worker processes (pytest-xdist; on two cores a third keeps them busy while a test
# waits on a subprocess, a browser or PostgreSQL), each with its own throwaway PostgreSQL server and solver
# workers; `-n 4` after the script's name runs four, `-n 0` runs in one process (for --pdb).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/python -m ruff check .
.venv/bin/python -m mypy
layers=$(.venv/bin/lint-imports --no-cache) || { echo "$layers"; exit 1; }
echo "import-linter: ${layers##*$'\n'}"
exec .venv/bin/python -m pytest -n 3 --dist worksteal "$@"
