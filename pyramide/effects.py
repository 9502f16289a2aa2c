"""What a tap or an undo did (an effect). Effects are values: the bot turns them into words."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from .cards import Card

Spot = int | str
"""A pyramid index 0-27 (position 1 is index 0), ``"waste"``, ``"stock"``, or ``"under"``."""


class GameResult(StrEnum):
    WON = "won"
    STUCK = "stuck"  # "No more possible moves"


@dataclass(frozen=True, slots=True)
class Effect:
    """Base class. ``is_action`` is true when the effect is a move that counts and can be undone."""

    is_action: ClassVar[bool] = False

    @property
    def key(self) -> str:
        """A stable name for translation catalogues, e.g. ``sum_not_13``."""
        return _KEYS[type(self)]


@dataclass(frozen=True, slots=True)
class Selected(Effect):
    spot: Spot
    card: Card


@dataclass(frozen=True, slots=True)
class Deselected(Effect):
    spot: Spot
    card: Card


@dataclass(frozen=True, slots=True)
class PairRemoved(Effect):
    spots: tuple[Spot, Spot]
    cards: tuple[Card, Card]
    points: int

    is_action: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class KingRemoved(Effect):
    spot: Spot
    card: Card
    points: int

    is_action: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class Blocked(Effect):
    """The card is covered ("This card is blocked by another card"); nothing changed."""

    spot: Spot
    card: Card


@dataclass(frozen=True, slots=True)
class SumNot13(Effect):
    """Two cards that do not sum to 13 ("The sum must be 13"); ``second`` is now selected."""

    first: Card
    second: Card
    spot: Spot


@dataclass(frozen=True, slots=True)
class Drew(Effect):
    card: Card

    is_action: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class TurnedBack(Effect):
    count: int
    passes: int

    is_action: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class NoPassesLeft(Effect):
    limit: int


@dataclass(frozen=True, slots=True)
class NothingToDo(Effect):
    """An empty place was tapped (a removed card, an empty stock and waste)."""

    spot: Spot


@dataclass(frozen=True, slots=True)
class GameOver(Effect):
    outcome: GameResult


@dataclass(frozen=True, slots=True)
class NotInPlay(Effect):
    """``tap_card`` named a real card that is neither in the pyramid nor on top of the waste."""

    card: Card
    removed: bool


@dataclass(frozen=True, slots=True)
class UnknownCard(Effect):
    """``tap_card`` got a name that is no card; ``reason`` is the parser's message."""

    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class Undone(Effect):
    """The last action was taken back; ``kind`` is pair, king, draw or turn."""

    kind: str
    points: int


@dataclass(frozen=True, slots=True)
class NothingToUndo(Effect):
    pass


@dataclass(frozen=True, slots=True)
class ActionLimit(Effect):
    """The game's action log is full (``game.MAX_ACTIONS``): nothing more is played or recorded."""

    limit: int


_KEYS: dict[type, str] = {
    Selected: "selected",
    Deselected: "deselected",
    PairRemoved: "pair_removed",
    KingRemoved: "king_removed",
    Blocked: "blocked",
    SumNot13: "sum",
    Drew: "drew",
    TurnedBack: "turned_back",
    NoPassesLeft: "no_passes_left",
    NothingToDo: "nothing_to_do",
    GameOver: "game_over",
    NotInPlay: "not_in_play",
    UnknownCard: "unknown_card",
    Undone: "undone",
    NothingToUndo: "nothing_to_undo",
    ActionLimit: "action_limit",
}
