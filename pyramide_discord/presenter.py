"""The one presenter: what the application decided, in the player's language, for every face (the board's
answers, the typed commands, the Activity's page). Each face delivers these words its own way (a private
answer, a redrawn board, a line on the page); none of them words an outcome again.

Also how both faces read a board action as the move it makes (``tap_action``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, assert_never

from pyramide import STOCK, Card, Game
from pyramide import effects as ev
from pyramide.i18n import card_name, t
from pyramide_service import admission, outcomes

from . import controls

# Why a press played nothing, when nothing is drawn again: said privately (the page: beside the position).
REFUSALS: dict[type, str] = {
    outcomes.NoGameHere: "error.no_game",
    outcomes.Broken: "error.broken_game",
    outcomes.Stale: "error.stale_board",
    outcomes.Busy: "error.solver_busy",
}
Unanswered = outcomes.NoGameHere | outcomes.Broken | outcomes.Stale | outcomes.Busy
Name = Callable[[int], str]  # how a face names a player by id (a mention on the board, a name on the page)


def refusal(outcome: Unanswered, lang: str) -> str:
    return t(lang, REFUSALS[type(outcome)])


def not_allowed(owner: str, lang: str) -> str:
    """Neither the game's starter (``owner``, as the face names players) nor a moderator."""
    return t(lang, "error.end_not_allowed", owner=owner)


def question(asked: admission.AskFirst, lang: str, name: Name) -> list[str]:
    """The question before a deal replaces the running game: end it and deal, or keep it (and who may)."""
    words = [t(lang, "error.game_exists")]
    if asked.abandons:
        words.append(t(lang, "error.idle_game", minutes=asked.idle_minutes))
    elif not asked.allowed:
        words.append(not_allowed(name(asked.running.record.owner_id), lang))
        words.append(t(lang, "error.idle_later", minutes=asked.idle_minutes))
    return words


def deal_refusal(refused: admission.Refused, lang: str, name: Name) -> list[str]:
    """Why a deal was not dealt; ``name``: how the face names a player (a mention, the page's names)."""
    match refused:
        case admission.AskFirst():
            return question(refused, lang, name)
        case admission.PromptUsed():
            return [t(lang, "error.prompt_used")]
        case admission.MayNotReplace(running):
            return [not_allowed(name(running.record.owner_id), lang)]
        case admission.PeeksAtDaily():
            return [t(lang, "error.daily_peek")]
        case admission.PeeksAtEvent():  # a running event's deal waits until it is over
            return [t(lang, "event.peek")]
        case outcomes.Busy():
            return [refusal(refused, lang)]
        case _:
            assert_never(refused)


def give_up_words(outcome: outcomes.GiveUpOutcome, lang: str) -> str:
    """A race's "Give up", answered to the racer who pressed it."""
    match outcome:
        case outcomes.GaveUp():
            return t(lang, "race.you_gave_up")
        case outcomes.Stale():
            return refusal(outcome, lang)
        case outcomes.NotARacer():
            return t(lang, "race.not_yours")
        case outcomes.RaceOver():
            return t(lang, "race.already_over")
        case _:
            assert_never(outcome)


def tap_action(action: str) -> Callable[[Game], ev.Effect]:
    """A board action (a spot, the waste, the card under it, the stock, undo) as the move it makes."""
    if action == controls.UNDO:
        return lambda game: game.undo()
    spot = controls.spot_of(action)
    return lambda game: game.tap(spot)


def hint_words(
    suggestion: Any, game: Game, lang: str, name: Callable[[Card, str], str] = card_name
) -> tuple[list[str], tuple, bool]:
    """The hint's line (its cards written by ``name``), the spots to highlight, and whether no card can be
    removed any more."""
    move = suggestion.move
    highlight: tuple = ()
    if suggestion.lost and suggestion.removable is not None and suggestion.removable <= game.removed:
        # Formally the game goes on while cards can be drawn (the rule texts), but the solver proved that
        # nothing more can ever be removed: say so, and offer a new deal.
        return [t(lang, "hint.dead", count=game.removed)], (), True
    if move is None:
        status = t(lang, "hint.none")
    elif move.kind == "draw":
        status, highlight = t(lang, "hint.draw"), (STOCK,)
    elif move.kind == "turn":
        status, highlight = t(lang, "hint.turn"), (STOCK,)
    else:
        names = [name(c, lang) for c in (game.card_at(s) for s in move.spots) if c is not None]
        status, highlight = t(lang, "hint.cards", cards=" + ".join(names)), tuple(move.spots)
    lines = [status, t(lang, "hint.losing")] if suggestion.lost and move is not None else [status]
    return lines, highlight, False
