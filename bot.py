"""The Pyramide bot: the bot object, and the entry point that reads .env, configures logging, opens
storage, loads the cogs and runs. Storage and the game manager are made before the bot and handed to it."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import aiohttp
import discord
import yarl
from discord.ext import commands
from dotenv import load_dotenv

from cogs.common import CatalogueTranslator
from cogs.emojis import CardEmojis, SyncResult, emoji_images, sync_emojis
from cogs.health import Health
from pyramide.i18n import LANGUAGES, rank_letters
from pyramide.manager import HINT_POOL, VERDICT_POOL, GameManager
from pyramide.render import faces_for
from pyramide.solver import has_compiled_core
from pyramide.storage import GuildSettings, Storage

HERE = Path(__file__).resolve().parent
log = logging.getLogger("pyramide.bot")

EXTENSIONS = ("cogs.pyramide", "cogs.admin")
# What the bot needs in a server: see its messages' channels, answer there and in threads, show
# boards (files, embeds), and open the daily's threads.
NEEDED_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    embed_links=True,
    attach_files=True,
    create_public_threads=True,
    create_private_threads=True,
)


def warm_faces() -> None:
    for language in LANGUAGES:
        faces_for(rank_letters(language))
    emoji_images()  # the buttons' card emojis (under a second), drawn before presses arrive, not during


class PyramideBot(commands.Bot):
    def __init__(
        self,
        storage: Storage,
        *,
        dev_guild_id: int | None = None,
        clock: Callable[[], float] = time.time,
        sync_on_start: bool = False,
        metrics_port: int | None = None,
        metrics_host: str = "127.0.0.1",
        **client_options: Any,
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # channel and thread events; no privileged intent is needed
        super().__init__(
            command_prefix=commands.when_mentioned,  # "@Pyramide sync" works without the message-content intent
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions(users=False, roles=False, everyone=False),
            **client_options,
        )
        self.storage = storage
        self.clock = clock
        self.manager = GameManager(storage, clock=clock)
        self.dev_guild_id = dev_guild_id
        self.sync_on_start = sync_on_start
        self.failed_extensions: dict[str, str] = {}
        self.in_flight = 0  # interactions being answered (cogs.answer.answering counts them)
        self.health = Health(self)
        grace = os.environ.get("GUILD_DATA_GRACE_DAYS", "").strip()
        self.data_grace_days = int(grace) if grace.isdigit() else 30  # kept after the bot leaves a server
        self.metrics_port, self.metrics_host = metrics_port, metrics_host
        self._idle = asyncio.Event()
        self._idle.set()
        self._settings: dict[int, GuildSettings] = {}
        self.daily_secret: bytes | None = None  # set at start: DAILY_SECRET, or one kept in the database
        self.daily_codes: dict[date, str] = {}
        self.card_emojis = CardEmojis()  # the buttons' card faces; empty (text labels) until synced
        self.emoji_sync: asyncio.Task[SyncResult] | None = None

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """A server's settings, read from storage once and kept (they change only through this bot)."""
        settings = self._settings.get(guild_id)
        if settings is None:
            settings = self._settings[guild_id] = await self.storage.settings(guild_id)
            if len(self._settings) > 10_000:
                self._settings.pop(next(iter(self._settings)))
        return settings

    def cached_settings(self, guild_id: int) -> GuildSettings | None:
        return self._settings.get(guild_id)

    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        self._settings.pop(guild_id, None)
        await self.storage.save_settings(guild_id, settings)
        self._settings[guild_id] = settings

    async def setup_hook(self) -> None:
        # Card faces of every language are drawn once, and the solver's worker processes started, before
        # the first press: boards are then drawn on the event loop in a fraction of a millisecond.
        HINT_POOL.warm()
        VERDICT_POOL.warm()
        await asyncio.to_thread(warm_faces)
        if not has_compiled_core():
            log.warning("solver: compiled core not built (no C compiler at install?), using pure Python")
        await self.tree.set_translator(CatalogueTranslator())
        fresh = secrets.token_hex(32)
        chosen = os.environ.get("DAILY_SECRET", "").strip() or await self.storage.daily_secret(fresh)
        self.daily_secret = chosen.encode()
        for name in EXTENSIONS:
            try:
                await self.load_extension(name)
            except Exception as error:  # one broken cog must not stop the others
                self.failed_extensions[name] = repr(error)
                log.exception("could not load %s", name)
        if self.dev_guild_id:
            guild = discord.Object(self.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to the development server", len(synced))
        await self.sync_commands(force=self.sync_on_start)
        # In the background: a first start uploads the whole set, and boards meanwhile show text labels.
        self.emoji_sync = asyncio.create_task(self.sync_card_emojis(force=self.sync_on_start))
        if self.metrics_port is not None:
            await self.health.serve(self.metrics_port, self.metrics_host)

    async def command_payload(self) -> list[dict[str, Any]]:
        """The global commands exactly as a sync sends them to Discord (translations included)."""
        translator = self.tree.translator
        commands_ = self.tree.get_commands()
        if translator is None:
            return [command.to_dict(self.tree) for command in commands_]
        return [await command.get_translated_payload(self.tree, translator) for command in commands_]

    async def sync_commands(self, *, force: bool = False) -> bool:
        """Push the global commands to Discord when they differ from the last push (a hash of the payload
        is kept in the database), so an upgrade never leaves stale commands and a restart costs no
        request. ``force`` pushes anyway (``bot.py --sync``). Returns whether it pushed."""
        payload = json.dumps(await self.command_payload(), sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(payload.encode()).hexdigest()
        if not force and await self.storage.meta("commands_hash") == digest:
            log.info("slash commands unchanged since the last sync")
            return False
        synced = await self.tree.sync()
        await self.storage.set_meta("commands_hash", digest)
        log.info("synced %d commands globally (their definition changed)", len(synced))
        return True

    async def sync_card_emojis(self, *, force: bool = False) -> SyncResult:
        """Bring the card-face emojis in step (see ``cogs.emojis``) and show them on the buttons from now
        on, or text labels if Discord did not take them. ``force`` uploads them all again."""
        result = await sync_emojis(self, self.storage, force=force)
        self.card_emojis = result.emojis
        return result

    def flow_started(self) -> None:
        self.in_flight += 1
        self._idle.clear()

    def flow_ended(self, kind: str, seconds: float, database_error: bool = False) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            self._idle.set()
        self.health.observe(kind, seconds)
        if database_error:
            self.health.database_errors.inc()

    def shard_latencies(self) -> list[tuple[int, float]]:
        return [(0, self.latency)]

    async def drain(self, timeout: float = 10.0) -> bool:
        """Wait until the interactions being answered are done (at most ``timeout``): stored and answered."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning("stopping with %d interactions still being answered", self.in_flight)
            return False
        return True

    async def close(self) -> None:
        """A clean stop (SIGTERM, SIGINT): the presses in flight are finished while Discord can still be
        answered, then the gateway and the HTTP session close; storage is closed by the caller."""
        if not self.is_closed():
            await self.drain()
        from cogs.pyramide.race import SCOREBOARDS

        SCOREBOARDS.cancel()
        if self.emoji_sync is not None:
            self.emoji_sync.cancel()
        await super().close()
        await self.health.stop()

    def invite_url(self) -> str:
        """The invite link with the bot's scopes and the exact permissions it needs."""
        return discord.utils.oauth_url(
            self.application_id or 0, permissions=NEEDED_PERMISSIONS, scopes=("bot", "applications.commands")
        )

    async def on_command_error(self, context: commands.Context, error: commands.CommandError) -> None:
        """Mention commands: an unknown one (``@Pyramide help``) or a non-owner's ``sync`` is ignored quietly."""
        if isinstance(error, commands.CommandNotFound | commands.CheckFailure | commands.UserInputError):
            return
        log.error("mention command %s failed", context.command, exc_info=error)

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s) on %d servers", self.user, getattr(self.user, "id", "?"), len(self.guilds))
        log.info("invite link (permissions %d): %s", NEEDED_PERMISSIONS.value, self.invite_url())


class ShardedPyramideBot(PyramideBot, commands.AutoShardedBot):
    """The bot running the gateway shards ``shard_ids`` of ``shard_count`` (one process of a cluster)."""


@dataclass(frozen=True)
class Deployment:
    """Where this process connects and which shards it runs (environment variables, see README)."""

    api_base: str | None = None  # DISCORD_API_BASE: a REST base (a rate-limit proxy, or a test server)
    shard_count: int | None = None  # SHARD_COUNT
    shard_ids: tuple[int, ...] | None = None  # SHARD_IDS: those of this process

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Deployment:
        """Read and check the variables; raises ``ValueError`` with a sentence for the operator."""
        base = environ.get("DISCORD_API_BASE", "").strip().rstrip("/") or None
        if base is not None and not base.startswith(("http://", "https://")):
            raise ValueError(f"DISCORD_API_BASE must be an http(s) URL, not {base!r}")
        count_text = environ.get("SHARD_COUNT", "").strip()
        ids_text = environ.get("SHARD_IDS", "").strip()
        if not count_text:
            if ids_text:
                raise ValueError("SHARD_IDS needs SHARD_COUNT (the number of shards of the whole bot)")
            return cls(base)
        if not count_text.isdigit() or int(count_text) < 1:
            raise ValueError(f"SHARD_COUNT must be a whole number of at least 1, not {count_text!r}")
        count = int(count_text)
        if not ids_text:
            return cls(base, count, tuple(range(count)))
        try:
            ids = tuple(int(part) for part in ids_text.split(","))
        except ValueError:
            raise ValueError(f"SHARD_IDS must be shard numbers separated by commas, not {ids_text!r}") from None
        if not ids or len(set(ids)) != len(ids) or any(not 0 <= shard < count for shard in ids):
            raise ValueError(f"SHARD_IDS must be distinct numbers from 0 to {count - 1}, not {ids_text!r}")
        return cls(base, count, ids)

    def client_options(self) -> dict[str, Any]:
        if self.shard_count is None:
            return {}
        return {"shard_count": self.shard_count, "shard_ids": list(self.shard_ids or range(self.shard_count))}

    def make_bot(self, storage: Storage, **options: Any) -> PyramideBot:
        if self.api_base is not None:  # every REST call, interaction answers and webhooks included
            discord.http.Route.BASE = self.api_base
        kind = PyramideBot if self.shard_count is None else ShardedPyramideBot
        return kind(storage, **options, **self.client_options())


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord sends a server's events to (so one process holds all of a channel's presses)."""
    return (guild_id >> 22) % shard_count


async def connect(bot: PyramideBot, token: str, deployment: Deployment) -> None:
    """Log in and connect the gateway; with DISCORD_API_BASE, the gateway address is that API's answer
    to ``GET /gateway/bot`` (a proxy or a test server names its own gateway)."""
    await bot.login(token)
    if deployment.api_base is not None:
        answer = await bot.http.request(discord.http.Route("GET", "/gateway/bot"))
        from discord.gateway import DiscordWebSocket

        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(answer["url"])
    await bot.connect()


def database_url(environ: Mapping[str, str]) -> str:
    """The database, as ``pyramide.storage.from_url`` takes it: ``DATABASE_URL`` (``sqlite:///ABSOLUTE/PATH``
    or ``postgresql://…``), else the SQLite file ``PYRAMIDE_DB``, else ``pyramide.db`` next to bot.py.
    Raises ``ValueError`` for a URL that names neither (without repeating a password)."""
    from pyramide.storage import from_url

    url = environ.get("DATABASE_URL", "").strip()
    if not url:
        return environ.get("PYRAMIDE_DB", "").strip() or str(HERE / "pyramide.db")
    try:
        from_url(url)  # raises for a URL that names no database this bot can use
    except ValueError as error:
        raise ValueError(f"DATABASE_URL {error}") from None
    return url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the Pyramide Discord bot")
    parser.add_argument(
        "--sync", action="store_true", help="push the slash commands and upload the card emojis again at start"
    )
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

    configure(os.environ.get("LOG_LEVEL", "INFO"), os.environ.get("LOG_FILE", "").strip() or None)
    try:
        db_url = database_url(os.environ)
    except ValueError as error:
        print(f"Cannot start: {error}", file=sys.stderr)
        return 2
    dev_guild = os.environ.get("DEV_GUILD_ID", "").strip()
    from pyramide.storage import StorageError

    try:
        deployment = Deployment.from_environment(os.environ)
    except ValueError as error:
        print(f"Cannot start: {error}", file=sys.stderr)
        return 2
    try:
        asyncio.run(run(token, db_url, int(dev_guild) if dev_guild.isdigit() else None, args.sync, deployment))
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


async def run(
    token: str, db_url: str, dev_guild_id: int | None, sync: bool, deployment: Deployment = Deployment()
) -> None:
    port = os.environ.get("METRICS_PORT", "").strip()
    metrics_port = int(port) if port.isdigit() else None
    metrics_host = os.environ.get("METRICS_HOST", "").strip() or "127.0.0.1"
    from pyramide.storage import from_url

    storage = from_url(db_url)
    try:
        await storage.open()
        bot = deployment.make_bot(
            storage,
            dev_guild_id=dev_guild_id,
            sync_on_start=sync,
            metrics_port=metrics_port,
            metrics_host=metrics_host,
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
                await connect(bot, token, deployment)
            except (discord.HTTPException, aiohttp.ClientError, OSError):
                if not stopping:
                    raise  # a failure, not a stop
            if stopping:
                await asyncio.gather(*stopping)
    finally:
        await storage.close()
    log.info("stopped")


if __name__ == "__main__":
    raise SystemExit(main())
