"""Discord glue shared by the cogs: languages, translated command texts, small helpers."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol, cast

import discord
from discord.app_commands import locale_str
from discord.ext import commands

from pyramide.i18n import DEFAULT, language_for, rank_letters, t
from pyramide.labels import Labels
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
    """The bot as the cogs see it (``pyramide_bot.app.PyramideBot`` is one): what several cogs share, and
    the part of ``commands.Bot`` the cogs use. The cogs never import the application; what one cog uses
    alone, that cog owns. No storage here: the cogs call the application's services (an import-linter
    contract keeps ``pyramide_service.storage`` out of ``cogs``)."""

    @property
    def manager(self) -> GameManager: ...
    @property
    def table(self) -> Plays: ...
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


def bot_of(interaction: discord.Interaction) -> Host:
    """The bot an interaction arrived at, as the cogs see it: asked once, when the interaction arrives
    (``cogs.answer.Answer.bot``)."""
    return cast(Host, interaction.client)


def language(interaction: discord.Interaction) -> str:
    """The player's client language when supported, else the server's, else English."""
    guild_locale = str(interaction.guild_locale) if interaction.guild_locale is not None else None
    return language_for(str(interaction.locale) if interaction.locale else None, guild_locale)


def text(key: str) -> locale_str:
    """An app-command text (description, option name or choice) that the translator localises."""
    return locale_str(t(DEFAULT, key), key=key)


def board_labels(lang: str) -> Labels:
    return Labels(
        score=t(lang, "board.score"),
        moves=t(lang, "board.moves"),
        time=t(lang, "board.time"),
        cards=functools.partial(_cards, lang),
        passes=t(lang, "board.passes"),
        stock=t(lang, "board.stock"),
        waste=t(lang, "board.waste"),
        won=t(lang, "board.won"),
        stuck=t(lang, "board.stuck"),
        ranks=rank_letters(lang),
    )


def _cards(lang: str, n: int) -> str:
    return t(lang, "board.cards", n=n)


def missing_permission(interaction: discord.Interaction, *needed: str) -> str | None:
    """The first of ``needed`` (``discord.Permissions`` attribute names) the bot lacks where the
    interaction happened, as Discord's settings name it ("Send Messages in Threads"), or ``None``."""
    for name in needed:
        if not getattr(interaction.app_permissions, name):
            return name.replace("_", " ").title().replace(" In ", " in ")
    return None


def mention(user_id: int) -> str:
    return f"<@{user_id}>"
