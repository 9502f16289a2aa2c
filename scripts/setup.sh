#!/usr/bin/env bash
# Creates .venv and installs the project with its test tools, once; later runs are instant.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=.venv/.installed
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# Reinstall when the project's declaration or the compiled solver core (built in place) changed.
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ] \
    || [ pyramide/_fastsolve.c -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
    .venv/bin/python -m pip install --quiet -e '.[test]'
    touch "$stamp"
fi
