"""Who may end a game or replace it by a new deal (who may play it is the application's: ``Table``)."""

from __future__ import annotations

import discord

from pyramide_service import ABANDONED, ENDED, GameStatus, play
from pyramide_service.manager import Live

from ..answer import Answer
from .home import settings_key


def may_end(interaction: discord.Interaction, live: Live) -> bool:
    return play.may_end(live.record, interaction.user.id, interaction.permissions.manage_messages)


async def idle_minutes(answer: Answer, live: Live) -> float:
    """How long the game has gone without a move, in minutes."""
    bot = answer.bot
    last = await bot.manager.last_action_at(live.record.id) or live.record.created_at
    return (bot.clock() - last) / 60


async def may_replace(answer: Answer, live: Live) -> tuple[bool, GameStatus]:
    """Whether this player may end ``live`` to deal a new game, and how it is recorded: its starter or a
    moderator ends it; anyone in the channel may replace it once it sat idle past the server's limit
    (recorded as abandoned: played, not won)."""
    if may_end(answer.interaction, live):
        return True, ENDED
    settings = await answer.settings(settings_key(live.record))
    if await idle_minutes(answer, live) >= settings.idle_minutes:
        return True, ABANDONED
    return False, ENDED
