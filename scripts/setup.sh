#!/usr/bin/env bash
# Creates .venv and installs what is needed, once; later runs are instant.
#   bash scripts/setup.sh bot    what the bot runs on (requirements/bot.lock), and the project
#   bash scripts/setup.sh test   the same, plus the test tools (requirements/test.lock)
# Every package comes pinned with its hashes from the lock files (pip --require-hashes). To update
# them: edit requirements/*.in, then run `bash scripts/lock.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-bot}
case "$mode" in bot | test) ;; *) echo "usage: scripts/setup.sh [bot|test]" >&2; exit 2 ;; esac
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
stamp=.venv/.installed-$mode
if [ "$mode" = bot ] && [ -f .venv/.installed-test ]; then
    stamp=.venv/.installed-test  # the test set-up holds everything the bot needs
fi
# Reinstall when a lock, the project's declaration or the compiled solver core (built in place) changed.
if [ ! -f "$stamp" ] || [ requirements/bot.lock -nt "$stamp" ] || [ requirements/test.lock -nt "$stamp" ] \
    || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ] || [ pyramide/_fastsolve.c -nt "$stamp" ]; then
    "${pip[@]}" --require-hashes -r requirements/bot.lock
    if [ "$mode" = test ]; then
        "${pip[@]}" --require-hashes -r requirements/test.lock
    fi
    # The project itself, built with the locked setuptools (its compiled core needs gcc and the headers).
    "${pip[@]}" --no-deps --no-build-isolation -e .
    touch "$stamp"
fi
