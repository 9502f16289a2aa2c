"""A game as the Activity's page draws it, in the player's language: the 28 spots, the waste (and the card
under it), the stock's count, score, moves and time, and the words the buttons and the finished game need.
The stock's cards stay face down: only their number leaves the bot."""

from __future__ import annotations

from typing import Any

from pyramide import STOCK, UNDER, WASTE, Card, Game
from pyramide.effects import GameResult
from pyramide.i18n import card_name, card_spoken, t
from pyramide_discord.board import shown_code
from pyramide_service import PLAYING, STUCK, WON
from pyramide_service.manager import Live

PAGE_TEXTS = (
    "board.score",
    "board.moves",
    "board.time",
    "board.stock",
    "board.waste",
    "button.undo",
    "button.hint",
    "button.turn",
    "button.new_game",
    "button.same_deal",
    "button.no_stock",
    "activity.deal",
    "activity.no_game",
    "activity.players",
    "activity.plays",
    "activity.watches",
    "activity.races",
    "activity.motion",
    "activity.reconnecting",
    "cmd.new.code",
    "cmd.new.strict",
    "cmd.new.passes",
    "cmd.new.draw_with_waste",
    "cmd.new.card_with_cover",
    "cmd.new.winnable",
    "choice.passes.unlimited",
    "choice.passes.one",
    "choice.passes.two",
    "choice.passes.three",
    "activity.empty_waste",
    "button.draw",
    "button.end",
    "button.share",
    "button.winning_line",
    "button.replay",
    "button.replace",
    "button.keep",
    "cmd.new.difficulty",
    "choice.tier.easy",
    "choice.tier.medium",
    "choice.tier.hard",
    "choice.tier.expert",
    "activity.any_difficulty",
    "activity.end_confirm",
    "activity.stop",
    "activity.copied",
    "activity.copy_select",
    "activity.new_deal",
    "activity.pyramid",
    "activity.piles",
    "activity.tools",
    "activity.figures",
    "activity.keys",
    "activity.waste_card",
    "activity.under_card",
    # today's daily in the player's seat (activity/daily.py)
    "activity.daily",
    "activity.table",
    "activity.month",
    "activity.month_title",
    "activity.seats",
    "activity.seat_daily",
    "activity.seat_done",
    # the party race (#48)
    "party.start",
    "party.start_these",
    "party.join",
    "party.countdown",
    "party.racers",
    "party.rivals",
    "party.rival",
    "party.podium",
    "party.place",
    "party.leads",
    "party.cleared",
    "party.over",
    "party.no_winner",
    "party.ends_in",
    "party.watch",
    "party.give_up",
    "party.share",
    "party.options",
    "party.untold",
    "party.share_failed",
    "party.invite",
)


def page_texts(lang: str) -> dict[str, str]:
    return {key: t(lang, key) for key in PAGE_TEXTS}


def _card(card: Card | None, lang: str) -> dict[str, Any] | None:
    if card is None:
        return None
    # ``card`` is the name /pyramide tap takes (7♣, 10♦); ``name`` the player's (D♣ in Croatian), ``spoken``
    # the words a screen reader says ("tref dama"); ``index`` names the face picture.
    return {
        "card": str(card),
        "name": card_name(card, lang),
        "spoken": card_spoken(card, lang),
        "index": str(card.index),
    }


def game_view(live: Live, game: Game, lang: str, now: float) -> dict[str, Any]:
    record = live.record
    free = set(game.selectable_spots())
    pyramid = []
    for spot, card in enumerate(game.pyramid):
        shown = _card(card, lang)
        if shown is not None:
            shown.update(spot=str(spot), free=spot in free)
        pyramid.append(shown)
    waste, under = _card(game.card_at(WASTE), lang), _card(game.card_at(UNDER), lang)
    if waste is not None:
        waste.update(spot=WASTE, free=WASTE in free)
    if under is not None:
        under.update(spot=UNDER, free=UNDER in free)
    finished = game.is_over or record.status != PLAYING
    status = record.status
    if status == PLAYING and game.is_over:  # the last move, before the record is closed
        status = WON if game.outcome is GameResult.WON else STUCK
    selected = game.selected
    return {
        "id": record.id,
        "version": game.version,
        "owner": str(record.owner_id),
        "code": shown_code(record, game, lang),
        "pyramid": pyramid,
        "waste": waste,
        "under": under,
        "stock": len(game.stock),
        "stock_spot": STOCK,
        "can_turn": game.can_turn,
        "can_undo": game.can_undo and not finished,
        "selected": str(selected) if selected is not None else None,
        "score": game.score,
        "moves": game.moves,
        "seconds": seconds_played(game, now),
        "running": game.started_at is not None and not finished,
        "passes": t(lang, "board.passes", current=game.passes + 1, total=game.rules.pass_limit + 1)
        if game.rules.pass_limit is not None
        else "",
        "finished": finished,
        "status": status,
        "event": record.event_id is not None,
    }


def seconds_played(game: Game, now: float) -> float:
    """The game's clock: from its first move to its end, or to ``now`` while it runs."""
    if game.started_at is None:
        return 0.0
    end = game.finished_at if game.finished_at is not None else now
    return max(0.0, end - game.started_at)
