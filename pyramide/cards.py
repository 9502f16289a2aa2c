"""Playing cards: a small value object with a text notation that round-trips."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

SUITS = "♠♥♦♣"
SUIT_LETTERS = "SHDC"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
KING = 13

# Accepted spellings of each suit, beyond the symbol and its letter.
_SUIT_ALIASES = {
    "♠": 0,
    "♤": 0,
    "S": 0,
    "♥": 1,
    "♡": 1,
    "H": 1,
    "♦": 2,
    "♢": 2,
    "D": 2,
    "♣": 3,
    "♧": 3,
    "C": 3,
}
_RANK_ALIASES = {name: rank for rank, name in enumerate(RANK_NAMES, start=1)}
_RANK_ALIASES.update({"T": 10, "1": 1})


class InvalidCard(ValueError):
    """A card name that does not name one of the 52 cards."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One of the 52 cards. ``rank`` is 1 (ace) to 13 (king); ``suit`` is 0-3 for ♠♥♦♣."""

    rank: int
    suit: int

    def __post_init__(self) -> None:
        if not (1 <= self.rank <= 13) or not (0 <= self.suit <= 3):
            raise InvalidCard(f"no such card: rank {self.rank}, suit {self.suit}")

    @property
    def value(self) -> int:
        """The value used for sums: A = 1, 2-10 face value, J = 11, Q = 12, K = 13."""
        return self.rank

    @property
    def index(self) -> int:
        """Position 0-51 in the canonical deck order ♠A..K, ♥A..K, ♦A..K, ♣A..K."""
        return self.suit * 13 + self.rank - 1

    @property
    def is_king(self) -> bool:
        return self.rank == KING

    @property
    def is_red(self) -> bool:
        return self.suit in (1, 2)

    @property
    def rank_name(self) -> str:
        return RANK_NAMES[self.rank - 1]

    @property
    def suit_symbol(self) -> str:
        return SUITS[self.suit]

    @property
    def ascii(self) -> str:
        """ASCII form, e.g. ``10C`` — safe for identifiers and terminals."""
        return self.rank_name + SUIT_LETTERS[self.suit]

    def __str__(self) -> str:
        return self.rank_name + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @classmethod
    def from_index(cls, index: int) -> Card:
        if not 0 <= index < 52:
            raise InvalidCard(f"card index {index} is outside 0-51")
        return _DECK[index]

    @classmethod
    def parse(cls, text: str | Card) -> Card:
        """Read ``"10♣"``, ``"10C"``, ``"TC"``, ``"tc"``, ``"Q♠"``, ``"QS"``, ``"K♦"``, …"""
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise InvalidCard(f"a card name must be text, not {type(text).__name__}")
        return _parse(text)


def _parse(text: str) -> Card:
    cleaned = text.strip().upper().replace(" ", "")
    card = _known(cleaned)
    if card is not None:
        return card
    if len(cleaned) < 2:
        raise InvalidCard(
            f"{text!r} is not a card: write a rank (A, 2-10, J, Q, K) and a suit "
            "(♠♥♦♣ or S H D C), for example 10♣, QS or TC"
        )
    rank_text, suit_text = cleaned[:-1], cleaned[-1]
    suit = _SUIT_ALIASES.get(suit_text)
    if suit is None:
        raise InvalidCard(f"{text!r} has no suit: end it with ♠ ♥ ♦ ♣ or S H D C")
    rank = _RANK_ALIASES.get(rank_text)
    if rank is None:
        raise InvalidCard(f"{text!r} has no rank: start it with A, 2-10, J, Q or K")
    return Card(rank, suit)


@lru_cache(maxsize=256)
def _known(cleaned: str) -> Card | None:
    """A cleaned card name (``"10♣"``, ``"TC"``), cached: the cache never holds raw user text."""
    rank, suit = _RANK_ALIASES.get(cleaned[:-1]), _SUIT_ALIASES.get(cleaned[-1:])
    return Card(rank, suit) if rank is not None and suit is not None else None


_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in range(4) for rank in range(1, 14))


def full_deck() -> tuple[Card, ...]:
    """The 52 cards in canonical order (see ``Card.index``)."""
    return _DECK
