#!/usr/bin/env bash
# Set up (first run only) and start the bot. It reads DISCORD_TOKEN from .env.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh bot
exec .venv/bin/python bot.py "$@"
