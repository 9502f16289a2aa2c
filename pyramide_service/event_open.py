"""A player's next deal of a server event opened as one call, whatever face asks: ``EventDeals.open_next``.

Whether the event is over, whether a deal of it waits for the player (opened, not finished), which deal is
next (the first one not played), and the deal dealt as the player's one counted attempt at it
(``opening.open_deal``): each is decided here, once. A face says where the board goes (``where``, and
``boards_for``: its ``BoardPort`` for the deal chosen, by its position) and words the outcome:

    match await event_deals.open_next(event, player, boards_for, where):
        case EventClosed(): ...                     # over (before the deal, or at the moment it was opened)
        case DealWaiting(entry, channel_id): ...    # a deal of it still in play, there
        case AllPlayed(): ...                       # every deal played
        case TakenMeanwhile(position): ...          # opened elsewhere at the same moment
        case NextDealt(position, placed): ...       # where its board went (``opening.Placed``)"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyramide.game import Game

from .changes import Changes
from .events import Events
from .manager import GameManager
from .opening import AttemptTaken, BoardPort, EntryTaken, EventClosed, Placed, Player, Where, open_deal
from .stored import EventEntry, EventRecord


@dataclass(frozen=True, slots=True)
class DealWaiting:
    """A deal of the event the player opened and has not finished: nothing dealt (``channel_id``: where it
    is played, when its game is still known)."""

    entry: EventEntry
    channel_id: int | None


@dataclass(frozen=True, slots=True)
class AllPlayed:
    """The player has played every deal of the event."""


@dataclass(frozen=True, slots=True)
class TakenMeanwhile:
    """The player opened that deal (``position``) elsewhere at the same moment: nothing dealt here."""

    position: int


@dataclass(frozen=True, slots=True)
class NextDealt:
    """The player's next deal (``position``, from 0), and where its board went."""

    position: int
    placed: Placed


EventOpening = EventClosed | DealWaiting | AllPlayed | TakenMeanwhile | NextDealt


class EventDeals:
    """The events' deals for any face: over the manager, the events, the one subscription and the clock."""

    def __init__(self, manager: GameManager, events: Events, changes: Changes, clock: Callable[[], float]) -> None:
        self.manager = manager
        self.events = events
        self.changes = changes
        self.clock = clock

    async def open_next(
        self, event: EventRecord, player: Player, boards_for: Callable[[int], BoardPort], where: Where
    ) -> EventOpening:
        """Deal ``player`` their next deal of ``event`` ``where`` asked, shown through ``boards_for(position)``,
        or say why none was dealt."""
        if not event.running or event.ends_at <= self.clock():
            return EventClosed()
        entries = await self.events.event_entries(event.id, player.player_id)
        waiting = next((entry for entry in entries if entry.status is None), None)
        if waiting is not None:
            record = await self.manager.record(waiting.game_id)
            return DealWaiting(waiting, record.channel_id if record is not None else None)
        played = {entry.position for entry in entries}
        position = next((i for i in range(len(event.codes)) if i not in played), None)
        if position is None:
            return AllPlayed()
        deal = player.deal(Game.from_code(event.codes[position]), event=(event.id, position))
        opened = await open_deal(self.manager, boards_for(position), deal, where, changes=self.changes)
        if isinstance(opened, EntryTaken):
            return TakenMeanwhile(position)
        if isinstance(opened, EventClosed):
            return opened
        assert not isinstance(opened, AttemptTaken)  # (the daily's refusal: no daily here)
        return NextDealt(position, opened)
