"""Data rights: a player's ``/pyramide forget-me``, and a server the bot left (its data purged after a while).

Both take rows in the order the finishing of a game does (games, then events, then races), so that neither
can deadlock with a game that ends at the same moment on PostgreSQL (docs/storage-invariants.md)."""

from __future__ import annotations

import json

from . import achievements, events, styles
from .units import Backend, Tx, write

GUILD_LEFT = "INSERT INTO departures (guild_id, left_at) VALUES (?, ?) ON CONFLICT (guild_id) DO NOTHING"
GUILD_JOINED = "DELETE FROM departures WHERE guild_id = ?"
DEPARTED = "SELECT guild_id FROM departures WHERE left_at < ?"
# A departed server's purge first takes (deletes) its departure, and goes on only if that was still
# there and old enough: a server the bot rejoined meanwhile (its departure deleted, committed) keeps
# its data, even the games dealt since (on PostgreSQL the list read first may be a moment old).
CLAIM_DEPARTURE = "DELETE FROM departures WHERE guild_id = ? AND left_at < ?"
_GUILD_TABLES = ("games", "settings", "daily_attempts", "races", "events")
PURGES = tuple(f"DELETE FROM {table} WHERE guild_id = ?" for table in _GUILD_TABLES)
PLAYING_CHANNELS_OF = "SELECT channel_id FROM games WHERE owner_id = ? AND status = 'playing'"
RACES_OF_PLAYER = "SELECT race_id FROM race_players WHERE player_id = ?"
LOCK_RACE = "UPDATE races SET finished_at = finished_at WHERE id = ?"
FORGET_RACE_WINS = "UPDATE races SET winner_id = NULL WHERE winner_id = ?"
# A race whose last game in play went with a forgotten player is over then, when its other games ended.
CLOSE_EMPTIED_RACE = (
    "UPDATE races SET finished_at = COALESCE((SELECT MAX(g.finished_at) FROM race_players AS p"
    " JOIN games AS g ON g.id = p.game_id WHERE p.race_id = races.id), created_at)"
    " WHERE id = ? AND finished_at IS NULL AND NOT EXISTS (SELECT 1 FROM race_players AS p"
    " JOIN games AS g ON g.id = p.game_id WHERE p.race_id = races.id AND g.status = 'playing')"
)
DELETE_PLAYER_GAMES = "DELETE FROM games WHERE owner_id = ?"
LOCK_PLAYER_GAMES = "UPDATE games SET owner_id = owner_id WHERE owner_id = ?"
DELETE_PLAYER_ENTRIES = "DELETE FROM event_entries WHERE player_id = ?"
FORGET_EVENT_STARTER = "UPDATE events SET created_by = 0 WHERE created_by = ?"  # 0: nobody's id
DELETE_PLAYER_NAME = "DELETE FROM players WHERE player_id = ?"
ANONYMISE_ATTEMPTS = "UPDATE daily_attempts SET player_id = -game_id, channel_id = 0 WHERE player_id = ?"
# An Activity instance's party race (``pyramide_service.parties``: the ``meta`` value ``party:<instance>``) names
# its players: a gathering its racers (``[id, name, language]``), a race begun their names (``{id: name}``).
PARTIES_NAMING = "SELECT key, value FROM meta WHERE key LIKE 'party:%' AND value LIKE ?"
SET_PARTY = "UPDATE meta SET value = ? WHERE key = ?"
DELETE_PARTY = "DELETE FROM meta WHERE key = ?"


class DataRights(Backend):
    """The data rights' part of ``Storage``."""

    @write()
    async def guild_left(self, db: Tx, guild_id: int, at: float) -> None:
        await db.execute(GUILD_LEFT, guild_id, at)

    @write()
    async def guild_joined(self, db: Tx, guild_id: int) -> None:
        await db.execute(GUILD_JOINED, guild_id)

    @write(several=True, long=True)
    async def purge_departed(self, db: Tx, before: float) -> list[int]:
        """Delete every game, setting and daily attempt of the servers left before ``before``."""
        purged = []
        for guild_id in [int(r[0]) for r in await db.rows(DEPARTED, before)]:
            if not await db.changed(CLAIM_DEPARTURE, guild_id, before):
                continue  # rejoined meanwhile
            for statement in PURGES:
                await db.execute(statement, guild_id)
            purged.append(guild_id)
        return purged

    @write(several=True, long=True)
    async def forget_player(self, db: Tx, player_id: int) -> tuple[int, list[int]]:
        """Delete a player's games on every server; their daily attempts stay in the day's totals but no
        longer name them. Returns how many games went, and the channels of those still in play."""
        channels = [int(r[0]) for r in await db.rows(PLAYING_CHANNELS_OF, player_id)]
        races = [int(r[0]) for r in await db.rows(RACES_OF_PLAYER, player_id)]
        await db.execute(LOCK_PLAYER_GAMES, player_id)  # games first, then events, then entries and races
        running_events = [int(r[0]) for r in await db.rows(events.RUNNING_EVENTS_OF_PLAYER, player_id)]
        for event_id in running_events:  # their announcements are redrawn without them
            await db.execute(events.EVENT_CHANGED, event_id)
        await db.execute(DELETE_PLAYER_ENTRIES, player_id)  # (after their events' rows, as an event's end takes them)
        await db.execute(FORGET_EVENT_STARTER, player_id)
        deleted = await db.changed(DELETE_PLAYER_GAMES, player_id)
        for race_id in races:  # (games, then events, then races: the order finish_game takes them in)
            await db.execute(LOCK_RACE, race_id)
            await db.execute(CLOSE_EMPTIED_RACE, race_id)
        await db.execute(FORGET_RACE_WINS, player_id)  # a race they won keeps no id of theirs: nobody won it
        await db.execute(DELETE_PLAYER_NAME, player_id)
        for key, value in await db.rows(PARTIES_NAMING, f'%"{player_id}"%'):
            kept = party_without(str(value), player_id)
            await (db.execute(SET_PARTY, kept, str(key)) if kept else db.execute(DELETE_PARTY, str(key)))
        await db.execute(styles.DELETE_STYLE, player_id)
        await db.execute(ANONYMISE_ATTEMPTS, player_id)
        await achievements.forget(db, player_id)
        return int(deleted), channels


def party_without(value: str, player_id: int) -> str | None:
    """A party's stored value with nothing of the player: out of its gathering (``None``: none left in it,
    the party is gone), their name gone from its race (their games are deleted with the rest, so its
    standings no longer hold them)."""
    data = json.loads(value)
    if "racers" in data:
        data["racers"] = [racer for racer in data["racers"] if racer[0] != str(player_id)]
        if not data["racers"]:
            return None
    data.get("names", {}).pop(str(player_id), None)
    return json.dumps(data)
