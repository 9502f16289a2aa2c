#!/usr/bin/env bash
# Set up (first run only), lint (ruff), check types (mypy) and import layers (import-linter), and run
# the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/python -m ruff check .
.venv/bin/python -m mypy
layers=$(.venv/bin/lint-imports --no-cache) || { echo "$layers"; exit 1; }
echo "import-linter: ${layers##*$'\n'}"
exec .venv/bin/python -m pytest "$@"
