"""The process: log in and connect (``connect``), run the bot over its storage until a signal stops it
(``run``), and the exit statuses of a start that fails (``launch``). ``bot.py`` reads ``.env``, builds
the settings and calls ``launch``."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import aiohttp
import discord

from pyramide.solver import native
from pyramide_discord.internals import point_gateway_at
from pyramide_service.storage import StorageError, from_url

from .app import PyramideBot, make_bot
from .logs import configure
from .settings import Deployment, Settings

log = logging.getLogger("pyramide.bot")


async def connect(bot: PyramideBot, token: str, deployment: Deployment) -> None:
    """Log in and connect the gateway; with DISCORD_API_BASE, the gateway address is that API's answer
    to ``GET /gateway/bot`` (a proxy or a test server names its own gateway)."""
    await bot.login(token)
    if deployment.api_base is not None:
        answer = await bot.http.request(discord.http.Route("GET", "/gateway/bot"))
        point_gateway_at(answer["url"])
    await bot.connect()


def launch(settings: Settings, sync: bool = False) -> int:
    """Configure logging and run the bot; the exit status (0 stopped, 1 Discord unreachable or the token
    refused, 3 storage unusable)."""
    configure(settings.log_level, str(settings.log_file) if settings.log_file else None)
    if settings.pure_solver:  # before the bot is made: its worker processes follow (PyramideBot)
        native.switch_off()
    try:
        asyncio.run(run(settings, sync))
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


async def run(settings: Settings, sync: bool = False) -> None:
    deployment = settings.deployment
    storage = from_url(settings.database_url)
    try:
        await storage.open()
        bot = make_bot(
            deployment,
            storage,
            dev_guild_id=settings.dev_guild_id,
            sync_on_start=sync,
            metrics_port=settings.metrics_port,
            metrics_host=settings.metrics_host,
            data_grace_days=settings.guild_data_grace_days,
            daily_secret=settings.daily_secret,
            offers_activity=settings.activity is not None,
            activity=settings.activity,
        )
        if deployment.shard_count is not None:
            log.info("shards %s of %d", ",".join(map(str, deployment.shard_ids or ())), deployment.shard_count)
        async with bot:
            loop = asyncio.get_running_loop()
            stopping: set[asyncio.Task[None]] = set()

            def stop() -> None:
                log.info("stopping: finishing the presses in flight")
                stopping.add(asyncio.ensure_future(bot.close()))

            for signal_number in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signal_number, stop)
            try:
                await connect(bot, settings.token, deployment)
            except (discord.HTTPException, aiohttp.ClientError, OSError):
                if not stopping:
                    raise  # a failure, not a stop
            if stopping:
                await asyncio.gather(*stopping)
    finally:
        await storage.close()
    log.info("stopped")
