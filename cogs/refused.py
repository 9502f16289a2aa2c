"""What a player reads when a command's value is outside the command's limits (``OutOfLimits``, raised by
the application's checks): what is allowed, in the player's language, privately; nothing was changed.
A refused value is the player's (or their client's) doing, not the bot's: it is logged at INFO."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from pyramide.i18n import t
from pyramide.limits import Length, Span
from pyramide_service.inputs import OutOfLimits

log = logging.getLogger(__name__)


def limit_words(lang: str, error: OutOfLimits) -> str:
    if error.option == "duration":  # a text read into hours: the example says more than a length
        return t(lang, "event.error.duration")
    option, limit = t(lang, f"opt.{error.option}"), error.limit
    if isinstance(limit, Span):
        return t(lang, "limits.range", option=option, low=limit.low, high=limit.high)
    if isinstance(limit, Length):
        return t(lang, "limits.length", option=option, low=limit.low, high=limit.high)
    return t(lang, "limits.choice", option=option, choices=", ".join(t(lang, key) for _, key in limit.choices))


def refused_value(error: BaseException) -> OutOfLimits | None:
    """The value a command refused, if that is why ``error`` (as discord.py hands it over) was raised."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    return error if isinstance(error, OutOfLimits) else None


def log_refused(interaction: discord.Interaction, error: OutOfLimits) -> None:
    command = interaction.command.qualified_name if interaction.command is not None else "?"
    log.info("refused /%s: %s outside %s", command, error.option, error.limit)
