"""The bot object (PyramideBot, and ShardedPyramideBot for a process of a cluster): what several cogs share
(the worker processes and the solver service over them, the game manager, the servers' settings, the daily
deals, the card emojis, health and metrics) made in its constructor or ``setup_hook`` and released in
``close``; what one cog uses alone (the race scoreboards) that cog makes and closes. The cogs see the bot
through ``pyramide_discord.host.Host``."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import discord
from discord.ext import commands

from cogs.stale import PyramideTree, answer_unclaimed
from pyramide.i18n import LANGUAGES, rank_letters
from pyramide.render import faces_for
from pyramide.solver import has_compiled_core
from pyramide.solver.native import switch_off
from pyramide_discord.emojis import CardEmojiSync, emoji_images
from pyramide_discord.host import DynamicButton, Host
from pyramide_discord.internals import point_rest_at
from pyramide_service.admission import Admission
from pyramide_service.changes import Changes
from pyramide_service.dailies import DailyAttempts, DailyDeals
from pyramide_service.daily_open import TodaysDaily
from pyramide_service.event_open import EventDeals
from pyramide_service.events import Events
from pyramide_service.manager import GameManager
from pyramide_service.notes import Notes
from pyramide_service.parties import Parties
from pyramide_service.play import Plays
from pyramide_service.player_styles import PlayerStyles
from pyramide_service.profiles import Profiles
from pyramide_service.races import Races
from pyramide_service.records import Records
from pyramide_service.server_settings import ServerSettings
from pyramide_service.servers import Servers
from pyramide_service.solving import SolverService
from pyramide_service.storage import Storage
from pyramide_service.workers import Workers

from .activity import Activity, page_built
from .command_sync import push_global_commands
from .health import Figures, Health
from .settings import DEFAULT_GRACE_DAYS, ActivitySettings, Deployment
from .translator import CatalogueTranslator

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
        data_grace_days: int = DEFAULT_GRACE_DAYS,
        daily_secret: str | None = None,
        workers: Workers | None = None,
        offers_activity: bool = False,
        activity: ActivitySettings | None = None,
        api_base: str | None = None,
        **client_options: Any,
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # channel and thread events; no privileged intent is needed
        intents.moderation = True  # bans (not privileged): a banned player's Activity sessions end
        super().__init__(
            command_prefix=commands.when_mentioned,  # "@Pyramide sync" works without the message-content intent
            intents=intents,
            help_command=None,
            tree_cls=PyramideTree,
            allowed_mentions=discord.AllowedMentions(users=False, roles=False, everyone=False),
            **client_options,
        )
        self.storage = storage
        self.clock = clock
        # The worker processes are the bot's own unless handed in (then their giver closes them): started
        # in setup_hook, closed in close(). The solver service over them is always this bot's own.
        # The workers solve as this process does: pure Python when the settings switched the core off.
        self.workers = workers or Workers(setup=None if has_compiled_core() else switch_off)
        self._own_workers = workers is None
        self.solver = SolverService(self.workers)
        self.manager = GameManager(storage, clock=clock, solver=self.solver)
        # Every change is told through it after its commit, whichever face made it; on PostgreSQL it also tells
        # the other processes and hears theirs (their engines follow a game another process moved).
        self.changes = Changes(storage, self.manager)
        self.dev_guild_id = dev_guild_id
        self.sync_on_start = sync_on_start
        self.failed_extensions: dict[str, str] = {}
        self.in_flight = 0  # interactions being answered (cogs.answer.answering counts them)
        self.health = Health(
            Figures(
                connected=lambda: self.is_ready() and not self.is_closed(),
                ping=lambda: self.storage.ping(),
                latencies=self.shard_latencies,
                live_games=lambda: self.manager.live_count,
                solver_waiting=lambda: self.solver.waiting_hints,
                in_flight=lambda: self.in_flight,
            )
        )
        self.data_grace_days = data_grace_days  # a server's data is kept this long after the bot leaves it
        self.metrics_port, self.metrics_host = metrics_port, metrics_host
        self._idle = asyncio.Event()
        self._idle.set()
        self.settings = ServerSettings(storage)
        self.plays = Plays(self.manager, self.settings, self.solver, self.changes)  # every press is played through it
        # The application's services over storage that the cogs call, by ids and values.
        self.records, self.profiles, self.events = Records(storage), Profiles(storage), Events(storage, self.changes)
        self.servers, self.notes = Servers(storage), Notes(storage)
        self.races, self.daily_attempts = Races(storage), DailyAttempts(storage)
        self.parties = Parties(self.manager, self.changes)  # an Activity instance's party races (#48)
        self.styles = PlayerStyles(storage)  # the players' styles of cards and table, read on every board
        self.dailies = DailyDeals(self.solver, clock, daily_secret)  # its secret is chosen at start
        # Who may deal what, where (a running game replaced, no peeking): every face's deal asks it.
        self.admission = Admission(self.manager, self.settings, self.dailies, self.daily_attempts, self.events)
        # Today's daily opened for a player, as one call of whichever face asks.
        self.todays_daily = TodaysDaily(self.manager, self.dailies, self.daily_attempts, self.changes, clock)
        self.event_deals = EventDeals(self.manager, self.events, self.changes, clock)  # a player's next deal
        self.card_emojis = CardEmojiSync(self, self.notes)  # the buttons' card faces; text labels until synced
        # Whether the deployment has the Activity (ACTIVITY_PORT set, its page built): the boards then offer its
        # launch button where Discord lets an Activity start (cogs.places.Place.activities), in whichever
        # process draws them, the one serving the page or not.
        self.offers_activity = offers_activity
        self._button_templates: dict[type[discord.ui.DynamicItem[Any]], re.Pattern[str]] = {}
        self.activity_settings, self.api_base = activity, api_base
        self.activity_app: Activity | None = None
        self.bot_token: str | None = None  # known at login: the Activity's instance look-up sends it

    async def login(self, token: str) -> None:
        self.bot_token = token
        await super().login(token)

    async def setup_hook(self) -> None:
        # Card faces of every language are drawn once, and the solver's worker processes started, before
        # the first press: boards are then drawn on the event loop in a fraction of a millisecond.
        self.workers.start()
        await asyncio.to_thread(warm_faces)
        if not has_compiled_core():
            log.warning("solver: compiled core not built (no C compiler at install?), using pure Python")
        await self.tree.set_translator(CatalogueTranslator())
        await self.dailies.choose_secret(self.storage)
        # Perfect losses a stopped process left owed are paid in the background, once their verdicts come.
        if owed := await self.manager.owed.resume():
            log.info("following %d owed verdicts", owed)
        try:  # today's daily is known before the first interaction arrives
            await asyncio.wait_for(self.dailies.prepare(datetime.fromtimestamp(self.clock(), UTC).date()), 15)
        except TimeoutError:
            log.warning("the daily deal took more than 15 s to work out; it will be when asked")
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
        self.card_emojis.start(force=self.sync_on_start)
        if self.metrics_port is not None:
            await self.health.serve(self.metrics_port, self.metrics_host)
        self.changes.listen()
        await self.start_activity()

    async def start_activity(self) -> None:
        """Serve the Activity when ``ACTIVITY_PORT`` is set and set-up built its page (Node.js was there)."""
        settings = self.activity_settings
        if settings is None:
            return
        if not page_built():
            log.warning("the Activity is off: its page was not built (Node.js and npm missing at set-up?)")
            return
        self.activity_app = Activity(
            as_host(self),
            settings,
            application_id=self.application_id or 0,
            bot_token=self.bot_token or "",
            api_base=self.api_base,
            clock=self.clock,
        )
        await self.activity_app.start()

    async def command_payload(self) -> list[dict[str, Any]]:
        """The global commands exactly as a sync sends them to Discord (translations included)."""
        translator = self.tree.translator
        commands_ = self.tree.get_commands()
        if translator is None:
            return [command.to_dict(self.tree) for command in commands_]
        return [await command.get_translated_payload(self.tree, translator) for command in commands_]

    async def sync_commands(self, *, force: bool = False) -> int | None:
        """Push the global commands to Discord when they differ from the last push (a hash of the payload
        is kept in the database), so an upgrade never leaves stale commands and a restart costs no
        request. ``force`` pushes anyway (``bot.py --sync``, ``@Pyramide sync``). The Activity's entry point
        command, which Discord made and the tree does not hold, is kept (``command_sync``). Returns how many
        commands Discord has after a push, ``None`` when nothing was pushed."""
        commands_ = await self.command_payload()
        payload = json.dumps(commands_, sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(payload.encode()).hexdigest()
        if not force and await self.notes.read("commands_hash") == digest:
            log.info("slash commands unchanged since the last sync")
            return None
        synced = await push_global_commands(self, commands_)
        await self.notes.write("commands_hash", digest)
        kept = ", the Activity's entry point command kept" if len(synced) > len(commands_) else ""
        log.info("synced %d commands globally (their definition changed)%s", len(commands_), kept)
        return len(synced)

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
        """Each gateway shard of this process and its heartbeat latency (seconds; NaN or inf before the
        first heartbeat is acknowledged)."""
        return [(self.shard_id or 0, self.latency)]

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
        if self.activity_app is not None:
            await self.activity_app.close()
            self.activity_app = None
        await self.changes.close()
        await self.unload_cogs()
        await self.card_emojis.close()
        await self.dailies.close()
        await self.manager.close()
        await self.solver.close()
        await super().close()
        await self.health.stop()
        self.release_workers()

    async def unload_cogs(self) -> None:
        """Remove every cog, so that each closes what it owns (its tasks, its scoreboards) in ``cog_unload``.
        (Removing, not unloading the extensions: an unload also drops their modules from ``sys.modules``,
        so the next bot of the process would run fresh copies of them.)"""
        for name in tuple(self.cogs):
            try:
                await self.remove_cog(name)
            except Exception:  # one cog failing to close must not keep the others open
                log.exception("could not remove the cog %s", name)

    def release_workers(self) -> None:
        """Close the worker processes if they are the bot's own (each ends after its current task)."""
        if self._own_workers:
            self.workers.close()

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

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        """Register the bot's dynamic items: each a ``DynamicButton``, whose public ``pattern`` says which ids
        it reads (``on_interaction`` answers the others as out of date)."""
        patterns: dict[type[discord.ui.DynamicItem[Any]], re.Pattern[str]] = {}
        for item in items:
            if not issubclass(item, DynamicButton):
                raise TypeError(f"{item.__name__} is no DynamicButton: which ids it reads is not known")
            patterns[item] = item.pattern
        super().add_dynamic_items(*items)
        self._button_templates.update(patterns)

    def remove_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        super().remove_dynamic_items(*items)
        for item in items:
            self._button_templates.pop(item, None)

    @property
    def button_templates(self) -> tuple[re.Pattern[str], ...]:
        """The ids the bot's dynamic items read (a press carrying one reaches the item while its message
        still carries the button)."""
        return tuple(self._button_templates.values())

    def reads_button(self, custom_id: str) -> bool:
        """Whether one of the bot's dynamic items reads ``custom_id`` (whatever message carries it)."""
        return any(template.fullmatch(custom_id) for template in self._button_templates.values())

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A press no dynamic item or view of the bot reads is answered as out of date (discord.py drops it)."""
        await answer_unclaimed(interaction, self._button_templates.values(), self.persistent_views)

    async def on_member_ban(self, guild: discord.Guild, user: discord.User | discord.Member) -> None:
        if self.activity_app is not None:
            await self.activity_app.server.revoke(guild.id, user.id)

    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        """(Heard only with the members intent, which the bot does not ask for; a deployment that grants it
        ends a kicked player's Activity sessions at once, else the instance check does within minutes.)"""
        if self.activity_app is not None:
            await self.activity_app.server.revoke(payload.guild_id, payload.user.id)

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s) on %d servers", self.user, getattr(self.user, "id", "?"), len(self.guilds))
        log.info("invite link (permissions %d): %s", NEEDED_PERMISSIONS.value, self.invite_url())


class ShardedPyramideBot(PyramideBot, commands.AutoShardedBot):
    """The bot running the gateway shards ``shard_ids`` of ``shard_count`` (one process of a cluster)."""

    def shard_latencies(self) -> list[tuple[int, float]]:
        # Each shard's own latency: ``latency`` would be their average, exported as one "shard 0".
        return sorted(self.latencies)


def as_host(bot: PyramideBot) -> Host:
    """The bot as the cogs see it: mypy checks here that PyramideBot is a ``pyramide_discord.host.Host``."""
    return bot


def make_bot(deployment: Deployment, storage: Storage, **options: Any) -> PyramideBot:
    """The bot for this process: every shard, or those of ``deployment``; with ``api_base`` every REST call
    (interaction answers and webhooks included) goes there."""
    if deployment.api_base is not None:
        point_rest_at(deployment.api_base)
    options["api_base"] = deployment.api_base
    if deployment.shard_count is None:
        return PyramideBot(storage, **options)
    shard_ids = list(deployment.shard_ids or range(deployment.shard_count))
    return ShardedPyramideBot(storage, **options, shard_count=deployment.shard_count, shard_ids=shard_ids)


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord sends a server's events to (so one process holds all of a channel's presses)."""
    return (guild_id >> 22) % shard_count
