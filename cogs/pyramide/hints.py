"""The two-phase hint: checked and snapshotted inside the channel's lock, worked out outside it (other
moves go on), answered inside it again only if the board is still where the hint was asked."""

from __future__ import annotations

from typing import Any

from pyramide import STOCK, Game
from pyramide.i18n import card_name, t
from pyramide_service.solving import SolverBusy

from ..answer import Answer
from .board import show
from .policy import allowed
from .turns import current_or_redraw, live_or_say


async def show_hint(answer: Answer, lang: str, *, game_id: int | None = None, version: int | None = None) -> None:
    """Hint: checked and snapshotted inside the lock, worked out outside it (other moves go on), and
    answered inside it again only if the board is still where the hint was asked."""
    bot = answer.bot
    place = answer.place
    if place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    channel_id = place.channel_id
    edit = game_id is not None
    async with bot.manager.turn(channel_id) as turn:
        if edit:
            assert game_id is not None and version is not None
            live = await current_or_redraw(answer, turn, game_id, version, lang)
        else:
            live = await live_or_say(answer, turn, lang)
        if live is None or not await allowed(answer, live, lang):
            return
        snapshot = live.game.copy()
    answer.private = False
    await answer.defer()
    try:
        suggestion = await bot.manager.hint(live, snapshot, request=answer.interaction.id)
    except SolverBusy:
        await answer.say(t(lang, "error.solver_busy"))
        return
    async with bot.manager.turn(channel_id) as turn:
        now = turn.live
        if now is None or now.record.id != live.record.id or now.game.version != snapshot.version:
            if now is not None and now.record.id == live.record.id:
                await show(answer, now, lang, [t(lang, "hint.moved_on")], edit=edit, game=now.game.copy())
            else:
                await answer.say(t(lang, "hint.moved_on"))
            return
        status, highlight, dead = hint_words(suggestion, snapshot, lang)
        await show(answer, now, lang, status, edit=edit, highlight=highlight, game=snapshot, dead=dead)


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
