"""/pyramide style: a player's deck, corners and table (``pyramide.style``), kept across servers and places
and used for every picture of a game they start; the answer is private, with a preview of the style."""

from __future__ import annotations

import asyncio
import io

import discord

from pyramide import STOCK, Game
from pyramide.i18n import t
from pyramide.render import render_board
from pyramide.style import FIELDS, Style, StyleError, choices
from pyramide_discord.board import board_labels

from ..answer import Answer

PREVIEW_DEAL = 4242  # a deal whose first moves leave every suit on the board's free cards
PREVIEW_SECONDS = 95.0  # the clock the preview shows


def preview_game() -> Game:
    """A game in progress: a few cards removed, three drawn, a card selected."""
    game = Game.from_number(PREVIEW_DEAL)
    for _ in range(3):
        removals = [move for move in game.legal_moves() if move.kind in ("pair", "king")]
        if not removals:
            break
        game.play(removals[0])
    for _ in range(3):
        game.tap(STOCK)
    free = [spot for spot in game.selectable_spots() if isinstance(spot, int)]
    if free:
        game.tap(free[-1])
    game.started_at = 0.0
    return game


def preview_png(style: Style, lang: str) -> bytes:
    """The preview: the position above in ``style``, with a hint on the stock (both outlines shown)."""
    return render_board(preview_game(), labels=board_labels(lang), now=PREVIEW_SECONDS, highlight={STOCK}, style=style)


def choice_name(lang: str, field: str, value: str) -> str:
    return t(lang, f"choice.{field}.{value}")


def describe(style: Style, lang: str) -> dict[str, str]:
    """The style's three choices by field, in the player's words."""
    return {field: choice_name(lang, field, getattr(style, field).value) for field in FIELDS}


async def choose_style(answer: Answer, deck: str | None, corners: str | None, table: str | None) -> None:
    """Show the player's style, after changing what they named; a name that is no choice changes nothing
    and is answered with the choices."""
    lang, bot = answer.lang, answer.bot
    player = answer.interaction.user.id
    current = await bot.styles.get(player)
    try:
        chosen = current.with_values(deck=deck, corners=corners, table=table)
    except StyleError as error:
        names = ", ".join(choice_name(lang, error.field, value) for value in choices(error.field))
        value = discord.utils.escape_markdown(error.value[:40])
        field = t(lang, f"style.field.{error.field}")
        await answer.say(t(lang, "style.unknown", field=field, value=value, choices=names))
        return
    lines = []
    if chosen != current:
        await bot.styles.save(player, chosen)
        lines.append(t(lang, "style.saved"))
    words = describe(chosen, lang)
    lines.append(t(lang, "style.show", **words))
    png = await asyncio.to_thread(preview_png, chosen, lang)  # a style's first picture builds its sprites
    alt = t(lang, "style.alt", **words)[:1000]
    await answer.say("\n".join(lines), file=discord.File(io.BytesIO(png), filename="style.png", description=alt))
