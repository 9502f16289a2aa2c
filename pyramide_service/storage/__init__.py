"""Persistence: what is stored (the records below) and how it is asked for, one protocol per aggregate
(``Database``, ``Games``, ``Dailies``, ``Races``, ``Servers``, ``Players``). ``Storage`` is their union,
implemented by one class over either backend: SQLite (``sqlite3``, in threads the storage owns) is the
embedded default, PostgreSQL (asyncpg) serves deployments of several processes; ``from_url`` picks one
by its URL.

The cogs and the game manager only ever see these protocols, never a backend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol
from urllib.parse import unquote, urlsplit

from pyramide.style import Style

if TYPE_CHECKING:
    from .achievements import Rarity, Unlocked
    from .owed import OwedVerdict


class GameStatus(StrEnum):
    """Where a stored game stands; stored as its value (the ``status`` column)."""

    PLAYING = "playing"
    WON = "won"
    STUCK = "stuck"  # no move left
    ENDED = "ended"  # ended by its player
    BROKEN = "broken"  # a stored game that could not be replayed: closed, played but never won
    ABANDONED = "abandoned"  # idle, ended by someone else in the channel to deal a new game: played, not won


# The members by their own names, as the queries and the cogs read them.
PLAYING, WON, STUCK, ENDED = GameStatus.PLAYING, GameStatus.WON, GameStatus.STUCK, GameStatus.ENDED
BROKEN, ABANDONED = GameStatus.BROKEN, GameStatus.ABANDONED
FINISHED = frozenset(GameStatus) - {PLAYING}


class StorageError(RuntimeError):
    """The database cannot be used at all; the message names the problem and the file."""


class StorageUnavailable(RuntimeError):
    """The database stayed busy (locked by another process) or unreachable for this request."""

    key = "storage_busy"


class StorageOutcomeUnknown(StorageUnavailable):
    """A write was sent, and no answer came in time (a stall, a cut connection): it may be stored or not.
    Never "nothing was done". ``settle`` it (the write can then no longer take effect) and look it up.
    ``session`` is the server's id for the connection it was sent on (None: none to end); ``cut`` whether
    the connection was cut (then a write found absent may be sent again at once) rather than too slow
    (a stall, a lock: a second try would likely wait as long)."""

    key = "storage_unknown"

    def __init__(self, message: str, session: int | None = None, *, cut: bool = False) -> None:
        super().__init__(message)
        self.session = session
        self.cut = cut


@dataclass(slots=True)
class GameRecord:
    """One game as stored: who, where, which deal, and how it went."""

    id: int
    guild_id: int
    channel_id: int
    owner_id: int
    code: str
    rules: str
    status: GameStatus = PLAYING
    score: int = 0
    moves: int = 0
    removed: int = 0
    hints: int = 0
    message_id: int | None = None
    daily: str | None = None  # UTC date "YYYY-MM-DD" of a daily challenge attempt
    counted: bool = False  # the player's first finished attempt at that daily
    created_at: float = 0.0
    started_at: float | None = None  # the first move
    finished_at: float | None = None
    seconds: float | None = None
    locale: str | None = None
    actions: list[int | str] = field(default_factory=list)
    damage: str | None = None  # why the stored actions could not be read (not stored itself)
    picture: str | None = None  # a finished daily's clearing picture, kept with its attempt
    event_id: int | None = None  # a server event's deal (its one counted attempt by this player)
    event_deal: int | None = None  # which of the event's deals (0 is the first)
    # Not stored either: the deal's difficulty when known at the finish (a daily's scheduled tier), and the
    # achievements the finish unlocked (None: the player's earlier history is still to be credited).
    tier: str | None = None
    unlocked: tuple[str, ...] | None = ()
    # Asked of finish_game, and answered by it: the finish stored that a perfect loss waits for the verdict
    # on the deal (storage.owed).
    owes_verdict: bool = False

    def __post_init__(self) -> None:
        self.status = GameStatus(self.status)  # a row read from the database holds the value



@dataclass(frozen=True, slots=True)
class GuildSettings:
    error_help: bool = True
    anyone_can_play: bool = False
    idle_minutes: int = 15  # after this long without a move, anyone in the channel may replace a game
    new_in_thread: bool = False  # /pyramide new opens a thread of its own unless told otherwise


@dataclass(frozen=True, slots=True)
class ResultRow:
    """A finished game, as the statistics see it."""

    status: GameStatus
    score: int
    moves: int
    seconds: float | None
    finished_at: float
    daily: str | None
    counted: bool
    hints: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", GameStatus(self.status))


@dataclass(frozen=True, slots=True)
class LeaderRow:
    player_id: int
    played: int
    wins: int
    best_seconds: float | None
    fewest_moves: int | None
    hints: int = 0
    name: str | None = None  # the name the player goes by, when known


@dataclass(frozen=True, slots=True)
class DailyRow:
    player_id: int
    status: GameStatus
    seconds: float | None
    moves: int
    hints: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", GameStatus(self.status))


@dataclass(frozen=True, slots=True)
class DailyAttempt:
    """A player's counted attempt at one day's daily: opened once, kept apart from deletable statistics."""

    day: str
    player_id: int
    guild_id: int
    channel_id: int
    game_id: int
    opened_at: float
    status: GameStatus | None  # None while it is played
    seconds: float | None
    moves: int
    hints: int
    removed: int
    picture: str | None

    def __post_init__(self) -> None:
        if self.status is not None:
            object.__setattr__(self, "status", GameStatus(self.status))


@dataclass(frozen=True, slots=True)
class RaceRecord:
    """Two (or more) players on one deal, each in a game (and a thread) of their own; the first to clear
    the pyramid wins (``winner_id``, set once, by the database)."""

    id: int
    guild_id: int
    channel_id: int  # where the scoreboard is
    message_id: int | None
    code: str
    created_at: float
    players: tuple[tuple[int, int], ...]  # (player, game) in the order they were named
    winner_id: int | None = None
    finished_at: float | None = None


@dataclass(frozen=True, slots=True)
class RaceStats:
    played: int
    won: int
    best_seconds: float | None


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A server's own competition: ``codes`` fixed when it started, one counted attempt a player at each.
    ``ended_at`` is set once, by the transaction that decides the final standings (``cancelled``: discarded);
    ``announced_at`` once, by the process that posts them."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    name: str
    rules: str
    difficulty: str | None
    codes: tuple[str, ...]
    created_by: int
    created_at: float
    ends_at: float
    version: int = 0
    ended_at: float | None = None
    cancelled: bool = False
    announced_at: float | None = None
    results_id: int | None = None
    locale: str | None = None

    @property
    def running(self) -> bool:
        return self.ended_at is None


@dataclass(frozen=True, slots=True)
class EventStanding:
    """A player's totals over the deals of an event they finished (or that were in play at its end)."""

    player_id: int
    played: int
    removed: int
    score: int
    seconds: float
    hints: int
    cleared: int
    name: str | None = None


@dataclass(frozen=True, slots=True)
class EventEntry:
    """A player's one counted attempt at one deal of an event (``status`` None while it is played)."""

    event_id: int
    position: int
    player_id: int
    game_id: int
    opened_at: float
    status: str | None
    removed: int
    score: int
    seconds: float | None
    hints: int


@dataclass(frozen=True, slots=True)
class EventStats:
    played: int
    podiums: int
    wins: int


class EventTaken(Exception):
    """The player has opened that deal of the event already: nothing was stored."""


class EventOver(Exception):
    """The event ended (or its deadline passed) before the deal could be opened: nothing was stored."""


class EventNotStarted(StorageUnavailable):
    """An event start whose write had an unknown outcome, settled and looked up: it was not stored, so
    nothing was started (no slot is held) and the start may simply be tried again."""

    key = "event_not_started"


class EventStartUnknown(StorageOutcomeUnknown):
    """An event start whose write had an unknown outcome, and the database did not answer again in time to
    look it up: it may be running (``/pyramide event list`` shows it)."""

    key = "event_start_unknown"


class MoveConflict(Exception):
    """Another process stored a move at this place of the game first (two processes briefly holding one
    shard): nothing was stored; the game must be reloaded from storage."""


class DailyTaken(Exception):
    """The player has a counted attempt at that day already (``attempt``)."""

    def __init__(self, attempt: DailyAttempt) -> None:
        super().__init__(f"player {attempt.player_id} opened the daily of {attempt.day} already")
        self.attempt = attempt


class Database(Protocol):
    """The database itself: opened and closed by its owner, checked, compacted, and its few settings."""

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def compact(self) -> None: ...
    async def ping(self) -> None: ...
    async def meta(self, key: str) -> str | None: ...
    async def set_meta(self, key: str, value: str) -> None: ...


class Games(Protocol):
    """A game from its deal to its end: created, its moves and hints appended, finished or discarded."""

    async def create_game(self, record: GameRecord) -> GameRecord: ...
    async def live_game(self, channel_id: int) -> GameRecord | None: ...
    async def game(self, game_id: int) -> GameRecord | None: ...
    async def append_action(
        self, game_id: int, seq: int, action: int | str, at: float, record: GameRecord, request: int | None = None
    ) -> None: ...
    async def set_message(self, game_id: int, message_id: int) -> None: ...
    async def discard_game(self, game_id: int) -> None: ...
    async def last_action_at(self, game_id: int) -> float | None: ...
    async def add_hint(self, game_id: int, request: int | None = None) -> bool: ...
    async def settle(self, unknown: StorageOutcomeUnknown) -> None: ...
    async def move_at(self, game_id: int, seq: int) -> tuple[str, int | None] | None: ...
    async def finish_game(self, record: GameRecord) -> GameRecord: ...


class Dailies(Protocol):
    """The daily challenge: each player's one counted attempt a day, its standings, the deployment's secret."""

    async def daily_rows(self, day: str, guild_id: int) -> list[DailyRow]: ...
    async def daily_totals(self, day: str) -> tuple[int, int]: ...
    async def daily_rank(self, day: str, player_id: int) -> int | None: ...
    async def daily_days(self, player_id: int) -> list[str]: ...
    async def daily_attempt(self, day: str, player_id: int) -> DailyAttempt | None: ...
    async def daily_month(self, player_id: int, first_day: str, last_day: str) -> list[DailyAttempt]: ...
    async def stale_dailies(self, day: str) -> list[int]: ...
    async def daily_secret(self, fresh: str) -> str: ...


class Races(Protocol):
    """Races: players on one deal, each in a game of their own, the winner decided by the database."""

    async def create_race(
        self, guild_id: int, channel_id: int, code: str, at: float, players: list[tuple[int, int]]
    ) -> int: ...
    async def set_race_message(self, race_id: int, message_id: int) -> None: ...
    async def race_of_game(self, game_id: int) -> RaceRecord | None: ...
    async def race(self, race_id: int) -> RaceRecord | None: ...
    async def close_race(self, race_id: int, at: float) -> None: ...
    async def race_stats(self, guild_id: int, player_id: int) -> RaceStats: ...

    # achievements (pyramide_service.storage.achievements)
    async def credit_history(self, player_id: int, tier_of: Callable[[str], str | None], limit: int = ...) -> bool: ...
    async def history_credited(self, player_id: int) -> bool: ...
    async def award(self, player_id: int, key: str, at: float, game_id: int | None = None) -> bool: ...
    async def unlocked(self, player_id: int) -> list[Unlocked]: ...
    async def rarity(self, guild_id: int | None) -> Rarity: ...
    # the verdicts finished games still owe (pyramide_service.storage.owed)
    async def owed_verdicts(self, limit: int = ...) -> list[OwedVerdict]: ...
    async def owed_verdict(self, game_id: int) -> OwedVerdict | None: ...
    async def pay_verdict(self, game_id: int, perfect: bool) -> bool: ...


class Servers(Protocol):
    """The servers the bot is in: their settings, and what is kept (then purged) after the bot leaves."""

    async def settings(self, guild_id: int) -> GuildSettings: ...
    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None: ...
    async def guild_left(self, guild_id: int, at: float) -> None: ...
    async def guild_joined(self, guild_id: int) -> None: ...
    async def purge_departed(self, before: float) -> list[int]: ...


class Players(Protocol):
    """The players: the names they go by, their statistics and leaderboards, and forgetting them."""

    async def remember_name(self, player_id: int, name: str) -> None: ...
    async def forget_player(self, player_id: int) -> tuple[int, list[int]]: ...
    async def results(self, guild_id: int, player_id: int) -> list[ResultRow]: ...
    async def leaderboard(
        self, guild_id: int, since: float | None, limit: int, offset: int, rules: str | None = None
    ) -> list[LeaderRow]: ...
    async def leaderboard_size(self, guild_id: int, since: float | None, rules: str | None = None) -> int: ...
    async def leaderboard_rank(
        self, guild_id: int, since: float | None, player_id: int, rules: str | None = None
    ) -> int | None: ...
    async def reset_stats(self, guild_id: int, player_id: int | None) -> int: ...


class Styles(Protocol):
    """Players' styles of cards and table (pyramide_service/storage/styles.py): the default one is no row."""

    async def player_style(self, player_id: int) -> Style: ...
    async def set_player_style(self, player_id: int, style: Style) -> None: ...


class Events(Protocol):
    """Server events (pyramide_service/storage/events.py)."""

    async def create_event(
        self,
        guild_id: int,
        channel_id: int,
        name: str,
        rules: str,
        difficulty: str | None,
        deals: Sequence[tuple[str, str]],
        created_by: int,
        at: float,
        ends_at: float,
        locale: str | None = None,
    ) -> int | None: ...
    async def event(self, event_id: int) -> EventRecord | None: ...
    async def events_of_guild(self, guild_id: int, limit: int = 10) -> list[EventRecord]: ...
    async def running_events(self) -> list[EventRecord]: ...
    async def set_event_message(self, event_id: int, message_id: int) -> None: ...
    async def set_event_results(self, event_id: int, message_id: int) -> None: ...
    async def is_running_deal(self, deal: str) -> bool: ...
    async def event_entries(self, event_id: int, player_id: int) -> list[EventEntry]: ...
    async def event_standings(self, event_id: int) -> list[EventStanding]: ...
    async def end_event(self, event_id: int, at: float, *, cancelled: bool = False) -> list[EventStanding] | None: ...
    async def claim_announcement(self, event_id: int, at: float) -> bool: ...
    async def release_announcement(self, event_id: int) -> None: ...
    async def due_events(self, now: float) -> list[tuple[int, int]]: ...
    async def event_stats(self, guild_id: int, player_id: int) -> EventStats: ...


class Storage(Database, Games, Dailies, Races, Servers, Players, Events, Styles, Protocol):
    """Everything the bot stores: the union of the aggregates' protocols, implemented by one backend
    class (``queries.SQLStorage`` over SQLite or PostgreSQL). A part that needs one aggregate only may
    take that protocol instead."""


SQLITE_PREFIX = "sqlite:///"
POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite:///ABSOLUTE/PATH`` URL (``None`` for another URL)."""
    if url.startswith(SQLITE_PREFIX) and len(url) > len(SQLITE_PREFIX):
        return "/" + url[len(SQLITE_PREFIX) :].lstrip("/")
    return None


def from_url(url: str) -> Storage:
    """The storage a URL names: ``sqlite:///ABSOLUTE/PATH`` or ``postgresql://USER[:PASSWORD]@HOST:PORT/DB``;
    a plain path (or ``file:`` URI, or ``:memory:``) is a SQLite database. Raises ``ValueError`` (never
    showing a password) for another kind of URL."""
    path = sqlite_path(url)
    if path is None and "://" not in url:
        path = url
    if path is not None:
        from .sqlite import SQLiteStorage

        return SQLiteStorage(path)
    if url.startswith(POSTGRES_PREFIXES):
        from .postgres import PostgresStorage

        return PostgresStorage(url)
    raise ValueError(
        f"must look like sqlite:///ABSOLUTE/PATH or postgresql://USER@HOST:PORT/DBNAME, not {redact(url)[:60]!r}"
    )


def redact(url: str) -> str:
    """A database URL as it may be printed and logged: without its password, whether it is in the
    address (``user:password@host``) or a query parameter (``?password=...``, as libpq reads it)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.split("://", 1)[0] + "://…"  # unreadable: nothing of it but its kind
    fields = parts.query.split("&") if parts.query else []
    hidden = ["password=***" if unquote(f.split("=", 1)[0]).lower() == "password" else f for f in fields]
    if parts.password is None and hidden == fields:
        return url
    if parts.password is not None:
        netloc = parts.netloc.rsplit("@", 1)[1]
        user = parts.username or ""
        parts = parts._replace(netloc=f"{user}:***@{netloc}")
    return parts._replace(query="&".join(hidden)).geturl()
