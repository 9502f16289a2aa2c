"""The command tree's translator: Discord is fed the command descriptions, option names and choices in
every language of the catalogue (``cogs.common.text`` marks them with their catalogue key)."""

from __future__ import annotations

import functools

import discord
from discord import app_commands
from discord.app_commands import locale_str

from pyramide.i18n import DEFAULT, has, language_for, t


class CatalogueTranslator(app_commands.Translator):
    """Feeds Discord the command descriptions, option names and choices in hr, da and ru."""

    async def translate(
        self, string: locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        key = string.extras.get("key")
        return _translated(key, locale.value) if key else None


# Asked for every text of every command in each of Discord's ~30 locales at each start; the catalogue
# does not change while the process runs.
@functools.cache
def _translated(key: str, locale: str) -> str | None:
    lang = language_for(locale)
    if lang == DEFAULT or not has(lang, key):
        return None
    return t(lang, key)
