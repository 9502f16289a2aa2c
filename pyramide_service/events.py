"""Server events as the engine sees them: their limits, a deal's key under any rules, and the scoring
(docs/events.md). No Discord here; the cogs put these figures into words.

Scoring: a deal's result is its cards removed, then its score, then its time (fewer seconds first). The
standings add the deals each player played: most cards removed, then the highest score, then the fewest
seconds. Hints are allowed; they are counted and shown, and do not change a rank.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from pyramide.codes import deal_code
from pyramide.game import Game
from pyramide.limits import DEALS, EVENT_NAME, HOURS
from pyramide.rules import Rules

from .changes import Changes, EventFinal
from .storage import Storage
from .stored import EventEntry, EventRecord, EventStanding, EventStart

MIN_DEALS, MAX_DEALS, DEFAULT_DEALS = DEALS.low, DEALS.high, 5
MIN_HOURS, MAX_HOURS, DEFAULT_HOURS = HOURS.low, HOURS.high, 7 * 24
MAX_RUNNING = 3  # running events a server (the database's slots, pyramide_service/storage/schema.py)
MAX_NAME = EVENT_NAME.high  # characters of an event's name (it goes into titles, thread names and a picture)
PODIUM = 3


def deal_key(game: Game) -> str:
    """The deal's cards as text, the same under every rule set and whether its code is numbered or laid out
    (so a running event's deal cannot be opened under other rules or in another notation)."""
    deal = dataclasses.replace(game.deal, number=None)
    return deal_code(deal, Rules()).rsplit("-", 1)[1]


def parse_duration(text: str) -> float | None:
    """Hours from ``"36h"``, ``"3d"``, ``"2d12h"`` or a plain number of hours; ``None`` when unreadable or
    outside 1 hour to 14 days."""
    cleaned = text.strip().lower().replace(" ", "")
    if not cleaned:
        return None
    hours = 0.0
    number = ""
    try:
        for char in cleaned:
            if char.isdigit() or char == ".":
                number += char
            elif char in "dh" and number:
                hours += float(number) * (24 if char == "d" else 1)
                number = ""
            else:
                return None
        if number:
            hours += float(number)
    except ValueError:
        return None
    return hours if MIN_HOURS <= hours <= MAX_HOURS else None


def ranked(standings: Sequence[EventStanding]) -> list[tuple[int, EventStanding]]:
    """The standings with their ranks (1 is first), in the order the database ranked them."""
    return [(rank, standing) for rank, standing in enumerate(standings, start=1)]


def rank_of(standings: Sequence[EventStanding], player_id: int) -> int | None:
    """``player_id``'s rank in the standings; ``None`` when they have none."""
    return next((rank for rank, s in ranked(standings) if s.player_id == player_id), None)


class Entries(Protocol):
    """Where a player's entries of an event are read from (``Events``, or anything that reads them alike)."""

    async def event_entries(self, event_id: int, player_id: int) -> list[EventEntry]: ...


class Events:
    """The events for the Discord layer, by ids and values, over ``storage``: their reads, their start and
    end, and the posting of their announcement and results (each decided by the database)."""

    def __init__(self, storage: Storage, changes: Changes) -> None:
        self.storage = storage
        self.changes = changes

    async def event(self, event_id: int) -> EventRecord | None:
        return await self.storage.event(event_id)

    async def standings(self, event_id: int) -> list[EventStanding]:
        """The standings as they are now (final once the event ended), in the database's order."""
        return await self.storage.event_standings(event_id)

    async def event_entries(self, event_id: int, player_id: int) -> list[EventEntry]:
        return await self.storage.event_entries(event_id, player_id)

    async def is_running_deal(self, game: Game) -> bool:
        """Whether ``game``'s deal, under any rules, is one of a running event's."""
        return await self.storage.is_running_deal(deal_key(game))

    async def of_server(self, guild_id: int, limit: int = 10) -> list[EventRecord]:
        """A server's running events, then its past ones, newest first."""
        return await self.storage.events_of_guild(guild_id, limit)

    async def running_in(self, guild_id: int) -> list[EventRecord]:
        """A server's running events, newest first."""
        return [e for e in await self.storage.events_of_guild(guild_id, MAX_RUNNING * 2) if e.running]

    async def running(self) -> list[EventRecord]:
        """Every server's running events."""
        return await self.storage.running_events()

    async def due(self, now: float) -> list[tuple[int, int]]:
        """(event, server) of the events past their deadline or ended and not announced yet."""
        return await self.storage.due_events(now)

    async def start(self, start: EventStart) -> EventRecord | None:
        """The event started; ``None`` when its server runs ``MAX_RUNNING`` already (decided by the database,
        whatever was read before). A start of unknown outcome raises ``EventNotStarted`` or
        ``EventStartUnknown`` (``storage.create_event``)."""
        event_id = await self.storage.create_event(start)
        return await self.storage.event(event_id) if event_id is not None else None

    async def announced(self, event_id: int, message_id: int) -> None:
        """The event's announcement was posted as ``message_id``."""
        await self.storage.set_event_message(event_id, message_id)

    async def end(self, event_id: int, at: float, *, cancelled: bool = False) -> list[EventStanding] | None:
        """End a running event as of ``at``: its final standings, or ``None`` when it was over already."""
        return await self.storage.end_event(event_id, at, cancelled=cancelled)

    async def claim_results(self, event_id: int, at: float) -> bool:
        """Whether this caller posts an ended event's results (one caller, once, until released): its
        announcement is then final (``EventFinal`` is told)."""
        claimed = await self.storage.claim_announcement(event_id, at)
        if claimed:
            await self.changes.publish(EventFinal(event_id))
        return claimed

    async def release_results(self, event_id: int) -> None:
        """The results could not be posted: the next check claims them again."""
        await self.storage.release_announcement(event_id)

    async def results_posted(self, event_id: int, message_id: int) -> None:
        await self.storage.set_event_results(event_id, message_id)
