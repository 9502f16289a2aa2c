"""A press handed to the application's ``Plays`` (``pyramide_service.play``) and its one outcome answered:
the new board, the ending's words, or why nothing was played. The outcome is answered inside the channel's
lock, so answers leave in the order the moves were made."""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from pyramide import Game
from pyramide import effects as ev
from pyramide.i18n import describe, t
from pyramide_discord import presenter
from pyramide_discord.words import ending_lines, mention
from pyramide_service import outcomes as out
from pyramide_service.play import Press, Slow

from ..answer import Answer
from .board import post_board, show, update_board

QUIET_EVENTS = (
    ev.Blocked,
    ev.NotInPlay,
    ev.UnknownCard,
    ev.NothingToDo,
    ev.NothingToUndo,
    ev.NoPassesLeft,
    ev.GameOver,
)
def press_of(answer: Answer, game_id: int | None = None, version: int | None = None) -> Press:
    """The press as the application takes it: ids and values (a button's game, version and message)."""
    interaction = answer.interaction
    message = interaction.message if game_id is not None else None
    assert answer.place is not None
    return Press(
        channel_id=answer.place.channel_id,
        player_id=interaction.user.id,
        lang=answer.lang,
        request=interaction.id,
        game_id=game_id,
        version=version,
        message_id=message.id if message is not None else None,
        manage_messages=interaction.permissions.manage_messages,
    )


def slow(answer: Answer) -> Slow:
    """Before a wait that may be long (a verdict, a hint): the answer is acknowledged, to be public."""

    async def acknowledge() -> None:
        answer.private = False
        await answer.defer()

    return acknowledge


async def refused(answer: Answer, outcome: out.Unplayed | out.MayNotEnd | out.Busy, lang: str) -> None:
    """Answer an outcome that played nothing (stale, not yours, a board drawn again...)."""
    match outcome:
        case out.NoGameHere() | out.Broken() | out.Stale() | out.Busy():
            await answer.say(presenter.refusal(outcome, lang))
        case out.Redrawn(live, snapshot):
            await update_board(answer, live, lang, [t(lang, "board.refreshed")], game=snapshot)
        case out.ShownFinished(live, snapshot, ending):
            await update_board(answer, live, lang, ending_lines(ending, lang), game=snapshot, ending=ending)
        case out.ClosedAtLoad(live, snapshot, ending):
            answer.private = False  # the game's ending, with what it unlocked, as its lost answer would have been
            await post_board(answer, live, lang, ending_lines(ending, lang), game=snapshot, ending=ending)
        case out.NotYours(live):
            place = answer.place
            key = "error.not_your_game" if place is None or place.threads else "error.not_your_game_here"
            await answer.say(t(lang, key, owner=mention(live.record.owner_id)))
        case out.MayNotEnd(live):
            await answer.say(presenter.not_allowed(mention(live.record.owner_id), lang))
        case _:
            assert_never(outcome)


async def play(answer: Answer, press: Press, action: Callable[[Game], ev.Effect], *, edit: bool) -> None:
    """Play a move and answer with the new board (a typed command's move that changed nothing: privately)."""
    lang = answer.lang
    async with answer.bot.plays.play(press, action, slow=slow(answer)) as outcome:
        if not isinstance(outcome, out.Played):
            await refused(answer, outcome, lang)
            return
        event, settings = outcome.effect, outcome.settings
        quiet = not edit and isinstance(event, QUIET_EVENTS)
        answer.private = quiet
        if quiet and answer.deferred_private is not False:
            # Nothing on the board changed: answer the typed command privately, keep the channel quiet.
            if isinstance(event, ev.Blocked) and not settings.error_help:
                await answer.say(t(lang, "effect.blocked_quiet"))
            else:
                await answer.say(describe(event, lang, True))
            return
        status = [describe(event, lang, settings.error_help or quiet)]
        if outcome.ending is not None:
            status.extend(ending_lines(outcome.ending, lang))
        await show(answer, outcome.live, lang, status, edit=edit, game=outcome.snapshot, ending=outcome.ending)


async def finish(answer: Answer, press: Press, *, edit: bool) -> None:
    """End the game (its starter, or anyone with Manage Messages); a button's press is checked as a move is."""
    lang = answer.lang
    async with answer.bot.plays.end(press, checked=edit, slow=slow(answer)) as outcome:
        if not isinstance(outcome, out.Ended):
            await refused(answer, outcome, lang)
            return
        answer.private = False
        status = ending_lines(outcome.ending, lang)
        await show(answer, outcome.live, lang, status, edit=edit, ending=outcome.ending)
