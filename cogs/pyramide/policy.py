"""Who may do what to a game: its starter plays it unless the server lets anyone in the channel; ending
it or replacing it by a new deal; where a game of this interaction is stored."""

from __future__ import annotations

import discord

from pyramide.i18n import t
from pyramide_service import ABANDONED, ENDED, GameStatus
from pyramide_service.manager import Live

from ..answer import Answer
from ..common import mention
from .places import settings_key


async def allowed(answer: Answer, live: Live, lang: str) -> bool:
    """Only the game's starter plays it, unless the server (outside servers: the channel's last
    ``/pyramide new``) lets anyone in the channel play."""
    interaction = answer.interaction
    if interaction.user.id == live.record.owner_id:
        return True
    settings = await answer.settings(settings_key(live.record))
    if settings.anyone_can_play:
        return True
    place = answer.place
    key = "error.not_your_game" if place is None or place.threads else "error.not_your_game_here"
    await answer.say(t(lang, key, owner=mention(live.record.owner_id)))
    return False


def may_end(interaction: discord.Interaction, live: Live) -> bool:
    perms = interaction.permissions
    return interaction.user.id == live.record.owner_id or perms.manage_messages


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
