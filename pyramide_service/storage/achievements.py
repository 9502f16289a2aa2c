"""The achievements' queries and units (one set for both backends, as ``queries``): a player's progress
row (``achievement_progress``: the fold of ``pyramide.achievements`` over their finished games, and how far
their history is credited) and their unlocked achievements (``achievements``, unique per player and key).

Who announces an achievement is decided by ``INSERT ... ON CONFLICT DO NOTHING RETURNING``: the one unit
whose insert returns the key. The unlock of a finished game runs inside ``finish_game`` (the transaction
that closes the game), so a press delivered to two processes, a restart or a shard move announce it once.

A history that predates the feature is credited by ``credit_history``, a chunk of games at a time, each
chunk one short transaction (``pyramide.credits`` runs the chunks in the background). The progress row
is the lock between a chunk and a finishing game (an ``UPDATE`` of it locks it on PostgreSQL; SQLite
writes one unit at a time): a game the chunks have passed (its id at most ``credited_to``: it was in play
when they read past it), or any game once the history is ``complete``, is credited by its own finish;
another is left to the chunks, which read it once it is finished.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pyramide.achievements import GameFacts, Progress, credit

from ..stored import GameRecord
from .codec import unpack_log
from .units import Backend, Tx, read, write

# The deal's difficulty of a counted daily (its day), when known; passed in by the caller (the storage
# does not know the daily's schedule).
TierOf = Callable[[str], str | None]
CHUNK = 500  # games credited in one transaction of a history

LOCK_PROGRESS = (
    "UPDATE achievement_progress SET credited_to = credited_to WHERE player_id = ?"
    " RETURNING credited_to, complete, state"
)
START_PROGRESS = (
    "INSERT INTO achievement_progress (player_id, credited_to, complete, state) VALUES (?, ?, ?, ?)"
    " ON CONFLICT DO NOTHING RETURNING player_id"
)
START_PLAYERS_PROGRESS = (
    "INSERT INTO achievement_progress (player_id, credited_to, complete, state) SELECT ?, 0, FALSE, ''"
    " WHERE EXISTS (SELECT 1 FROM games WHERE owner_id = ? AND status != 'playing') ON CONFLICT DO NOTHING"
)
SAVE_PROGRESS = "UPDATE achievement_progress SET credited_to = ?, complete = ?, state = ? WHERE player_id = ?"
PROGRESS_COMPLETE = "SELECT complete FROM achievement_progress WHERE player_id = ?"
UNLOCK = (
    "INSERT INTO achievements (player_id, key, unlocked_at, game_id) VALUES (?, ?, ?, ?)"
    " ON CONFLICT DO NOTHING RETURNING key"
)
OTHER_FINISHED = "SELECT id FROM games WHERE owner_id = ? AND status != 'playing' AND id <> ? LIMIT 1"
RACE_WON = (
    "SELECT p.game_id FROM race_players AS p JOIN races AS r ON r.id = p.race_id"
    " WHERE p.game_id = ? AND r.winner_id = p.player_id"
)
HISTORY = (
    "SELECT g.id, g.status, g.rules, g.seconds, g.hints, g.daily, g.counted, g.log, g.finished_at,"
    " EXISTS (SELECT 1 FROM race_players AS p JOIN races AS r ON r.id = p.race_id"
    " WHERE p.game_id = g.id AND r.winner_id = g.owner_id)"
    " FROM games AS g WHERE g.owner_id = ? AND g.status != 'playing' AND g.id > ? ORDER BY g.id LIMIT ?"
)
UNLOCKED = "SELECT key, unlocked_at, game_id FROM achievements WHERE player_id = ? ORDER BY unlocked_at, key"
# Rarity: the share of a server's players (who finished a game there) who have each achievement...
SERVER_PLAYERS = "SELECT COUNT(DISTINCT owner_id) FROM games WHERE guild_id = ? AND status != 'playing'"
SERVER_HOLDERS = (
    "SELECT key, COUNT(*) FROM achievements WHERE player_id IN"
    " (SELECT owner_id FROM games WHERE guild_id = ? AND status != 'playing') GROUP BY key"
)
# ...and outside servers, of every player the achievements know (a progress row: whoever finished a game
# since the upgrade, or had their history credited), read from one small table rather than every game.
ALL_PLAYERS = "SELECT COUNT(*) FROM achievement_progress"
ALL_HOLDERS = "SELECT key, COUNT(*) FROM achievements GROUP BY key"
FORGET = ("DELETE FROM achievements WHERE player_id = ?", "DELETE FROM achievement_progress WHERE player_id = ?")


@dataclass(frozen=True, slots=True)
class Unlocked:
    key: str
    unlocked_at: float
    game_id: int | None


@dataclass(frozen=True, slots=True)
class Rarity:
    players: int
    holders: dict[str, int]

    def share(self, key: str) -> float:
        """The share (0-1) of the players who have ``key``."""
        return min(1.0, self.holders.get(key, 0) / self.players) if self.players else 0.0


def _facts_of_record(record: GameRecord, tier: str | None, race_won: bool) -> GameFacts:
    return GameFacts(
        game_id=record.id,
        status=record.status,
        rules=record.rules,
        seconds=record.seconds,
        hints=record.hints,
        undone="undo" in record.actions,
        daily=record.daily if record.counted else None,
        finished_at=float(record.finished_at or 0.0),
        race_won=race_won,
        tier=tier,
    )


def _facts_of_row(found: Sequence[Any], tier_of: TierOf) -> GameFacts:
    game_id, status, rules, seconds, hints, day, counted, log, finished_at, race_won = found
    try:
        undone = log is None or "undo" in unpack_log(bytes(log))  # an unreadable log is not a win without undo
    except (ValueError, KeyError):
        undone = True
    daily = str(day) if day is not None and counted else None
    return GameFacts(
        game_id=int(game_id),
        status=str(status),
        rules=str(rules),
        seconds=float(seconds) if seconds is not None else None,
        hints=int(hints or 0),
        undone=undone,
        daily=daily,
        finished_at=float(finished_at or 0.0),
        race_won=bool(race_won),
        tier=tier_of(daily) if daily is not None else None,
    )


async def _unlock(db: Tx, player_id: int, keys: list[str], facts: GameFacts) -> list[str]:
    """Insert the keys; those whose insert returned are this unit's to announce."""
    new = []
    for key in keys:
        if await db.value(UNLOCK, player_id, key, facts.finished_at, facts.game_id) is not None:
            new.append(key)
    return new


async def credit_finished(db: Tx, record: GameRecord, tier: str | None) -> tuple[str, ...] | None:
    """A part of ``finish_game``: credit the game just closed (``tier``: its deal's difficulty, when known)
    to its player, returning the achievements it unlocked (announced by the caller), or ``None`` when the
    player's earlier history is still to be credited (``credit_history`` will count this game too)."""
    player = record.owner_id
    found = await db.row(LOCK_PROGRESS, player)
    if found is None:
        # A first finish: a player without history starts complete; one with a history from before the
        # achievements starts at nothing, credited in the background (this game with it). Either insert
        # may meet a row another transaction made meanwhile: then that row decides.
        fresh = await db.value(OTHER_FINISHED, player, record.id) is None
        started = await db.value(START_PROGRESS, player, 0, fresh, "")
        if started is None:
            found = await db.row(LOCK_PROGRESS, player)
        elif fresh:
            found = (0, True, "")
        else:
            return None
    assert found is not None
    credited_to, complete, state = int(found[0]), bool(found[1]), str(found[2])
    if not complete and record.id > credited_to:
        return None  # the history's chunks have not read this far: they will credit it
    race_won = await db.value(RACE_WON, record.id) is not None
    facts = _facts_of_record(record, tier, race_won)
    progress = Progress.from_json(state)
    keys = credit(progress, facts)
    await db.execute(SAVE_PROGRESS, max(credited_to, record.id), complete, progress.to_json(), player)
    return tuple(await _unlock(db, player, keys, facts))


async def award(db: Tx, player_id: int, key: str, at: float, game_id: int | None) -> bool:
    """An achievement awarded by the unit that decides it (a perfect loss, an event's podium): whether
    this unit unlocked it (and so announces it). A part of other units too (an event's end)."""
    found = await db.value(UNLOCK, player_id, key, at, game_id)
    if found is not None:
        progress = await db.row(LOCK_PROGRESS, player_id)
        if progress is not None:  # keep the fold's set in step with the table
            state = Progress.from_json(str(progress[2]))
            state.unlocked.add(key)
            await db.execute(SAVE_PROGRESS, int(progress[0]), bool(progress[1]), state.to_json(), player_id)
    return found is not None


async def forget(db: Tx, player_id: int) -> None:
    for statement in FORGET:
        await db.execute(statement, player_id)


class AchievementStorage(Backend):
    """The achievements' part of ``Storage``."""

    @write(several=True)
    async def credit_history(self, db: Tx, player_id: int, tier_of: TierOf, limit: int = CHUNK) -> bool:
        """Credit the next ``limit`` finished games of a player's history (one short transaction); returns
        whether the whole history is credited. What it unlocks is not announced (it was earned before)."""
        # Only a player with a finished game gets a progress row: looking at someone's card stores nothing.
        await db.execute(START_PLAYERS_PROGRESS, player_id, player_id)
        found = await db.row(LOCK_PROGRESS, player_id)
        if found is None:
            return True  # nothing of theirs to credit
        credited_to, complete, state = int(found[0]), bool(found[1]), str(found[2])
        if complete:
            return True
        games = await db.rows(HISTORY, player_id, credited_to, limit)
        progress = Progress.from_json(state)
        for game in games:
            facts = _facts_of_row(game, tier_of)
            await _unlock(db, player_id, credit(progress, facts), facts)
        last = int(games[-1][0]) if games else credited_to
        done = len(games) < limit
        await db.execute(SAVE_PROGRESS, last, done, progress.to_json(), player_id)
        return done

    @read()
    async def history_credited(self, db: Tx, player_id: int) -> bool:
        return bool(await db.value(PROGRESS_COMPLETE, player_id))

    @write(several=True)
    async def award(self, db: Tx, player_id: int, key: str, at: float, game_id: int | None = None) -> bool:
        return await award(db, player_id, key, at, game_id)

    @read()
    async def unlocked(self, db: Tx, player_id: int) -> list[Unlocked]:
        found = await db.rows(UNLOCKED, player_id)
        return [Unlocked(str(k), float(at), int(g) if g is not None else None) for k, at, g in found]

    @read(several=True)
    async def rarity(self, db: Tx, guild_id: int | None) -> Rarity:
        """Each achievement's holders among a server's players (``None``: among all players)."""
        if guild_id is None:
            players = await db.value(ALL_PLAYERS)
            holders = await db.rows(ALL_HOLDERS)
        else:
            players = await db.value(SERVER_PLAYERS, guild_id)
            holders = await db.rows(SERVER_HOLDERS, guild_id)
        return Rarity(int(players or 0), {str(k): int(n) for k, n in holders})
