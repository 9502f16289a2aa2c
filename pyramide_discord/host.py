"""The bot as both faces see it (the board's cogs and the Activity), typed: what several of them share, and
the part of ``commands.Bot`` they use. Neither face imports the bot itself (``pyramide_bot.app``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar, Protocol

import discord
from discord.ext import commands

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

from .emojis import CardEmojiSync

_NEVER = re.compile(r"(?!)")  # no id: the template of the base below, which is never registered itself


class DynamicButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=_NEVER):
    """A button of the bot's whose ``custom_id`` carries what its press needs (``cogs.pyramide.buttons``):
    each subclass names its ``template``, compiled here once, kept as its public ``pattern`` (which ids it
    reads: a press no pattern reads is answered as out of date) and handed to discord.py as the template."""

    pattern: ClassVar[re.Pattern[str]] = _NEVER

    def __init_subclass__(cls, *, template: str | re.Pattern[str]) -> None:
        pattern = re.compile(template)
        super().__init_subclass__(template=pattern)
        cls.pattern = pattern


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
    def todays_daily(self) -> TodaysDaily: ...
    @property
    def event_deals(self) -> EventDeals: ...
    @property
    def changes(self) -> Changes: ...
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
    def parties(self) -> Parties: ...
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

    offers_activity: bool  # the deployment has the Activity: boards offer its launch button where it can start

    async def sync_commands(self, *, force: bool = False) -> int | None: ...
    def flow_started(self) -> None: ...
    def flow_ended(self, kind: str, seconds: float, database_error: bool = False) -> None: ...
    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: discord.ChannelType | None = None
    ) -> discord.PartialMessageable: ...
    def get_guild(self, id: int, /) -> discord.Guild | None: ...
    async def wait_until_ready(self) -> None: ...
    def add_dynamic_items(self, *items: type[DynamicButton]) -> None: ...
    def remove_dynamic_items(self, *items: type[DynamicButton]) -> None: ...
    async def add_cog(self, cog: commands.Cog, /) -> None: ...
