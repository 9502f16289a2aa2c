"""Who may end a game or replace it by a new deal (who may play it is the application's: ``Table``)."""

from __future__ import annotations

import discord

from pyramide_service import GameStatus, play
from pyramide_service.manager import Live

from ..answer import Answer


def may_end(interaction: discord.Interaction, live: Live) -> bool:
    return play.may_end(live.record, interaction.user.id, interaction.permissions.manage_messages)


async def may_replace(answer: Answer, live: Live) -> tuple[bool, GameStatus]:
    """Whether this player may end ``live`` to deal a new game, and how it is recorded (the application's
    rule, ``Table.may_replace``, with this interaction's Manage Messages)."""
    interaction = answer.interaction
    return await answer.bot.table.may_replace(live, interaction.user.id, interaction.permissions.manage_messages)
