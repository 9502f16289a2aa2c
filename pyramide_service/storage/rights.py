"""Data rights as units of work: a player's ``/pyramide forget-me`` and the purge of a server the bot left.

Both take rows in the order the finishing of a game does (games, then events, then races), so that neither
can deadlock with a game that ends at the same moment on PostgreSQL (docs/storage-invariants.md)."""

from __future__ import annotations

from . import achievements, events, styles
from .units import Program, changed, rows

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


def purge_departed(before: float) -> Program[list[int]]:
    purged = []
    for guild_id in [int(r[0]) for r in (yield rows(DEPARTED, before))]:
        if not (yield changed(CLAIM_DEPARTURE, guild_id, before)):
            continue  # rejoined meanwhile
        for statement in PURGES:
            yield changed(statement, guild_id)
        purged.append(guild_id)
    return purged


def forget_player(player_id: int) -> Program[tuple[int, list[int]]]:
    channels = [int(r[0]) for r in (yield rows(PLAYING_CHANNELS_OF, player_id))]
    races = [int(r[0]) for r in (yield rows(RACES_OF_PLAYER, player_id))]
    yield changed(LOCK_PLAYER_GAMES, player_id)  # games first, then events, then entries and races
    running_events = [int(r[0]) for r in (yield rows(events.RUNNING_EVENTS_OF_PLAYER, player_id))]
    for event_id in running_events:  # their announcements are redrawn without them
        yield changed(events.EVENT_CHANGED, event_id)
    yield changed(DELETE_PLAYER_ENTRIES, player_id)  # (after their events' rows, as an event's end takes them)
    yield changed(FORGET_EVENT_STARTER, player_id)
    deleted = yield changed(DELETE_PLAYER_GAMES, player_id)
    for race_id in races:  # (games, then events, then races: the order finish_game takes them in)
        yield changed(LOCK_RACE, race_id)
        yield changed(CLOSE_EMPTIED_RACE, race_id)
    yield changed(FORGET_RACE_WINS, player_id)  # a race they won keeps no id of theirs: nobody won it
    yield changed(DELETE_PLAYER_NAME, player_id)
    yield changed(styles.DELETE_STYLE, player_id)
    yield changed(ANONYMISE_ATTEMPTS, player_id)
    yield from achievements.forget(player_id)
    return int(deleted), channels
