"""Opening a deal: a free game, the daily, an event's deal or a race, each the same way. The place (the
channel asked in, or a thread made for the game), the game started under the place's lock, its board
posted, and whatever a failure left half-made taken back, here once for the four.

Nothing here knows Discord: the surface that shows the board is a ``BoardPort`` passed in (each face
implements it once). A free deal's rules (a game running there, no peeking) are the application's
``admission``, asked under the channel's lock; each refusal comes back as a value. What a player may open
(the daily's one counted attempt, an event's one entry a deal, a race's players) is decided by the
database: ``Turn.start`` raises ``DailyTaken``, ``EventTaken`` or ``EventOver``, and ``open_deal`` returns
them as values (``AttemptTaken``, ``EntryTaken``, ``EventClosed``) after removing what it made."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Protocol

from pyramide import Game

from .admission import Admission, Refused, Replacing
from .changes import Changes, GameChanged
from .manager import GameManager, Live
from .seats import is_seat
from .storage import ENDED, DailyAttempt, DailyTaken, EventOver, EventTaken, GameStatus

log = logging.getLogger(__name__)


class BoardPort(Protocol):
    """Where boards are shown (the Discord side, given by the caller)."""

    async def make_thread(self, owner_id: int) -> int | None:
        """A new thread for ``owner_id``'s game, by its channel id; ``None`` when none could be made."""
        ...

    async def post(self, dealt: Dealt) -> int:
        """Show the board of a game just dealt; its message id. Raises whatever the surface raised."""
        ...

    def may_have_shown(self, error: BaseException) -> bool:
        """Whether a post that failed with ``error`` may have reached the player after all (an answer
        lost on the way, not refused)."""
        ...

    async def remove_thread(self, channel_id: int) -> None:
        """Remove a thread ``make_thread`` made (best effort: a failure is the port's to log)."""
        ...


@dataclass(frozen=True)
class Deal:
    """What to open, for whom: ``daily`` (a day's key) or ``event`` (event, deal) make it a counted
    attempt, one a player (the database's rule)."""

    game: Game
    guild_id: int  # where its statistics go (a server, or the one key of every place outside servers)
    owner_id: int
    owner_name: str
    locale: str
    daily: str | None = None
    event: tuple[int, int] | None = None

    @property
    def attempt(self) -> bool:
        return self.daily is not None or self.event is not None


@dataclass(frozen=True, slots=True)
class Player:
    """Who opens a deal: ``guild_id`` is where its statistics go (a server, or the one key of every place
    outside servers); ``lang`` their language."""

    player_id: int
    name: str
    guild_id: int
    lang: str

    def deal(self, game: Game, *, daily: str | None = None, event: tuple[int, int] | None = None) -> Deal:
        return Deal(game, self.guild_id, self.player_id, self.name, self.lang, daily=daily, event=event)


@dataclass(frozen=True)
class Here:
    """Play in this channel."""

    channel_id: int


@dataclass(frozen=True)
class InThread:
    """Play in a thread made for the game: ``channel_id`` one made already (removed again if the game is
    not played in it after all), or ``None`` for one the port makes now."""

    channel_id: int | None = None


Where = Here | InThread


@dataclass(frozen=True)
class Dealt:
    """A game just started, for the face to show."""

    live: Live
    channel_id: int
    in_thread: bool
    broken: bool  # a stored game of this channel could not be replayed and was closed on the way in


@dataclass(frozen=True)
class Opened:
    dealt: Dealt
    message_id: int  # 0 for a seat's game (``seats``): its board is the page, no message


@dataclass(frozen=True)
class NoThread:
    """No thread could be made: nothing was dealt."""


@dataclass(frozen=True)
class Occupied:
    """A game plays where this one would go (and no player asked to replace it): nothing was dealt."""


@dataclass(frozen=True)
class NotPosted:
    """The board could not be shown (``error``). Unless ``kept`` the game (and its attempt) was taken back
    and a thread made for it removed; a ``kept`` attempt's board may have reached the player, so it stays
    (a press on that board plays it)."""

    dealt: Dealt
    error: BaseException
    kept: bool


@dataclass(frozen=True)
class AttemptTaken:
    """The player has a counted attempt at that day already (opened elsewhere at the same moment)."""

    attempt: DailyAttempt


@dataclass(frozen=True)
class EntryTaken:
    """The player has opened that deal of the event already: nothing was stored."""


@dataclass(frozen=True)
class EventClosed:
    """The event ended (or its deadline passed) before the deal could be opened: nothing was stored."""


Placed = Opened | NoThread | Occupied | NotPosted  # where a deal's board went, or why it went nowhere
# A deal of a counted attempt (the daily, an event's deal), or a race's.
Opening = Placed | AttemptTaken | EntryTaken | EventClosed
FreeOpening = Opened | NoThread | NotPosted | Refused  # a free deal, by the rules of ``admission``


async def open_deal(manager: GameManager, boards: BoardPort, deal: Deal, where: Where, *, changes: Changes) -> Opening:
    """Open ``deal`` ``where`` asked and show it through ``boards``; a place with a game in play is
    ``Occupied``. Any failure before the board is up takes back what was made (the game, its attempt, the
    thread), a take-back that fails itself being logged, and is raised on; a failed post is returned
    (``NotPosted``) for the caller to answer. Once the channel's lock is let go, ``changes`` are told of
    the new game, when it stays in play."""
    try:
        opening = await _open(manager, boards, deal, where, None, changes)
    except DailyTaken as taken:  # (the database's rule: what was made is taken back already)
        return AttemptTaken(taken.attempt)
    except EventTaken:
        return EntryTaken()
    except EventOver:
        return EventClosed()
    assert not isinstance(opening, Refused)  # (no rules asked: only a game in play refuses it)
    return opening


async def open_free_deal(
    admission: Admission,
    boards: BoardPort,
    deal: Deal,
    where: Where,
    replacing: Replacing,
    *,
    changes: Changes,
) -> FreeOpening:
    """Open a free deal as ``open_deal`` does, admitted by ``admission``'s rules under the channel's lock:
    a running game replaced by them (its end told to ``changes`` too), or the refusal returned."""
    opening = await _open(admission.manager, boards, deal, where, (admission, replacing), changes)
    assert not isinstance(opening, Occupied)  # (a running game is the rules' to answer)
    return opening


async def _open(
    manager: GameManager,
    boards: BoardPort,
    deal: Deal,
    where: Where,
    free: tuple[Admission, Replacing] | None,
    changes: Changes,
) -> Placed | Refused:
    made: int | None = None
    if isinstance(where, Here):
        channel_id = where.channel_id
    elif where.channel_id is not None:
        channel_id = made = where.channel_id
    else:
        made = await boards.make_thread(deal.owner_id)
        if made is None:
            return NoThread()
        channel_id = made
    live: Live | None = None
    replaced: Live | None = None
    try:
        async with manager.turn(channel_id) as turn:
            ending: GameStatus | Refused | Occupied = ENDED
            if free is not None:
                ending = await free[0].admit(turn.live, deal.game, free[1])
            elif turn.live is not None:
                ending = Occupied()
            if not isinstance(ending, str):
                await _remove(boards, made)
                return ending
            replaced = turn.live
            live = await turn.start(
                guild_id=deal.guild_id,
                owner_id=deal.owner_id,
                game=deal.game,
                daily=deal.daily,
                event=deal.event,
                locale=deal.locale,
                ending=ending,
            )
            await manager.storage.remember_name(deal.owner_id, deal.owner_name)
            dealt = Dealt(live, channel_id, in_thread=made is not None, broken=turn.broken is not None)
            opening: Opened | NotPosted
            try:
                # A seat's board is the page: nothing is posted in Discord, and the game has no message.
                message_id = 0 if is_seat(channel_id) else await boards.post(dealt)
            except Exception as error:
                kept = deal.attempt and boards.may_have_shown(error)
                if not kept:
                    turn.live = None
                    await take_back(manager, live)
                    await _remove(boards, made)
                opening = NotPosted(dealt, error, kept)
            else:
                if message_id:
                    await show_at(manager, live, message_id)
                opening = Opened(dealt, message_id)
    except Exception:
        # Nothing of a deal whose board is not up stays half-made (the player may open it again).
        if live is None or live.record.message_id is None:
            if live is not None:
                await take_back(manager, live)
            await _remove(boards, made)
        raise
    playing = isinstance(opening, Opened) or opening.kept
    await _tell(changes, deal.locale, replaced, live if playing else None)
    return opening


async def _tell(changes: Changes, lang: str, replaced: Live | None, dealt: Live | None) -> None:
    if replaced is not None:  # (its record closed by the turn that replaced it)
        await changes.publish(GameChanged.of(replaced.record, replaced.game.version, lang))
    if dealt is not None:
        await changes.publish(GameChanged.dealt_of(dealt.record, dealt.game.version, lang))


class SeatBoard:
    """``BoardPort`` of a seat (``seats``): never asked to post (a seat's board is the page), no thread."""

    async def make_thread(self, owner_id: int) -> int | None:
        return None

    async def post(self, dealt: Dealt) -> int:
        return 0

    def may_have_shown(self, error: BaseException) -> bool:
        return False

    async def remove_thread(self, channel_id: int) -> None:
        return None


@dataclass(frozen=True, slots=True)
class SeatDealt:
    """A seat's game after ``open_seats``: ``new`` when this call dealt it (else it was in play there)."""

    live: Live
    new: bool


async def open_seats(manager: GameManager, deals: list[tuple[Deal, int]], *, changes: Changes) -> list[SeatDealt]:
    """Each deal opened in its seat (``Here(seat)``, ``open_deal`` with a ``SeatBoard``), for a race of
    seats (a party's): the games, in the order of ``deals``. A seat that holds a game in play keeps it as
    that seat's game: a seat is named by its party, channel and player, so that game is this very deal,
    dealt by a try that stopped in the middle (a process killed or cancelled after some seats) or by
    another process dealing the same seats at this moment. Every try thus ends with the same games, one a
    seat, and none is left behind in play. A deal that failed is tried once more: of two processes
    dealing one seat at once, the database's one game in play a channel refuses the second, whose second
    try finds the first one's game. (A failed deal takes back what it made, as ``open_deal`` does; the
    seats dealt before it stay for the next try.) The caller takes back the ``new`` games of a race it
    then fails to store (a seat whose race game is over already is dealt anew by a stale try)."""
    games = []
    for deal, seat in deals:
        try:
            dealt = await _open_seat(manager, deal, seat, changes)
        except Exception:
            log.info("seat %s: dealing again (another process dealt it, or the database failed)", seat)
            dealt = await _open_seat(manager, deal, seat, changes)
        games.append(dealt)
    return games


async def _open_seat(manager: GameManager, deal: Deal, seat: int, changes: Changes) -> SeatDealt:
    opened = await open_deal(manager, SeatBoard(), deal, Here(seat), changes=changes)
    if isinstance(opened, Opened):
        return SeatDealt(opened.dealt.live, True)
    live = await manager.live(seat) if isinstance(opened, Occupied) else None
    if live is None or live.record.code != deal.game.code or live.record.owner_id != deal.owner_id:
        raise RuntimeError(f"seat {seat} could not be dealt {deal.game.code}: {opened}")
    return SeatDealt(live, False)


class RacePort(BoardPort, Protocol):
    """Where a race is shown: its players' boards, and its scoreboard."""

    async def post_scoreboard(self, race_id: int) -> int:
        """Show the race's scoreboard; its message id. Raises whatever the surface raised."""
        ...

    async def remove_message(self, message_id: int) -> None:
        """Remove a scoreboard of a race that could not start (best effort)."""
        ...


@dataclass(frozen=True)
class RaceOpened:
    race_id: int
    threads: list[int]  # the players' threads, in the order of their deals
    message_id: int  # the scoreboard's


async def open_race(
    manager: GameManager, boards: RacePort, deals: list[Deal], channel_id: int, *, changes: Changes
) -> RaceOpened | Opening:
    """A race: each deal (one a player, the same cards) opened in a thread of its own, then the race
    stored and its scoreboard shown. If any part cannot be made, nothing of the race stays: the games,
    threads, race and scoreboard made so far are taken back (each on its own, a failure logged), and the
    failure returned (a deal's) or raised on."""
    opened: list[Opened] = []
    race_id: int | None = None
    message_id: int | None = None
    storage = manager.storage
    try:
        for deal in deals:
            outcome = await open_deal(manager, boards, deal, InThread(), changes=changes)
            if not isinstance(outcome, Opened):
                await _take_back_race(manager, boards, opened, race_id, message_id)
                return outcome
            opened.append(outcome)
        players = [(o.dealt.live.record.owner_id, o.dealt.live.record.id) for o in opened]
        first = deals[0]
        race_id = await storage.create_race(first.guild_id, channel_id, first.game.code, manager.clock(), players)
        message_id = await boards.post_scoreboard(race_id)
        await storage.set_race_message(race_id, message_id)
    except Exception:
        await _take_back_race(manager, boards, opened, race_id, message_id)
        raise
    return RaceOpened(race_id, [o.dealt.channel_id for o in opened], message_id)


async def _take_back_race(
    manager: GameManager, boards: RacePort, opened: list[Opened], race_id: int | None, message_id: int | None
) -> None:
    for outcome in opened:
        await take_back(manager, outcome.dealt.live)
    if race_id is not None:
        try:
            await manager.storage.close_race(race_id, manager.clock())  # no players left: it never counts
        except Exception:  # the other parts are still removed, and this one is seen in the log
            log.exception("race %s not closed", race_id)
    for outcome in opened:
        await boards.remove_thread(outcome.dealt.channel_id)
    if message_id is not None:
        await boards.remove_message(message_id)


async def show_at(manager: GameManager, live: Live, message_id: int) -> None:
    """Make ``message_id`` the game's message: in memory for the presses to come, and stored."""
    live.record = replace(live.record, message_id=message_id)
    await manager.storage.set_message(live.record.id, message_id)


async def take_back(manager: GameManager, live: Live) -> bool:
    """Remove a new game nobody saw: its stored game (and daily attempt or event entry) and its engine.
    A take-back that fails is logged with its traceback (the failure that caused it is the caller's to
    raise); returns whether it was taken back."""
    manager.forget(live.record.channel_id)
    try:
        await manager.storage.discard_game(live.record.id)
    except Exception:
        if live.record.counted:
            log.exception("daily game %s: its counted attempt was left with no board", live.record.id)
        else:
            log.exception("game %s was not taken back: it stays with no board", live.record.id)
        return False
    return True


async def _remove(boards: BoardPort, thread_id: int | None) -> None:
    if thread_id is not None:
        await boards.remove_thread(thread_id)
