"""The bot as both faces see it (the board's cogs and the Activity), typed: what several of them share, and
the part of ``commands.Bot`` they use. Neither face imports the bot itself (``pyramide_bot.app``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import discord
from discord.ext import commands

from pyramide_service import GameRecord
from pyramide_service.admission import Admission
from pyramide_service.dailies import DailyAttempts, DailyDeals
from pyramide_service.events import Events
from pyramide_service.manager import GameManager
from pyramide_service.notes import Notes
from pyramide_service.play import Plays
from pyramide_service.player_styles import PlayerStyles
from pyramide_service.profiles import Profiles
from pyramide_service.races import Races
from pyramide_service.records import Records
from pyramide_service.server_settings import ServerSettings
from pyramide_service.servers import Servers
from pyramide_service.solving import SolverService

from .emojis import CardEmojiSync


class RaceWatch(Protocol):
    """What a board's change is told to after it is stored: the race scoreboards (``cogs.pyramide.race``),
    which the game cog makes when it loads and puts here for every flow to tell."""

    async def progress(self, record: GameRecord, lang: str) -> None: ...


class _NoRaces:
    """Before the game cog is loaded (and after it is unloaded): no board belongs to a race."""

    async def progress(self, record: GameRecord, lang: str) -> None:
        return None


NO_RACES: RaceWatch = _NoRaces()


class Host(Protocol):
    """The bot as the faces see it (``pyramide_bot.app.PyramideBot`` is one): what several of them share,
    and the part of ``commands.Bot`` they use. No face imports the bot; what one cog uses alone, that cog
    owns. No storage here: the faces call the application's services (import-linter contracts keep
    ``pyramide_service.storage`` out of them)."""

    @property
    def manager(self) -> GameManager: ...
    @property
    def plays(self) -> Plays: ...
    @property
    def admission(self) -> Admission: ...
    @property
    def records(self) -> Records: ...
    @property
    def profiles(self) -> Profiles: ...
    @property
    def events(self) -> Events: ...
    @property
    def servers(self) -> Servers: ...
    @property
    def notes(self) -> Notes: ...
    @property
    def races(self) -> Races: ...
    @property
    def daily_attempts(self) -> DailyAttempts: ...
    @property
    def solver(self) -> SolverService: ...
    @property
    def settings(self) -> ServerSettings: ...
    @property
    def dailies(self) -> DailyDeals: ...
    @property
    def card_emojis(self) -> CardEmojiSync: ...
    @property
    def styles(self) -> PlayerStyles: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def data_grace_days(self) -> int: ...

    scoreboards: RaceWatch
    offers_activity: bool  # the deployment has the Activity: boards offer its launch button where it can start

    async def sync_commands(self, *, force: bool = False) -> int | None: ...
    def flow_started(self) -> None: ...
    def flow_ended(self, kind: str, seconds: float, database_error: bool = False) -> None: ...
    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: discord.ChannelType | None = None
    ) -> discord.PartialMessageable: ...
    def get_guild(self, id: int, /) -> discord.Guild | None: ...
    def dispatch(self, event_name: str, /, *args: int) -> None: ...
    async def wait_until_ready(self) -> None: ...
    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]]]) -> None: ...
    def remove_dynamic_items(
        self, *items: type[discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]]]
    ) -> None: ...
    async def add_cog(self, cog: commands.Cog, /) -> None: ...
