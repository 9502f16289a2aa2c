"""What is stored, as the storage hands it out and takes it in: the records, the games' statuses, and the
answers an operation gives by raising (a daily or an event's deal taken, a move stored by another process).
Outside ``storage``: the Discord layer reads these through the application's services without importing
storage (an import-linter contract)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


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


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game as stored: who, where, which deal, and how it went. A value: a change is a new record
    (``dataclasses.replace``), stored by the operation that takes it; what the game's close worked out
    besides its row (its tier, what it unlocked, the verdict it owes) is ``Finish``'s and the live game's,
    and a log that could not be read is told by ``UnreadableGame``."""

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
    actions: tuple[int | str, ...] = ()
    picture: str | None = None  # a finished daily's clearing picture, kept with its attempt
    event_id: int | None = None  # a server event's deal (its one counted attempt by this player)
    event_deal: int | None = None  # which of the event's deals (0 is the first)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", GameStatus(self.status))  # a row read from the database holds the value


@dataclass(frozen=True, slots=True)
class UnreadableGame:
    """A game in play whose stored actions cannot be read, as ``live_game`` answers it: its record (with
    no actions) and why (the manager closes it as broken)."""

    record: GameRecord
    reason: str


@dataclass(frozen=True, slots=True)
class Finish:
    """What ``finish_game`` answers: the game's record as stored (``counted`` as the database decided it),
    the achievements the finish unlocked (``None``: the player's earlier history is still to be credited)
    and whether it stored that a perfect loss waits for the verdict on the deal (``storage.owed``)."""

    record: GameRecord
    unlocked: tuple[str, ...] | None = ()
    owes_verdict: bool = False


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
class EventStart:
    """A server event as it is started: its deals as (code, deal key), fixed from ``at`` to ``ends_at``;
    (``guild_id``, ``created_by``, ``at``) finds a start whose write had an unknown outcome."""

    guild_id: int
    channel_id: int
    name: str
    rules: str
    difficulty: str | None
    deals: tuple[tuple[str, str], ...]
    created_by: int
    at: float
    ends_at: float
    locale: str | None = None


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
