"""Start the Pyramide bot: read .env, configure logging, open storage, load cogs, run."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from dotenv import load_dotenv

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the Pyramide Discord bot")
    parser.add_argument("--sync", action="store_true", help="push the slash commands to Discord once at start")
    args = parser.parse_args(argv)

    load_dotenv(HERE / ".env")
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        print(
            "DISCORD_TOKEN is not set: copy .env.example to .env and put your bot token in DISCORD_TOKEN=",
            file=sys.stderr,
        )
        return 2
    from cogs.logs import configure

    configure(os.environ.get("LOG_LEVEL", "INFO"))
    db_path = os.environ.get("PYRAMIDE_DB", "").strip() or str(HERE / "pyramide.db")
    dev_guild = os.environ.get("DEV_GUILD_ID", "").strip()
    import aiohttp
    import discord

    from pyramide.storage import StorageError

    try:
        asyncio.run(run(token, db_path, int(dev_guild) if dev_guild.isdigit() else None, args.sync))
    except KeyboardInterrupt:
        return 0
    except StorageError as error:
        print(f"Cannot start: {error}", file=sys.stderr)
        return 3
    except discord.LoginFailure:
        print("Discord refused the token in DISCORD_TOKEN: put your application's bot token in .env", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as error:
        print(f"Cannot reach Discord ({type(error).__name__}): check the network connection", file=sys.stderr)
        return 1
    return 0


async def run(token: str, db_path: str, dev_guild_id: int | None, sync: bool) -> None:
    from cogs.client import PyramideBot
    from pyramide.storage.sqlite import SQLiteStorage

    storage = SQLiteStorage(db_path)
    try:
        await storage.open()
        async with PyramideBot(storage, dev_guild_id=dev_guild_id, sync_on_start=sync) as bot:
            await bot.start(token)
    finally:
        await storage.close()


if __name__ == "__main__":
    raise SystemExit(main())
