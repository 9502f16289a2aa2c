#!/usr/bin/env bash
# Regenerates requirements/*.lock (pinned versions with hashes) from requirements/*.in.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
.venv/bin/python -m pip install --quiet --disable-pip-version-check pip-tools
cd requirements
../.venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras --upgrade -o bot.lock bot.in
../.venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras --upgrade -o test.lock test.in
