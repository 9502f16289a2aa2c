"""Server events: their queries and operations, written once for both backends (``?`` placeholders,
``units``). What protects each rule under READ COMMITTED:

- at most three running events a server: a slot (1-3) each, unique among the running events (the partial
  index ``events_running_slot``); two starts taking the last slot at once: one insert is skipped;
- one counted attempt a player and a deal: the key of ``event_entries`` (opened with the game, in the
  game's transaction, ``queries.create_game``);
- an entry opened or closed before the end, or not at all: both lock the event's row first (an UPDATE of
  its ``version`` while it runs), as the end does;
- the end decided once: ``UPDATE ... SET ended_at WHERE ended_at IS NULL``, one row changed for one
  caller; the results posted once: the same on ``announced_at``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyramide.achievements import EVENT_PODIUM, EVENT_WON

from ..stored import (
    EventEntry,
    EventNotStarted,
    EventOver,
    EventRecord,
    EventStanding,
    EventStart,
    EventStartUnknown,
    EventStats,
    EventTaken,
    GameRecord,
    StorageOutcomeUnknown,
)
from .achievements import award
from .settling import RESOLVE_SECONDS, look_up
from .units import Backend, Tx, read, write

PODIUM = 3  # the places an event's podium holds (pyramide_service.events.PODIUM)

# An event's deal is opened, and its result counted, only while the event runs. Both lock the event's row
# first (an UPDATE), as its end does: under READ COMMITTED an entry is then opened or closed either wholly
# before the end (and in its standings) or not at all.
TOUCH_RUNNING_EVENT = "UPDATE events SET version = version + 1 WHERE id = ? AND ended_at IS NULL AND ends_at > ?"
OPEN_ENTRY = (
    "INSERT INTO event_entries (event_id, position, player_id, game_id, opened_at) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT DO NOTHING"
)
CLOSE_ENTRY = (
    "UPDATE event_entries SET status = ?, removed = ?, score = ?, seconds = ?, hints = ?, finished_at = ?"
    " WHERE game_id = ? AND status IS NULL"
)
# The player's entries go with their games (a foreign key); their running events' standings change. The
# events are read first and touched after the games are deleted: game rows, then event rows, the order
# ``finish_game`` takes them in (two transactions taking them in opposite orders could deadlock).
RUNNING_EVENTS_OF_PLAYER = (
    "SELECT DISTINCT e.id FROM events AS e JOIN event_entries AS x ON x.event_id = e.id"
    " WHERE x.player_id = ? AND e.ended_at IS NULL ORDER BY e.id"
)
EVENT_CHANGED = "UPDATE events SET version = version + 1 WHERE id = ? AND ended_at IS NULL"
_EVENT = (
    "SELECT id, guild_id, channel_id, message_id, name, rules, difficulty, created_by, created_at, ends_at,"
    " version, ended_at, cancelled, announced_at, results_id, locale FROM events"
)
EVENT = f"{_EVENT} WHERE id = ?"
EVENTS_OF_GUILD = f"{_EVENT} WHERE guild_id = ? ORDER BY ended_at IS NOT NULL, created_at DESC, id DESC LIMIT ?"
RUNNING = f"{_EVENT} WHERE ended_at IS NULL"
DEAL_CODES = "SELECT code FROM event_deals WHERE event_id = ? ORDER BY position"
FREE_SLOT = (
    "SELECT MIN(s.slot) FROM (SELECT 1 AS slot UNION ALL SELECT 2 UNION ALL SELECT 3) AS s"
    " WHERE s.slot NOT IN (SELECT slot FROM events WHERE guild_id = ? AND ended_at IS NULL)"
)
INSERT_EVENT = (
    "INSERT INTO events (guild_id, channel_id, slot, name, rules, difficulty, deals, created_by, created_at,"
    " ends_at, locale) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id"
)
# An event's key: its server, its starter and the moment of the start (how a start whose write had an
# unknown outcome is looked up).
STARTED_EVENT = "SELECT MIN(id) FROM events WHERE guild_id = ? AND created_by = ? AND created_at = ?"
# An event's key: its server, its starter and the moment of the start (how a start whose write had an
# unknown outcome is looked up).
STARTED_EVENT = "SELECT MIN(id) FROM events WHERE guild_id = ? AND created_by = ? AND created_at = ?"
INSERT_DEAL = "INSERT INTO event_deals (event_id, position, code, deal) VALUES (?, ?, ?, ?)"
SET_MESSAGE = "UPDATE events SET message_id = ? WHERE id = ?"
SET_RESULTS = "UPDATE events SET results_id = ? WHERE id = ?"
# A deal of a running event, under any rules (``deal``: the code's cards, see pyramide_service.events.deal_key).
RUNNING_DEAL = (
    "SELECT 1 FROM event_deals AS d JOIN events AS e ON e.id = d.event_id WHERE d.deal = ? AND e.ended_at IS NULL"
)
ENTRIES = (
    "SELECT event_id, position, player_id, game_id, opened_at, status, removed, score, seconds, hints"
    " FROM event_entries WHERE event_id = ? AND player_id = ? ORDER BY position"
)
_TOTALS = (
    "SELECT event_id, player_id, COUNT(*) AS played, SUM(removed) AS removed, SUM(score) AS score,"
    " SUM(COALESCE(seconds, 0)) AS seconds, SUM(hints) AS hints, COUNT(*) FILTER (WHERE status = 'won') AS cleared"
    " FROM event_entries WHERE status IS NOT NULL"
)
# The order of the standings (docs/events.md): cards removed, then score, then fewer seconds, summed over the
# deals played.
ORDER = "removed DESC, score DESC, seconds, t.player_id"
STANDINGS = (
    "SELECT t.player_id, played, removed, score, seconds, hints, cleared, p.name"
    f" FROM ({_TOTALS} AND event_id = ? GROUP BY event_id, player_id) AS t"
    f" LEFT JOIN players AS p ON p.player_id = t.player_id ORDER BY {ORDER}"
)
CLAIM_END = "UPDATE events SET ended_at = ?, cancelled = ?, version = version + 1 WHERE id = ? AND ended_at IS NULL"
DISCARD_ENTRIES = "DELETE FROM event_entries WHERE event_id = ?"
# Deals still in play at the end count as they stand (their cards removed and score), timed to the end.
FREEZE_ENTRIES = (
    "UPDATE event_entries SET status = 'unfinished',"
    " removed = COALESCE((SELECT g.removed FROM games AS g WHERE g.id = event_entries.game_id), 0),"
    " score = COALESCE((SELECT g.score FROM games AS g WHERE g.id = event_entries.game_id), 0),"
    " hints = COALESCE((SELECT g.hints FROM games AS g WHERE g.id = event_entries.game_id), 0),"
    " seconds = ? - opened_at, finished_at = ? WHERE event_id = ? AND status IS NULL"
)
CLAIM_ANNOUNCEMENT = "UPDATE events SET announced_at = ? WHERE id = ? AND ended_at IS NOT NULL AND announced_at IS NULL"
# A claim given back when the results' post was lost on the way (a 5xx, a timeout): the next check claims again.
RELEASE_ANNOUNCEMENT = "UPDATE events SET announced_at = NULL WHERE id = ? AND results_id IS NULL"
# Events whose results wait to be decided (the deadline passed) or posted (decided, not announced yet).
DUE = "SELECT id, guild_id FROM events WHERE announced_at IS NULL AND (ended_at IS NOT NULL OR ends_at <= ?)"
PLAYER_STATS = (
    "SELECT COUNT(*), COUNT(*) FILTER (WHERE place <= 3), COUNT(*) FILTER (WHERE place = 1) FROM ("
    f"SELECT t.event_id, t.player_id, ROW_NUMBER() OVER (PARTITION BY t.event_id ORDER BY {ORDER}) AS place"
    f" FROM ({_TOTALS} AND event_id IN (SELECT id FROM events WHERE guild_id = ? AND ended_at IS NOT NULL"
    " AND NOT cancelled) GROUP BY event_id, player_id) AS t) AS ranked WHERE player_id = ?"
)


async def open_entry(db: Tx, record: GameRecord, game_id: int) -> None:
    """In the transaction that stores the game: its player's one entry at that deal, while the event runs."""
    if record.event_id is None:
        return
    if not await db.changed(TOUCH_RUNNING_EVENT, record.event_id, record.created_at):
        raise EventOver()
    entry = (record.event_id, record.event_deal, record.owner_id, game_id, record.created_at)
    if not await db.changed(OPEN_ENTRY, *entry):
        raise EventTaken()


async def close_entry(db: Tx, record: GameRecord) -> None:
    """In the transaction that closes the game: its entry's result, if finished before the deadline."""
    if record.event_id is None:
        return
    if await db.changed(TOUCH_RUNNING_EVENT, record.event_id, record.finished_at or 0.0):
        values = (record.status, record.removed, record.score, record.seconds, record.hints, record.finished_at)
        await db.execute(CLOSE_ENTRY, *values, record.id)


def _event(found: Sequence[Any], codes: tuple[str, ...]) -> EventRecord:
    return EventRecord(
        id=int(found[0]),
        guild_id=int(found[1]),
        channel_id=int(found[2]),
        message_id=int(found[3]) if found[3] is not None else None,
        name=str(found[4]),
        rules=str(found[5]),
        difficulty=found[6],
        codes=codes,
        created_by=int(found[7]),
        created_at=float(found[8]),
        ends_at=float(found[9]),
        version=int(found[10]),
        ended_at=float(found[11]) if found[11] is not None else None,
        cancelled=bool(found[12]),
        announced_at=float(found[13]) if found[13] is not None else None,
        results_id=int(found[14]) if found[14] is not None else None,
        locale=found[15],
    )


def _standing(found: Sequence[Any]) -> EventStanding:
    return EventStanding(
        player_id=int(found[0]),
        played=int(found[1]),
        removed=int(found[2] or 0),
        score=int(found[3] or 0),
        seconds=float(found[4] or 0.0),
        hints=int(found[5] or 0),
        cleared=int(found[6] or 0),
        name=found[7],
    )


async def _load_events(db: Tx, found: Sequence[Sequence[Any]]) -> list[EventRecord]:
    events = []
    for event in found:
        codes = tuple(str(r[0]) for r in await db.rows(DEAL_CODES, int(event[0])))
        events.append(_event(event, codes))
    return events


def _entry(found: Sequence[Any]) -> EventEntry:
    return EventEntry(
        int(found[0]),
        int(found[1]),
        int(found[2]),
        int(found[3]),
        float(found[4]),
        found[5],
        int(found[6]),
        int(found[7]),
        float(found[8]) if found[8] is not None else None,
        int(found[9]),
    )


class EventQueries(Backend):
    """The events' part of ``Storage``."""

    async def settle(self, unknown: StorageOutcomeUnknown) -> None:
        raise NotImplementedError

    async def create_event(self, start: EventStart, resolve_seconds: float = RESOLVE_SECONDS) -> int | None:
        """A new event (its deals as (code, deal key)); ``None`` when the server runs three already.

        A start whose write had an unknown outcome is settled and looked up by its key (server, starter,
        ``at``), as a move is: found, it is returned (and announced by the caller, so no running event is
        left without its announcement); absent, ``EventNotStarted``; with the database still silent after
        ``resolve_seconds``, ``EventStartUnknown``."""
        try:
            return await self._start_event(start)
        except StorageOutcomeUnknown as unknown:
            try:
                found = await look_up(self, unknown, lambda: self._started_event(start), resolve_seconds)
            except StorageOutcomeUnknown:
                raise EventStartUnknown(str(unknown), unknown.session, cut=unknown.cut) from unknown
            if found is None:
                missing = f"event {start.name!r} of server {start.guild_id} was not stored (looked up)"
                raise EventNotStarted(missing) from unknown
            return found

    @read()
    async def _started_event(self, db: Tx, start: EventStart) -> int | None:
        found = await db.value(STARTED_EVENT, start.guild_id, start.created_by, start.at)
        return int(found) if found is not None else None

    @write(several=True, retry=False)  # a retry could make it twice
    async def _start_event(self, db: Tx, start: EventStart) -> int | None:
        """A new running event with its deals (code, deal key), in a free slot of its server (``None``: three
        run already). A start racing another for the last slot finds it taken and looks again (READ
        COMMITTED: the next statement sees the other's committed row)."""
        for _ in range(3):
            slot = await db.value(FREE_SLOT, start.guild_id)
            if slot is None:
                return None
            event_id = await db.value(
                INSERT_EVENT,
                start.guild_id,
                start.channel_id,
                int(slot),
                start.name,
                start.rules,
                start.difficulty,
                len(start.deals),
                start.created_by,
                start.at,
                start.ends_at,
                start.locale,
            )
            if event_id is not None:
                deals = [(int(event_id), i, code, deal) for i, (code, deal) in enumerate(start.deals)]
                await db.many(INSERT_DEAL, deals)
                return int(event_id)
        return None

    @read(several=True)
    async def event(self, db: Tx, event_id: int) -> EventRecord | None:
        found = await db.row(EVENT, event_id)
        if found is None:
            return None
        return _event(found, tuple(str(r[0]) for r in await db.rows(DEAL_CODES, event_id)))

    @read(several=True)
    async def events_of_guild(self, db: Tx, guild_id: int, limit: int = 10) -> list[EventRecord]:
        """A server's running events, then its past ones, newest first."""
        return await _load_events(db, await db.rows(EVENTS_OF_GUILD, guild_id, limit))

    @read(several=True)
    async def running_events(self, db: Tx) -> list[EventRecord]:
        return await _load_events(db, await db.rows(RUNNING))

    @write()
    async def set_event_message(self, db: Tx, event_id: int, message_id: int) -> None:
        await db.execute(SET_MESSAGE, message_id, event_id)

    @write()
    async def set_event_results(self, db: Tx, event_id: int, message_id: int) -> None:
        await db.execute(SET_RESULTS, message_id, event_id)

    @read()
    async def is_running_deal(self, db: Tx, deal: str) -> bool:
        """Whether ``deal`` (a deal key) is a deal of a running event, anywhere."""
        return await db.value(RUNNING_DEAL, deal) is not None

    @read()
    async def event_entries(self, db: Tx, event_id: int, player_id: int) -> list[EventEntry]:
        return [_entry(r) for r in await db.rows(ENTRIES, event_id, player_id)]

    @read()
    async def event_standings(self, db: Tx, event_id: int) -> list[EventStanding]:
        """The players by their totals over the deals they finished (docs/events.md), best first."""
        return [_standing(r) for r in await db.rows(STANDINGS, event_id)]

    @write(several=True)
    async def end_event(
        self, db: Tx, event_id: int, at: float, *, cancelled: bool = False
    ) -> list[EventStanding] | None:
        """End (or cancel) an event, decided once by the database: the final standings (deals in play
        counted as they stand), or, cancelled, no standings at all, for the caller that ended it; ``None``
        for any other (another process, a second press, the loop a moment later)."""
        if not await db.changed(CLAIM_END, at, cancelled, event_id):
            return None
        if cancelled:
            await db.execute(DISCARD_ENTRIES, event_id)
            return []
        await db.execute(FREEZE_ENTRIES, at, at, event_id)
        standings = [_standing(r) for r in await db.rows(STANDINGS, event_id)]
        # The achievements the final standings unlock, in the transaction that decides them (once: only the
        # caller that ended the event gets here).
        for place, standing in enumerate(standings[:PODIUM], start=1):
            await award(db, standing.player_id, EVENT_PODIUM, at, None)
            if place == 1:
                await award(db, standing.player_id, EVENT_WON, at, None)
        return standings

    @write()
    async def claim_announcement(self, db: Tx, event_id: int, at: float) -> bool:
        """Whether this caller posts the ended event's results (``True`` once, for one caller)."""
        return bool(await db.changed(CLAIM_ANNOUNCEMENT, at, event_id))

    @write()
    async def release_announcement(self, db: Tx, event_id: int) -> None:
        """Give back a claim whose results' post was lost (not refused): a later check claims and posts."""
        await db.execute(RELEASE_ANNOUNCEMENT, event_id)

    @read()
    async def due_events(self, db: Tx, now: float) -> list[tuple[int, int]]:
        """(event, server) of the events past their deadline or ended, whose results were not posted."""
        return [(int(r[0]), int(r[1])) for r in await db.rows(DUE, now)]

    @read()
    async def event_stats(self, db: Tx, guild_id: int, player_id: int) -> EventStats:
        """A player's ended events on a server: played, on the podium, won."""
        found = await db.row(PLAYER_STATS, guild_id, player_id)
        played, podiums, wins = found if found else (0, 0, 0)
        return EventStats(int(played or 0), int(podiums or 0), int(wins or 0))
