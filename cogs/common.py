"""Discord glue shared by the cogs: the bot an interaction came to, languages, translated command texts."""

from __future__ import annotations

from typing import cast

import discord
from discord.app_commands import locale_str

from pyramide.i18n import DEFAULT, language_for, t
from pyramide_discord.host import Host


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


def missing_permission(interaction: discord.Interaction, *needed: str) -> str | None:
    """The first of ``needed`` (``discord.Permissions`` attribute names) the bot lacks where the
    interaction happened, as Discord's settings name it ("Send Messages in Threads"), or ``None``."""
    for name in needed:
        if not getattr(interaction.app_permissions, name):
            return name.replace("_", " ").title().replace(" In ", " in ")
    return None
