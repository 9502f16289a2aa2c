"""A press handed to the application's ``Plays`` (``pyramide_service.play``) and its one outcome answered:
the new board, the ending's words, or why nothing was played. The outcome is answered inside the channel's
lock, so answers leave in the order the moves were made."""

from __future__ import annotations

from collections.abc import Callable

from pyramide import Game
from pyramide import effects as ev
from pyramide_discord import presenter
from pyramide_discord.words import ending_lines, mention
from pyramide_service import outcomes as out
from pyramide_service.play import Press, Slow

from ..answer import Answer
from .board import post_board, show, update_board


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


async def refused(answer: Answer, outcome: presenter.NotPlayed, lang: str) -> None:
    """Answer an outcome that played nothing (stale, not yours, a board drawn again...), in the presenter's
    words: privately, or on the board drawn again where the game is known."""
    place = answer.place
    words = presenter.unplayed(outcome, lang, mention, face="board", threads=place is None or place.threads)
    match outcome:
        case out.Redrawn(live, snapshot):
            await update_board(answer, live, lang, words, game=snapshot)
        case out.ShownFinished(live, snapshot, ending):
            await update_board(answer, live, lang, words, game=snapshot, ending=ending)
        case out.ClosedAtLoad(live, snapshot, ending):
            answer.private = False  # the game's ending, with what it unlocked, as its lost answer would have been
            await post_board(answer, live, lang, words, game=snapshot, ending=ending)
        case _:
            await answer.say("\n".join(words))


async def play(answer: Answer, press: Press, action: Callable[[Game], ev.Effect], *, edit: bool) -> None:
    """Play a move and answer with the new board (a typed command's move that changed nothing: privately)."""
    lang = answer.lang
    async with answer.bot.plays.play(press, action, slow=slow(answer)) as outcome:
        if not isinstance(outcome, out.Played):
            await refused(answer, outcome, lang)
            return
        quiet = not edit and presenter.quiet(outcome.effect)
        answer.private = quiet
        if quiet and answer.deferred_private is not False:
            # Nothing on the board changed: answer the typed command privately, keep the channel quiet.
            await answer.say(presenter.quiet_words(outcome, lang))
            return
        status = presenter.played_lines(outcome, lang, explained=quiet)
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
