"""The button-press pipeline inside ``GameManager.turn``: the game id and the board version checked against
the game actually in play (an older board on the game's own message redrawn), the move applied and stored,
and the answer sent with the new board, all inside the channel's lock."""

from __future__ import annotations

from collections.abc import Callable

from pyramide import Game
from pyramide import effects as ev
from pyramide.i18n import describe, t
from pyramide_service.manager import Live, Turn
from pyramide_service.storage import PLAYING

from ..answer import Answer
from ..common import mention
from . import controls
from .board import show, update_board
from .places import settings_key
from .policy import may_end
from .words import ending_words

QUIET_EVENTS = (
    ev.Blocked,
    ev.NotInPlay,
    ev.UnknownCard,
    ev.NothingToDo,
    ev.NothingToUndo,
    ev.NoPassesLeft,
    ev.GameOver,
)


async def current_or_redraw(answer: Answer, turn: Turn, game_id: int, version: int, lang: str) -> Live | None:
    """The game a button press may act on, or ``None`` once the press has been answered otherwise:
    a press on the game's own message drawn for an older version redraws that message (a lost
    answer must never leave a board that cannot be played); a press on any other message is out of date."""
    message = answer.interaction.message
    message_id = message.id if message else None
    live = turn.live
    if live is None or live.record.id != game_id:
        if turn.broken is not None and turn.broken.record.id == game_id:
            await answer.say(t(lang, "error.broken_game"))
        elif not await _redraw_finished(answer, turn.channel_id, game_id, message_id, lang):
            await answer.say(t(lang, "error.stale_board"))
        return None
    if version == live.game.version:
        return live
    if message_id is not None and message_id == live.record.message_id:
        await update_board(answer, live, lang, [t(lang, "board.refreshed")], game=live.game.copy())
    else:
        await answer.say(t(lang, "error.stale_board"))
    return None


async def _redraw_finished(answer: Answer, channel_id: int, game_id: int, message_id: int | None, lang: str) -> bool:
    """A press on the last message of a finished game shows it finished, with its buttons."""
    record = await answer.bot.manager.record(game_id)
    if (
        record is None
        or record.status == PLAYING
        or record.channel_id != channel_id
        or message_id is None
        or record.message_id != message_id
    ):
        return False
    try:
        game = Game.replay(record.code, record.actions)
    except (ValueError, TypeError):
        return False
    # The finished board shows what the game unlocked, however it is drawn again (its first answer may
    # have been lost: a press delivered to two processes, a restart).
    record.unlocked = tuple(u.key for u in await answer.bot.storage.unlocked(record.owner_id) if u.game_id == game_id)
    live = Live(record, game)
    status = await ending_words(answer, live, lang)
    await update_board(answer, live, lang, status, game=game)
    return True


def tap_action(action: str) -> Callable[[Game], ev.Event]:
    if action == controls.UNDO:
        return lambda game: game.undo()
    spot = controls.spot_of(action)
    return lambda game: game.tap(spot)


async def play(answer: Answer, turn: Turn, lang: str, action: Callable[[Game], ev.Event], *, edit: bool) -> None:
    """Apply a move to the turn's game, store it, and answer with the new board (inside the lock)."""
    assert turn.live is not None
    guild_id = settings_key(turn.live.record)
    result = await turn.apply(action, request=answer.interaction.id)
    event = result.event
    quiet = not edit and isinstance(event, QUIET_EVENTS)
    answer.private = quiet
    settings = await answer.settings(guild_id)
    if quiet and answer.deferred_private is not False:
        # Nothing on the board changed: answer the typed command privately, keep the channel quiet.
        if isinstance(event, ev.Blocked) and not settings.error_help:
            await answer.say(t(lang, "event.blocked_quiet"))
        else:
            await answer.say(describe(event, lang, True))
        return
    status = [describe(event, lang, settings.error_help or quiet)]
    if result.finished:
        status.extend(await ending_words(answer, result.live, lang))
    await show(answer, result.live, lang, status, edit=edit, game=result.snapshot)


async def finish(answer: Answer, turn: Turn, lang: str, *, edit: bool) -> None:
    """End the turn's game (its starter, or anyone with Manage Messages)."""
    assert turn.live is not None
    if not may_end(answer.interaction, turn.live):
        await answer.say(t(lang, "error.end_not_allowed", owner=mention(turn.live.record.owner_id)))
        return
    answer.private = False
    live = await turn.end()
    status = await ending_words(answer, live, lang)
    await show(answer, live, lang, status, edit=edit)


async def live_or_say(answer: Answer, turn: Turn, lang: str) -> Live | None:
    if turn.live is None:
        await answer.say(t(lang, "error.broken_game" if turn.broken is not None else "error.no_game"))
    return turn.live
