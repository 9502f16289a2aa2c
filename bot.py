"""The entry point: read ``.env``, check every setting once (``pyramide_bot.settings``: a bad one stops
the bot with exit 2, naming it) and run the application (``pyramide_bot``).

The application is imported only when this file runs as the program, and after the settings were found
right: the solver's worker processes are spawned, and a spawned process runs the main module again (as
``__mp_main__``) before its first task, so that an import at the top would load discord.py and the whole
bot into every worker (about 1.5 s of CPU each, at every start and every replaced worker, and their
memory); and a wrong setting is told without loading it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from dotenv import load_dotenv

HERE = Path(__file__).resolve().parent


def read_settings(argv: list[str] | None = None) -> tuple[Settings, bool] | None:
    """The settings and whether ``--sync`` was given; None, after one line naming it, for a wrong setting."""
    parser = argparse.ArgumentParser(description="Run the Pyramide Discord bot")
    parser.add_argument(
        "--sync", action="store_true", help="push the slash commands and upload the card emojis again at start"
    )
    args = parser.parse_args(argv)
    load_dotenv(HERE / ".env")
    try:
        return Settings.from_environment(os.environ, default_database=HERE / "pyramide.db"), args.sync
    except SettingsError as error:
        print(f"Cannot start: {error}", file=sys.stderr)
        return None


if __name__ == "__main__":
    from pyramide_bot.settings import Settings, SettingsError

    chosen = read_settings()
    if chosen is None:
        raise SystemExit(2)
    from pyramide_bot.process import launch

    raise SystemExit(launch(*chosen))
