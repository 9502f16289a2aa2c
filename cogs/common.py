"""Discord glue shared by the cogs: languages, translated command texts, small helpers."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str

from pyramide.i18n import DEFAULT, has, language_for, rank_letters, t
from pyramide.labels import Labels

if TYPE_CHECKING:
    from bot import PyramideBot


def bot_of(interaction: discord.Interaction) -> PyramideBot:
    return interaction.client  # type: ignore[return-value]


def language(interaction: discord.Interaction) -> str:
    """The player's client language when supported, else the server's, else English."""
    guild_locale = str(interaction.guild_locale) if interaction.guild_locale is not None else None
    return language_for(str(interaction.locale) if interaction.locale else None, guild_locale)


def text(key: str) -> locale_str:
    """An app-command text (description, option name or choice) that the translator localises."""
    return locale_str(t(DEFAULT, key), key=key)


class CatalogueTranslator(app_commands.Translator):
    """Feeds Discord the command descriptions, option names and choices in hr, da and ru."""

    async def translate(
        self, string: locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        key = string.extras.get("key")
        lang = language_for(str(locale))
        if not key or lang == DEFAULT or not has(lang, key):
            return None
        return t(lang, key)


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
