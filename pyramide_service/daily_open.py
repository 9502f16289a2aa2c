"""Today's daily opened for a player as one call, whatever face asks: ``TodaysDaily.open``.

The day (UTC), its key and its number, the player's attempt looked up, the day's deal worked out and dealt as
the player's one counted attempt (``opening.open_deal``): each is decided here, once. A face only says where
the board goes (``BoardPort``, ``Where``) and words the outcome it is handed:

    day = todays.today()                      # the day the words before the deal name (a thread's name)
    opened = await todays.open(day, boards, where, player)
    match opened:
        case AttemptTaken(attempt): ...       # played already, or in play elsewhere (``attempt.status``)
        case Opened() | NotPosted() | NoThread() | Occupied(): ...

The day is handed back in, so that the words shown and the deal dealt are of the same day at midnight."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from pyramide.daily import daily_number, day_key, today
from pyramide.game import Game

from .changes import Changes
from .dailies import DailyAttempts, DailyDeals
from .manager import GameManager
from .opening import AttemptTaken, BoardPort, EntryTaken, EventClosed, Placed, Player, Where, open_deal

# Where its board went (or ``Occupied``: a game plays in the place it was to be played in), or played already.
DailyOpening = Placed | AttemptTaken


@dataclass(frozen=True, slots=True)
class DailyDay:
    """A day of the daily challenge: its date (UTC, ``day``), its stored key and its number for players (#1 on
    2026-01-01)."""

    day: date
    key: str
    number: int

    @classmethod
    def of(cls, day: date) -> DailyDay:
        return cls(day, day_key(day), daily_number(day))


class TodaysDaily:
    """Today's daily for any face: over the manager, the day's deals, the attempts and the one subscription."""

    def __init__(
        self,
        manager: GameManager,
        deals: DailyDeals,
        attempts: DailyAttempts,
        changes: Changes,
        clock: Callable[[], float],
    ) -> None:
        self.manager = manager
        self.deals = deals
        self.attempts = attempts
        self.changes = changes
        self.clock = clock

    def today(self) -> DailyDay:
        return DailyDay.of(today(datetime.fromtimestamp(self.clock(), UTC)))

    async def open(self, day: DailyDay, boards: BoardPort, where: Where, player: Player) -> DailyOpening:
        """Deal ``day``'s deal to ``player`` as their counted attempt and show it through ``boards``
        ``where`` asked; ``AttemptTaken`` (nothing dealt) when they have an attempt at that day already,
        finished or in play, found first or by the database's rule at the same moment elsewhere."""
        attempt = await self.attempts.attempt(day.key, player.player_id)
        if attempt is not None:
            return AttemptTaken(attempt)
        deal = player.deal(Game.from_code(await self.deals.code(day.day)), daily=day.key)
        opened = await open_deal(self.manager, boards, deal, where, changes=self.changes)
        assert not isinstance(opened, EntryTaken | EventClosed)  # (an event's refusals: no event here)
        return opened
