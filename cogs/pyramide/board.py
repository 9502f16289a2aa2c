"""The game message as a press's answer: drawn (``pyramide_discord.board``), posted or the pressed
message updated, and made the game's message."""

from __future__ import annotations

import contextlib
from typing import Any

import discord

from pyramide_discord.board import drawn_board
from pyramide_service import GameRecord
from pyramide_service.manager import Live
from pyramide_service.opening import show_at

from ..answer import Answer


def launch_offered(answer: Answer, record: GameRecord) -> bool:
    """Whether the board of ``record`` offers the Activity's launch button: the Activity is served, and the
    board is in the place the interaction came from (one posted elsewhere is in a thread made for it), where
    Discord lets an Activity start and the bot can edit the board (``cogs.places.Place.activities``)."""
    place = answer.place
    return (
        answer.bot.offers_activity and place is not None and place.activities and record.channel_id == place.channel_id
    )


async def board_message(answer: Answer, live: Live, lang: str, status: list[str], **options: Any) -> dict[str, Any]:
    """``drawn_board`` for this interaction's place (the Activity's button where it can start)."""
    return await drawn_board(answer.bot, live, lang, status, launch=launch_offered(answer, live.record), **options)


async def post_board(answer: Answer, live: Live, lang: str, status: list[str], **options: Any) -> None:
    """Answer with a fresh game message and make it the game's message (the old one loses its buttons)."""
    message = await board_message(answer, live, lang, status, **options)
    old = live.record.message_id
    sent = await answer.post(note=status[0] if status else "", **message)
    interaction = answer.interaction
    await show_at(answer.bot.manager, live, sent.id)
    place = answer.place
    # Where only the interaction can be answered, the old board keeps its buttons: a press on it is
    # answered privately as out of date.
    reachable = place is not None and place.bot_token
    if reachable and old and old != sent.id and isinstance(interaction.channel, discord.abc.Messageable):
        with contextlib.suppress(discord.HTTPException):
            await interaction.channel.get_partial_message(old).edit(view=None)  # type: ignore[union-attr]


async def update_board(answer: Answer, live: Live, lang: str, status: list[str], **options: Any) -> None:
    """Redraw the message whose button was pressed (the old picture is replaced)."""
    message = await board_message(answer, live, lang, status, **options)
    file = message.pop("file")
    await answer.update(attachments=[file], **message)
    message_id = answer.interaction.message.id if answer.interaction.message else None
    if message_id is not None and live.record.message_id != message_id:
        await show_at(answer.bot.manager, live, message_id)


async def show(answer: Answer, live: Live, lang: str, status: list[str], *, edit: bool, **kwargs: Any) -> None:
    """Redraw the pressed message (``edit``) or post a new one (a typed command). Whoever follows the game
    (a race's scoreboard, an event's announcement) is told by the application, not from here."""
    if edit:
        await update_board(answer, live, lang, status, **kwargs)
    else:
        await post_board(answer, live, lang, status, **kwargs)
