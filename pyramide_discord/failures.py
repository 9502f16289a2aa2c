"""Discord's failures sorted, for every face: a *lost* answer (nobody waits for it any more, or it never
arrived: warned) apart from a *refusal* (Discord received it and said no: an error, the player told)."""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import discord

from pyramide.i18n import t

log = logging.getLogger(__name__)

# Everything Discord's edge can fail an answer with: ``lost`` says which of these is a lost answer,
# the rest (an ``HTTPException`` Discord sent on purpose) is a refusal.
DISCORD_ERRORS = (discord.HTTPException, aiohttp.ClientError, asyncio.TimeoutError, ConnectionError)
# Discord's codes for an interaction that can no longer be answered, or was answered elsewhere.
GONE_CODES = frozenset(
    {
        10015,  # Unknown Webhook (the interaction's webhook is gone)
        10062,  # Unknown interaction (the 3 s for a first answer are over)
        40060,  # Interaction has already been acknowledged (another process answered it)
        50027,  # Invalid Webhook Token (the 15 minutes of followups are over)
    }
)
FORBIDDEN_CODES = frozenset({50001, 50013})  # Missing Access, Missing Permissions
FOLLOWUPS_SPENT = 40094  # the interaction has sent the most follow-ups Discord allows (5)


def lost(error: BaseException) -> bool:
    """Whether ``error`` lost an answer on the way (nobody is waiting for it any more, or it never
    arrived) rather than Discord refusing it."""
    if isinstance(error, discord.DiscordServerError):
        return True
    if isinstance(error, discord.HTTPException):
        return error.code in GONE_CODES
    return isinstance(error, aiohttp.ClientError | asyncio.TimeoutError | ConnectionError)


def refused(error: BaseException) -> bool:
    """Whether Discord received a request and refused it (a permission, a payload it does not accept)."""
    return isinstance(error, discord.HTTPException) and not lost(error)


def describe_failure(error: BaseException) -> str:
    """Discord's status, code and message (or the kind of network failure), for the log."""
    if isinstance(error, discord.HTTPException):
        return f"{error.status} {error.code} {error.text[:200]}"
    return type(error).__name__


def refusal_words(lang: str, error: BaseException) -> str:
    """What a player reads about a refusal: a permission the bot lacks here, or Discord's code."""
    if isinstance(error, discord.HTTPException) and (error.status == 403 or error.code in FORBIDDEN_CODES):
        return t(lang, "error.discord_forbidden")
    code = error.code if isinstance(error, discord.HTTPException) else 0
    return t(lang, "error.discord_refused", code=code or getattr(error, "status", 0))


def log_refusal(what: str, error: BaseException) -> None:
    """A refusal, at error level, with Discord's code and message (a lost answer only warns)."""
    if refused(error):
        log.error("%s refused by Discord: %s", what, describe_failure(error))
    else:
        log.warning("%s lost: %s", what, describe_failure(error))
