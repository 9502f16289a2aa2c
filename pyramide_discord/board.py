"""The game message as every face draws it: the board picture (in the owner's style), the status lines,
the title and its buttons, for a press's answer (``cogs.pyramide.board``) and for the Activity's edits of
the channel's board."""

from __future__ import annotations

import asyncio
import functools
import io
from datetime import date
from typing import Any

import discord

from pyramide import UNDER, WASTE, Game
from pyramide.daily import daily_number
from pyramide.i18n import card_name, card_spoken, rank_letters, t
from pyramide.labels import Labels
from pyramide.render import faces_for, faces_ready, render_board
from pyramide.style import Deck
from pyramide_service import ENDED, PLAYING, GameRecord
from pyramide_service.ending import Ending
from pyramide_service.finished import offers as finished_offers
from pyramide_service.finished import winnable as known_winnable
from pyramide_service.manager import Live

from . import controls
from .emojis import CardEmojis
from .host import Host
from .words import mention, tier_line, tier_words

ALT_LIMIT = 1024  # Discord's longest description of an attachment (MessageAttachmentRequest)


def board_labels(lang: str) -> Labels:
    return Labels(
        score=t(lang, "board.score"),
        moves=t(lang, "board.moves"),
        time=t(lang, "board.time"),
        cards=functools.partial(_cards, lang),
        passes=t(lang, "board.passes"),
        stock=t(lang, "board.stock"),
        waste=t(lang, "board.waste"),
        won=t(lang, "board.won"),
        stuck=t(lang, "board.stuck"),
        ranks=rank_letters(lang),
    )


def _cards(lang: str, n: int) -> str:
    return t(lang, "board.cards", n=n)


def daily_name(record: GameRecord, lang: str) -> str:
    assert record.daily is not None
    return t(lang, "daily.title", number=daily_number(date.fromisoformat(record.daily)))


def finished(game: Game, record: GameRecord) -> bool:
    """Whether a board shows a finished game (it offers new games and animations, not moves)."""
    return game.is_over or record.status != PLAYING


def shown_code(record: GameRecord, game: Game, lang: str) -> str:
    """The deal's code as every view of the game shows it."""
    if record.event_id is not None:  # an event's deal: its code is revealed with the event's results
        return t(lang, "event.deal_code", number=(record.event_deal or 0) + 1)
    # No peeking: a counted daily in play never shows its code (it would deal the day's cards elsewhere).
    hidden = record.counted and record.status == PLAYING and not game.is_over
    return daily_name(record, lang) if hidden else record.code


def _launch_button(record: GameRecord, lang: str) -> discord.ui.Button[Any]:
    return controls.board_button(record.id, 0, controls.LAUNCH, label=t(lang, "button.launch"))


def _finished_view(live: Live, lang: str, winnable: bool, launch: bool) -> discord.ui.View:
    """Under a finished board: what the application offers (``finished.offers``: share, the same deal
    again, how the deal could have been won, the game as it was played; an event's next deal) besides a new
    game; with ``launch``, the Activity's button last (a sixth button starts a second row)."""
    view = discord.ui.View(timeout=None)
    record = live.record
    offered = finished_offers(record, winnable)
    if offered.next_event_deal:
        view.add_item(controls.event_play_button(record.event_id or 0, label=t(lang, "event.button.next")))
    if offered.share:
        view.add_item(controls.share_button(record.id, label=t(lang, "button.share")))
    view.add_item(
        controls.board_button(
            record.id, 0, controls.NEW, label=t(lang, "button.new_game"), style=discord.ButtonStyle.success
        )
    )
    if offered.same_deal:
        view.add_item(
            controls.board_button(
                record.id, 0, controls.AGAIN, label=t(lang, "button.same_deal"), style=discord.ButtonStyle.primary
            )
        )
    if offered.line:
        view.add_item(controls.animation_button("line", record.id, label=t(lang, "button.winning_line")))
    if offered.replay:
        view.add_item(controls.animation_button("mine", record.id, label=t(lang, "button.replay")))
    if launch:
        view.add_item(_launch_button(record, lang))
    view.stop()
    return view


def board_view(
    live: Live,
    lang: str,
    game: Game | None = None,
    *,
    highlight: tuple = (),
    dead: bool = False,
    winnable: bool = False,
    emojis: CardEmojis | None = None,
    launch: bool = False,
    deck: Deck = Deck.CLASSIC,
) -> discord.ui.View:
    """One button per playable card, the waste, the stock, then undo, hint and end. The cards of a hint
    are blue, a selected card green; a game where nothing can be removed any more also offers a new
    deal or the same one again. With ``emojis`` (a complete set) the cards, the empty waste and the
    stock show their faces beside the short labels (which screen readers and search still read), in the
    colours of the owner's ``deck``. With ``launch``, the Activity's button follows the stock (that row holds
    at most three others)."""
    game, record = game or live.game, live.record
    if finished(game, record):
        return _finished_view(live, lang, winnable, launch)
    view = controls.ButtonRows()
    version = game.version
    emojis = emojis or CardEmojis()

    def button(
        action: str,
        label: str,
        style: discord.ButtonStyle,
        row: int,
        disabled: bool = False,
        emoji: dict[str, Any] | None = None,
    ) -> None:
        view.button(controls.board_id(record.id, version, action), label, style, row, disabled=disabled, emoji=emoji)

    cards = [s for s in game.selectable_spots() if isinstance(s, int)]
    for position, spot in enumerate(cards[:15]):
        card = game.pyramid[spot]
        assert card is not None
        style = (
            discord.ButtonStyle.success
            if game.selected == spot
            else discord.ButtonStyle.primary
            if spot in highlight
            else discord.ButtonStyle.secondary
        )
        button(str(spot), card_name(card, lang), style, row=position // 5, emoji=emojis.face(card, lang, deck))
    row = (min(len(cards), 15) + 4) // 5
    top = game.card_at(WASTE)
    waste_style = discord.ButtonStyle.success if game.selected == WASTE else discord.ButtonStyle.primary
    waste_emoji = emojis.face(top, lang, deck) if top else emojis.waste
    waste = card_name(top, lang) if top else "—"
    button(controls.TAP_WASTE, waste, waste_style, row, disabled=top is None, emoji=waste_emoji)
    under = game.card_at(UNDER)
    if under is not None:
        style = discord.ButtonStyle.success if game.selected == UNDER else discord.ButtonStyle.secondary
        label = t(lang, "button.under", card=card_name(under, lang))
        button(controls.TAP_UNDER, label, style, row, emoji=emojis.face(under, lang, deck))
    if game.stock:
        draw = t(lang, "button.draw", n=len(game.stock))
        button(controls.TAP_STOCK, draw, discord.ButtonStyle.primary, row, emoji=emojis.back)
    elif game.can_turn:
        button(controls.TAP_STOCK, t(lang, "button.turn"), discord.ButtonStyle.primary, row)
    else:
        button(controls.TAP_STOCK, t(lang, "button.no_stock"), discord.ButtonStyle.secondary, row, disabled=True)
    if launch:
        button(controls.LAUNCH, t(lang, "button.launch"), discord.ButtonStyle.secondary, row)
    row += 1
    button(controls.UNDO, t(lang, "button.undo"), discord.ButtonStyle.secondary, row, disabled=not game.can_undo)
    button(controls.HINT, t(lang, "button.hint"), discord.ButtonStyle.secondary, row)
    button(controls.END, t(lang, "button.end"), discord.ButtonStyle.danger, row)
    if dead:  # beside undo, hint and end: with 15 cards on three rows, a sixth row would not exist
        button(controls.NEW, t(lang, "button.new_game"), discord.ButtonStyle.success, row)
        button(controls.AGAIN, t(lang, "button.same_deal"), discord.ButtonStyle.primary, row)
    return view


def alt_text(game: Game, lang: str, code: str) -> str:
    """The position in words, for screen readers (the picture's description), in the order a player acts:
    the free cards (the pyramid read row by row, as the Activity's arrow keys go), the waste (and the card
    under it where that variant plays it), the stock; then how far the game is. Each card as it is spoken."""
    free = [
        card_spoken(card, lang)
        for spot in game.selectable_spots()
        if isinstance(spot, int) and (card := game.pyramid[spot])
    ]
    top, under = game.card_at(WASTE), game.card_at(UNDER)
    waste = card_spoken(top, lang) if top else "—"
    if top and under:
        waste = t(lang, "board.alt_under", card=waste, under=card_spoken(under, lang))
    text = t(
        lang,
        "board.alt",
        code=code,
        removed=game.removed,
        free=", ".join(free) or "—",
        waste=waste,
        stock=len(game.stock),
        score=game.score,
        moves=game.moves,
    )
    return text[:ALT_LIMIT]


def deal_winnable(bot: Host, record: GameRecord) -> bool:
    """Whether the deal is known to be winnable from its start, by the verdicts known now (no waiting)."""
    return known_winnable(record, bot.solver.known_verdict(record.code))


async def drawn_board(
    bot: Host,
    live: Live,
    lang: str,
    status: list[str],
    *,
    launch: bool,
    highlight: tuple = (),
    game: Game | None = None,
    dead: bool = False,
    ending: Ending | None = None,
) -> dict[str, Any]:
    """content, file and view of a game message, drawn from ``game`` (a snapshot) or ``live.game``; a
    finished game's deal difficulty and whether it was winnable are its ``ending``'s, when given;
    ``launch``: whether it offers the Activity's button."""
    snapshot = game or live.game
    record = live.record
    banner = t(lang, "board.ended") if record.status == ENDED else None
    code = shown_code(record, snapshot, lang)
    # Drawn on the event loop: a board of a game played press by press costs a median 0.64 ms (bench/render.py,
    # from cached layers and words, ISA-L's deflate), less than handing it to a thread to wait for the GIL.
    # The processes of a cluster (one per core) are how a bot uses more than one core.
    # In the style of the player whose game it is, whoever pressed (another player's game keeps its own).
    style = await bot.styles.get(record.owner_id)
    labels = board_labels(lang)
    if not faces_ready(labels.ranks, style):  # a style's first board in a language: half a second, in a thread
        await asyncio.to_thread(faces_for, labels.ranks, style)
    png = render_board(snapshot, labels=labels, highlight=highlight, banner=banner, code=code, style=style)
    title = t(lang, "board.title", player=mention(record.owner_id), code=code)
    tier = tier_words(record, lang, bot.solver) if ending is None else tier_line(ending.tier, lang)
    # asked of finished boards only
    winnable = finished(snapshot, record) and (deal_winnable(bot, record) if ending is None else ending.winnable)
    lines = [" · ".join(filter(None, (title, tier)))]
    lines.extend(line for line in status if line)
    return {
        "content": "\n".join(lines)[:2000],
        "file": discord.File(io.BytesIO(png), filename="pyramide.png", description=alt_text(snapshot, lang, code)),
        "view": board_view(
            live,
            lang,
            snapshot,
            highlight=highlight,
            dead=dead,
            emojis=bot.card_emojis.current,
            deck=style.deck,
            winnable=winnable,
            launch=launch,
        ),
    }
