"""A channel's game as the manager hands it out: its stored record and its engine (``Live``), what a move
did to it (``ActResult``), the refusals on the way in (``NoGame``, ``StaleBoard``, ``BrokenGame``), and
the verdict its close stored as owed (``owed_by``)."""

from __future__ import annotations

from dataclasses import dataclass

from pyramide.effects import Effect
from pyramide.errors import GameError
from pyramide.game import Game

from .storage import GameRecord
from .storage.owed import OwedVerdict


def owed_by(record: GameRecord) -> OwedVerdict:
    """The verdict a game's finish stored as owed (``Live.owes_verdict``)."""
    return OwedVerdict(record.id, record.owner_id, record.code, record.removed, record.finished_at or 0.0)


class NoGame(GameError):
    key = "no_game"


class StaleBoard(GameError):
    key = "stale_board"


class BrokenGame(GameError):
    """A stored game that cannot be replayed. It has been closed (status ``broken``): the channel is free."""

    key = "broken_game"

    def __init__(self, record: GameRecord, reason: str) -> None:
        super().__init__(f"game {record.id} cannot be replayed: {reason}")
        self.record = record


@dataclass
class Live:
    """A game in play, as the manager keeps it: its record as last stored (a value, replaced by each write
    that changes it) and its engine. Once it is closed, what its close worked out besides the row: the
    deal's difficulty (``tier``), the achievements it unlocked (``None``: the player's earlier history is
    still to be credited) and whether it owes the verdict on its deal (``owes_verdict``)."""

    record: GameRecord
    game: Game
    tier: str | None = None
    unlocked: tuple[str, ...] | None = ()
    owes_verdict: bool = False

    @property
    def stored(self) -> int:
        return len(self.record.actions)


@dataclass(frozen=True)
class ActResult:
    event: Effect
    live: Live
    finished: bool  # this action ended the game
    snapshot: Game  # the position right after the action, safe to draw while play goes on
