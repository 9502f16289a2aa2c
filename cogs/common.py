"""Discord glue shared by the cogs: languages, translated command texts, small helpers."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import date
from typing import Any, Protocol, cast

import discord
from discord import app_commands
from discord.app_commands import locale_str

from pyramide.i18n import DEFAULT, language_for, rank_letters, t
from pyramide.labels import Labels
from pyramide.manager import GameManager
from pyramide.solving import SolverService
from pyramide.storage import GameRecord, GuildSettings, Storage

from .emojis import CardEmojis


class RaceWatch(Protocol):
    """What a board's change is told to after it is stored (the race scoreboards, ``cogs.pyramide.race``)."""

    async def progress(self, host: Host, record: GameRecord, lang: str) -> None: ...


class Host(Protocol):
    """The bot as the cogs see it (``pyramide_bot.app.PyramideBot`` is one): what it owns and the part of
    ``commands.Bot`` the cogs use. The cogs never import the application."""

    @property
    def storage(self) -> Storage: ...
    @property
    def manager(self) -> GameManager: ...
    @property
    def solver(self) -> SolverService: ...
    @property
    def scoreboards(self) -> RaceWatch: ...
    @property
    def card_emojis(self) -> CardEmojis: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def data_grace_days(self) -> int: ...
    @property
    def daily_codes(self) -> dict[date, str]: ...
    @property
    def daily_secret(self) -> bytes | None: ...
    @property
    def tree(self) -> app_commands.CommandTree[Any]: ...

    async def guild_settings(self, guild_id: int) -> GuildSettings: ...
    def cached_settings(self, guild_id: int) -> GuildSettings | None: ...
    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None: ...
    async def prepare_daily(self, day: date) -> None: ...
    def prepare_tomorrow(self) -> None: ...
    async def sync_card_emojis(self, *, force: bool = False) -> Any: ...
    def flow_started(self) -> None: ...
    def flow_ended(self, kind: str, seconds: float, database_error: bool = False) -> None: ...
    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: discord.ChannelType | None = None
    ) -> discord.PartialMessageable: ...
    def get_guild(self, id: int, /) -> discord.Guild | None: ...
    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None: ...
    async def wait_until_ready(self) -> None: ...
    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None: ...
    def remove_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None: ...
    async def add_cog(self, cog: Any, /) -> None: ...


def bot_of(interaction: discord.Interaction) -> Host:
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
