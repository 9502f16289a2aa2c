"""The two-phase hint: checked and snapshotted inside the channel's lock, worked out outside it (other
moves go on), answered inside it again only if the board is still where the hint was asked."""

from __future__ import annotations

from typing import Any

from pyramide import STOCK, Game
from pyramide.i18n import card_name, t
from pyramide_service.outcomes import Hinted, MovedOn

from ..answer import Answer
from .board import show
from .turns import press_of, refused, slow


async def show_hint(answer: Answer, lang: str, *, game_id: int | None = None, version: int | None = None) -> None:
    """Hint: checked and snapshotted inside the lock, worked out outside it (other moves go on), and
    answered inside it again only if the board is still where the hint was asked (``Plays.hint``)."""
    if answer.place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    edit = game_id is not None
    async with answer.bot.table.hint(press_of(answer, game_id, version), slow=slow(answer)) as outcome:
        match outcome:
            case Hinted(live, snapshot, suggestion):
                status, highlight, dead = hint_words(suggestion, snapshot, lang)
                await show(answer, live, lang, status, edit=edit, highlight=highlight, game=snapshot, dead=dead)
            case MovedOn(live, snapshot) if live is not None:
                await show(answer, live, lang, [t(lang, "hint.moved_on")], edit=edit, game=snapshot)
            case MovedOn():
                await answer.say(t(lang, "hint.moved_on"))
            case _:
                await refused(answer, outcome, lang)


def hint_words(suggestion: Any, game: Game, lang: str) -> tuple[list[str], tuple, bool]:
    """The hint's line, the spots to highlight, and whether no card can be removed any more."""
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
        names = [card_name(c, lang) for c in (game.card_at(s) for s in move.spots) if c is not None]
        status, highlight = t(lang, "hint.cards", cards=" + ".join(names)), tuple(move.spots)
    lines = [status, t(lang, "hint.losing")] if suggestion.lost and move is not None else [status]
    return lines, highlight, False
