"""What arrives from an out-of-date client: a command the bot no longer has (Discord's clients keep their
list of commands for a while after an upgrade), a subcommand that is gone, a value outside a command's
limits, and a button id no part of the bot reads. Each gets a private answer within Discord's window and an
INFO line, never a traceback: none of them is the bot's fault."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from typing import Any

import discord
from discord import app_commands

from pyramide.i18n import t
from pyramide_discord.failures import DISCORD_ERRORS, log_refusal

from .answer import answering
from .refused import limit_words, log_refused, refused_value

log = logging.getLogger(__name__)

# Commands that moved in an earlier release -> where they are now (as a player types it).
MOVED = {
    "pyramide settings": "/pyramide-admin settings",
    "pyramide stats show": "/pyramide stats",
    "pyramide stats reset": "/pyramide-admin reset-stats",
}


class PyramideTree(app_commands.CommandTree):
    """The command tree, answering what it cannot dispatch (an unknown command or subcommand, a group sent
    as a command) and a value the application refused, before discord.py would log them as errors."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError, /) -> None:
        if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
            await answer_stale_command(interaction, error)
            return
        refused = refused_value(error)
        if refused is not None:
            log_refused(interaction, refused)
            if not interaction.response.is_done():
                async with answering(interaction) as answer:
                    await answer.say(limit_words(answer.lang, refused))
            return
        await super().on_error(interaction, error)


def stale_name(error: app_commands.AppCommandError) -> str:
    if isinstance(error, app_commands.CommandNotFound):
        return " ".join([*error.parents, error.name])
    if isinstance(error, app_commands.CommandSignatureMismatch):
        return error.command.qualified_name
    return "?"


async def answer_stale_command(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
    name = stale_name(error)
    moved = MOVED.get(name)
    log.info("stale command /%s from an out-of-date client: %s", name[:100], "moved" if moved else "unknown")
    if interaction.type is discord.InteractionType.autocomplete:
        try:  # a stale command's suggestions: none
            await interaction.response.autocomplete([])
        except DISCORD_ERRORS as error:
            log_refusal(f"suggestions of interaction {interaction.id}", error)
        return
    async with answering(interaction) as answer:
        if moved is not None:
            await answer.say(t(answer.lang, "command.moved", command=moved))
        else:
            await answer.say(t(answer.lang, "command.gone"))


def custom_ids(components: Iterable[Any]) -> Iterator[str]:
    """Every custom id of a message's components, rows and containers included."""
    for component in components:
        custom_id = getattr(component, "custom_id", None)
        if isinstance(custom_id, str):
            yield custom_id
        yield from custom_ids(getattr(component, "children", ()))


def claimed(interaction: discord.Interaction, templates: Iterable[re.Pattern[str]], views: Iterable[Any]) -> bool:
    """Whether a component interaction reaches a part of the bot: a dynamic item whose template reads its id
    (discord.py dispatches one only while the message still carries that component), or a persistent view
    holding an item of that id."""
    custom_id = str(dict(interaction.data or {}).get("custom_id", ""))
    message = interaction.message
    on_message = message is not None and custom_id in set(custom_ids(message.components))
    if on_message and any(template.fullmatch(custom_id) for template in templates):
        return True
    return any(getattr(item, "custom_id", None) == custom_id for view in views for item in view.walk_children())


async def answer_unclaimed(
    interaction: discord.Interaction, templates: Iterable[re.Pattern[str]], views: Iterable[Any]
) -> None:
    """A press nothing of the bot reads (a button of an old release, a forged or damaged id, a button the
    message no longer carries): answered privately as out of date."""
    if interaction.type is not discord.InteractionType.component or claimed(interaction, templates, views):
        return
    log.info("press of an unknown or old button answered as out of date")
    async with answering(interaction) as answer:
        await answer.say(t(answer.lang, "error.stale_board"))
