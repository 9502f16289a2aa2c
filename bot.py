"""The entry point: read ``.env``, check every setting once (``pyramide_bot.settings``: a bad one stops
the bot with exit 2, naming it) and run the application (``pyramide_bot``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from dotenv import load_dotenv

from pyramide_bot.process import launch
from pyramide_bot.settings import Settings, SettingsError

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the Pyramide Discord bot")
    parser.add_argument(
        "--sync", action="store_true", help="push the slash commands and upload the card emojis again at start"
    )
    args = parser.parse_args(argv)
    load_dotenv(HERE / ".env")
    try:
        settings = Settings.from_environment(os.environ, default_database=HERE / "pyramide.db")
    except SettingsError as error:
        print(f"Cannot start: {error}", file=sys.stderr)
        return 2
    return launch(settings, args.sync)


if __name__ == "__main__":
    raise SystemExit(main())
