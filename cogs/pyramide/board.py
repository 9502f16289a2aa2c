"""The game message: the board picture (drawn in a pool of its own), the status lines and the buttons."""

from __future__ import annotations

import asyncio
import contextlib
import io
from datetime import date
from typing import Any

import discord

from pyramide import UNDER, WASTE, Game
from pyramide.daily import daily_number
from pyramide.i18n import card_name, t
from pyramide.manager import Live
from pyramide.render import faces_for, faces_ready, render_board
from pyramide.solver import Verdict
from pyramide.storage import ENDED, PLAYING, WON, GameRecord
from pyramide.style import Deck

from ..answer import DISCORD_ERRORS, Answer, log_refusal, refused
from ..common import board_labels, mention
from ..emojis import CardEmojis
from . import controls
from .words import tier_words


def daily_name(record: GameRecord, lang: str) -> str:
    assert record.daily is not None
    return t(lang, "daily.title", number=daily_number(date.fromisoformat(record.daily)))


def finished(game: Game, record: GameRecord) -> bool:
    """Whether a board shows a finished game (it offers new games and animations, not moves)."""
    return game.is_over or record.status != PLAYING


def _finished_view(live: Live, lang: str, winnable: bool) -> discord.ui.View:
    """Under a finished board: share (a counted daily), a new game, the same deal again, and the
    animations: how the deal could have been won (when the solver proved it winnable) and the game as
    it was played."""
    view = discord.ui.View(timeout=None)
    record = live.record
    if record.event_id is not None:
        # An event's deal: its code stays hidden (no same deal, no line, no replay naming it); the next deal.
        view.add_item(controls.event_play_button(record.event_id, label=t(lang, "contest.button.next")))
        view.add_item(
            controls.board_button(
                record.id, 0, "new", label=t(lang, "button.new_game"), style=discord.ButtonStyle.success
            )
        )
        view.stop()
        return view
    if record.counted and record.daily is not None:
        view.add_item(controls.share_button(record.id, label=t(lang, "button.share")))
    view.add_item(
        controls.board_button(record.id, 0, "new", label=t(lang, "button.new_game"), style=discord.ButtonStyle.success)
    )
    view.add_item(
        controls.board_button(
            record.id, 0, "again", label=t(lang, "button.same_deal"), style=discord.ButtonStyle.primary
        )
    )
    if winnable:
        view.add_item(controls.animation_button("line", record.id, label=t(lang, "button.winning_line")))
    if record.actions:
        view.add_item(controls.animation_button("mine", record.id, label=t(lang, "button.replay")))
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
    deck: Deck = Deck.CLASSIC,
) -> discord.ui.View:
    """One button per playable card, the waste, the stock, then undo, hint and end. The cards of a hint
    are blue, a selected card green; a game where nothing can be removed any more also offers a new
    deal or the same one again. With ``emojis`` (a complete set) the cards, the empty waste and the
    stock show their faces beside the short labels (which screen readers and search still read), in the
    colours of the owner's ``deck``."""
    game, record = game or live.game, live.record
    if finished(game, record):
        return _finished_view(live, lang, winnable)
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
    button("w", card_name(top, lang) if top else "—", waste_style, row, disabled=top is None, emoji=waste_emoji)
    under = game.card_at(UNDER)
    if under is not None:
        style = discord.ButtonStyle.success if game.selected == UNDER else discord.ButtonStyle.secondary
        emoji = emojis.face(under, lang, deck)
        button("u", t(lang, "button.under", card=card_name(under, lang)), style, row, emoji=emoji)
    if game.stock:
        button("s", t(lang, "button.draw", n=len(game.stock)), discord.ButtonStyle.primary, row, emoji=emojis.back)
    elif game.can_turn:
        button("s", t(lang, "button.turn"), discord.ButtonStyle.primary, row)
    else:
        button("s", t(lang, "button.no_stock"), discord.ButtonStyle.secondary, row, disabled=True)
    row += 1
    button("undo", t(lang, "button.undo"), discord.ButtonStyle.secondary, row, disabled=not game.can_undo)
    button("hint", t(lang, "button.hint"), discord.ButtonStyle.secondary, row)
    button("end", t(lang, "button.end"), discord.ButtonStyle.danger, row)
    if dead:  # beside undo, hint and end: with 15 cards on three rows, a sixth row would not exist
        button("new", t(lang, "button.new_game"), discord.ButtonStyle.success, row)
        button("again", t(lang, "button.same_deal"), discord.ButtonStyle.primary, row)
    return view


def alt_text(game: Game, lang: str, code: str) -> str:
    """The position in words, for screen readers (the picture's description)."""
    free = [
        card_name(card, lang) for spot in game.free_spots() if isinstance(spot, int) and (card := game.pyramid[spot])
    ]
    top = game.card_at(WASTE)
    text = t(
        lang,
        "board.alt",
        code=code,
        removed=game.removed,
        free=", ".join(free) or "—",
        waste=card_name(top, lang) if top else "—",
        stock=len(game.stock),
        score=game.score,
        moves=game.moves,
    )
    return text[:1000]


def deal_winnable(answer: Answer, record: GameRecord) -> bool:
    """Whether the deal is known to be winnable from its start: won, or proved by the solver."""
    if record.status == WON:
        return True
    known = answer.bot.solver.known_verdict(record.code)
    return known is not None and known[0] is Verdict.WON


async def board_message(
    answer: Answer,
    live: Live,
    lang: str,
    status: list[str],
    *,
    highlight: tuple = (),
    game: Game | None = None,
    dead: bool = False,
) -> dict[str, Any]:
    """content, file and view of a game message, drawn from ``game`` (a snapshot) or ``live.game``."""
    snapshot = game or live.game
    record = live.record
    banner = t(lang, "board.ended") if record.status == ENDED else None
    # No peeking: a counted daily in play never shows its code (it would deal the day's cards elsewhere).
    hidden = record.counted and record.status == PLAYING and not snapshot.is_over
    code = daily_name(record, lang) if hidden else record.code
    if record.event_id is not None:  # an event's deal: its code is revealed with the event's results
        code = t(lang, "contest.deal_code", number=(record.event_deal or 0) + 1)
    # Drawn on the event loop: a board of a game played press by press costs a median 0.64 ms (bench/render.py,
    # from cached layers and words, ISA-L's deflate), less than handing it to a thread to wait for the GIL.
    # The processes of a cluster (one per core) are how a bot uses more than one core.
    # In the style of the player whose game it is, whoever pressed (another player's game keeps its own).
    style = await answer.bot.styles.get(record.owner_id)
    labels = board_labels(lang)
    if not faces_ready(labels.ranks, style):  # a style's first board in a language: half a second, in a thread
        await asyncio.to_thread(faces_for, labels.ranks, style)
    png = render_board(snapshot, labels=labels, highlight=highlight, banner=banner, code=code, style=style)
    title = t(lang, "board.title", player=mention(record.owner_id), code=code)
    lines = [" · ".join(filter(None, (title, tier_words(record, lang, answer.bot.solver))))]
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
            emojis=answer.bot.card_emojis.current,
            deck=style.deck,
            winnable=finished(snapshot, record) and deal_winnable(answer, record),  # asked of finished boards only
        ),
    }


async def take_back(answer: Answer, live: Live) -> None:
    """Remove a new game nobody saw (its board could not be posted): stored game, daily attempt and engine."""
    bot = answer.bot
    await bot.storage.discard_game(live.record.id)
    bot.manager.forget(live.record.channel_id)


async def post_board(
    answer: Answer, live: Live, lang: str, status: list[str], *, new: bool = False, **options: Any
) -> None:
    """Answer with a fresh game message and make it the game's message (the old one loses its buttons).
    The board of a ``new`` game that cannot be posted takes the game back (nobody saw it, and it would
    keep the channel busy), whatever Discord answered; the failure is raised on."""
    message = await board_message(answer, live, lang, status, **options)
    old = live.record.message_id
    try:
        sent = await answer.post(note=status[0] if status else "", **message)
    except Exception:
        if new:
            await take_back(answer, live)
        raise
    live.record.message_id = sent.id
    interaction = answer.interaction
    await answer.bot.storage.set_message(live.record.id, sent.id)
    place = answer.place
    # Where only the interaction can be answered, the old board keeps its buttons: a press on it is
    # answered privately as out of date.
    reachable = place is not None and place.bot_token
    if reachable and old and old != sent.id and isinstance(interaction.channel, discord.abc.Messageable):
        with contextlib.suppress(discord.HTTPException):
            await interaction.channel.get_partial_message(old).edit(view=None)  # type: ignore[union-attr]


async def post_board_to(
    target: discord.abc.Messageable, answer: Answer, live: Live, lang: str, status: list[str], *, made: bool
) -> bool:
    """Post a new game's board in ``target`` (a thread, or the channel itself) and make it the game's
    message. If Discord refuses it, the game nobody saw is taken back (and its daily attempt), and a
    thread made for it (``made``) is deleted; returns whether it was posted (or, for a counted daily
    whose answer was lost on the way, may have been)."""
    bot = answer.bot
    message = await board_message(answer, live, lang, status)
    try:
        sent = await target.send(**message)
    except DISCORD_ERRORS as error:
        log_refusal(f"board of game {live.record.id} in {live.record.channel_id}", error)
        if live.record.counted and not refused(error):
            # A lost answer may have posted the board: a counted daily whose deal may have been seen keeps
            # its attempt (a press on that board plays it; /pyramide daily play names where it is).
            return True
        await take_back(answer, live)
        if made and isinstance(target, discord.Thread):
            with contextlib.suppress(discord.HTTPException):
                await target.delete()
        return False
    live.record.message_id = sent.id
    await bot.storage.set_message(live.record.id, sent.id)
    return True


async def update_board(answer: Answer, live: Live, lang: str, status: list[str], **options: Any) -> None:
    """Redraw the message whose button was pressed (the old picture is replaced)."""
    message = await board_message(answer, live, lang, status, **options)
    file = message.pop("file")
    await answer.update(attachments=[file], **message)
    message_id = answer.interaction.message.id if answer.interaction.message else None
    if message_id is not None and live.record.message_id != message_id:
        live.record.message_id = message_id
        await answer.bot.storage.set_message(live.record.id, message_id)


async def show(answer: Answer, live: Live, lang: str, status: list[str], *, edit: bool, **kwargs: Any) -> None:
    try:
        if edit:
            await update_board(answer, live, lang, status, **kwargs)
        else:
            await post_board(answer, live, lang, status, **kwargs)
    finally:  # a race's scoreboard follows its games' stored state, whatever became of the board's answer
        await answer.bot.scoreboards.progress(live.record, lang)
        if live.record.event_id is not None and live.record.status != PLAYING:  # stored: its standings changed
            answer.bot.dispatch("pyramide_event_changed", live.record.event_id)
