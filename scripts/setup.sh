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
# The Activity's page: the Embedded App SDK (MIT) from the npm registry, pinned with its integrity in
# web/package-lock.json (npm ci checks every package against it), bundled by esbuild into web/build/sdk.js;
# no package runs an install script. Without Node.js the bot runs without the Activity (it says so once).
# axe-core (MPL-2.0), pinned the same way, is for the tests alone: they inject
# web/node_modules/axe-core/axe.min.js into the page (the bot serves only the files it lists, never it).
if command -v npm >/dev/null 2>&1; then
    if [ ! -f web/build/sdk.js ] || [ web/package-lock.json -nt web/build/sdk.js ] || [ web/sdk-entry.js -nt web/build/sdk.js ] \
        || [ ! -f web/node_modules/axe-core/axe.min.js ]; then
        (cd web && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && npm run --silent build)
    fi
else
    echo "Node.js (npm) is missing: the bot will run without its Discord Activity" >&2
fi
