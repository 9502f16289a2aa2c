"""Deal codes: ``PY1-<rules token>-<deal>``. The scheme is written down in docs/deal-codes.md.

A numbered deal is 7 base32 characters holding a deal number below 2**35; a
SplitMix64 generator seeded with that number drives a Fisher–Yates shuffle.
A layout deal is 47 characters: the waste size, then the rank of the whole
deck permutation (Lehmer code) in 46 characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import factorial

from .cards import Card, full_deck
from .rules import InvalidRules, Rules, TooManyPasses

VERSION = "PY1"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # RFC 4648 base32
NUMBER_LENGTH = 7
LAYOUT_LENGTH = 47
MAX_DEAL_NUMBER: int = 32**NUMBER_LENGTH - 1
PYRAMID_CARDS = 28
MAX_WASTE = 52 - PYRAMID_CARDS
_MASK64 = (1 << 64) - 1
_FACT52 = factorial(52)


class InvalidCode(ValueError):
    """A deal code that cannot be read; the message says what is wrong.

    ``kind`` names the problem for translations: format, version, rules, passes, characters, length, range."""

    def __init__(self, message: str, kind: str = "format") -> None:
        super().__init__(message)
        self.kind = kind


class InvalidLayout(ValueError):
    """An explicit deal that is not a permutation of the 52 cards."""


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards of a deal: 28 pyramid cards, the waste (bottom to top), the stock (draw order)."""

    pyramid: tuple[Card, ...]
    waste: tuple[Card, ...]
    stock: tuple[Card, ...]
    number: int | None = None  # set for numbered deals

    @property
    def deck(self) -> tuple[Card, ...]:
        return self.pyramid + self.waste + self.stock


class SplitMix64:
    """The public-domain SplitMix64 generator (Steele, Lea, Flood 2014), exact to the bit."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An unbiased integer in ``[0, n)``: draws at or above the last whole multiple of n are redrawn."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            r = self.next()
            if r < limit:
                return r % n


def shuffled_deck(number: int) -> tuple[Card, ...]:
    """The deck of deal ``number``: the canonical deck shuffled by Fisher–Yates from the top index down."""
    deck = list(full_deck())
    rng = SplitMix64(number)
    for i in range(51, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def numbered_deal(number: int) -> Deal:
    if not 0 <= number <= MAX_DEAL_NUMBER:
        raise InvalidCode(f"deal number {number} is outside 0-{MAX_DEAL_NUMBER}", "range")
    deck = shuffled_deck(number)
    return Deal(deck[:PYRAMID_CARDS], deck[PYRAMID_CARDS : PYRAMID_CARDS + 1], deck[PYRAMID_CARDS + 1 :], number)


def encode_number(number: int, length: int) -> str:
    chars = []
    for _ in range(length):
        number, digit = divmod(number, 32)
        chars.append(ALPHABET[digit])
    if number:
        raise InvalidCode("number too large for the code")
    return "".join(reversed(chars))


def decode_number(text: str) -> int:
    number = 0
    for char in text:
        number = number * 32 + ALPHABET.index(char)
    return number


def permutation_rank(indices: list[int]) -> int:
    """Lehmer-code rank of a permutation of 0..n-1 (0 for the identity)."""
    rank = 0
    n = len(indices)
    remaining = sorted(indices)
    for i, value in enumerate(indices):
        position = remaining.index(value)
        rank += position * factorial(n - 1 - i)
        remaining.pop(position)
    return rank


def permutation_unrank(rank: int, n: int) -> list[int]:
    remaining = list(range(n))
    out = []
    for i in range(n):
        position, rank = divmod(rank, factorial(n - 1 - i))
        out.append(remaining.pop(position))
    return out


def deal_code(deal: Deal, rules: Rules) -> str:
    """The canonical code of a deal under a rule set."""
    if deal.number is not None:
        body = encode_number(deal.number, NUMBER_LENGTH)
    else:
        rank = permutation_rank([card.index for card in deal.deck])
        body = ALPHABET[len(deal.waste)] + encode_number(rank, LAYOUT_LENGTH - 1)
    return f"{VERSION}-{rules.token}-{body}"


def parse_code(code: str) -> tuple[Deal, Rules]:
    """Read a code (any case, surrounding spaces ignored) into its deal and rules."""
    if not isinstance(code, str):
        raise InvalidCode(f"a deal code must be text, not {type(code).__name__}")
    text = code.strip().upper()
    parts = text.split("-")
    if len(parts) != 3:
        raise InvalidCode(
            f"{code.strip()!r} is not a deal code: it should look like PY1-N-AAAAAAS "
            "(version, rules and deal, separated by '-')"
        )
    version, token, body = parts
    if version != VERSION:
        raise InvalidCode(f"unknown code version {version!r}: this bot reads {VERSION} codes", "version")
    try:
        rules = Rules.from_token(token)
    except InvalidRules as error:
        raise InvalidCode(str(error), "passes" if isinstance(error, TooManyPasses) else "rules") from None
    bad = sorted({char for char in body if char not in ALPHABET})
    if bad:
        raise InvalidCode(
            f"bad characters in the deal part {body!r}: {' '.join(bad)} (only A-Z and 2-7 are used)", "characters"
        )
    if len(body) == NUMBER_LENGTH:
        return numbered_deal(decode_number(body)), rules
    if len(body) == LAYOUT_LENGTH:
        waste_size = ALPHABET.index(body[0])
        rank = decode_number(body[1:])
        if waste_size > MAX_WASTE or rank >= _FACT52:
            raise InvalidCode(f"the layout deal {body!r} does not describe a deck of 52 cards", "range")
        deck = [Card.from_index(i) for i in permutation_unrank(rank, 52)]
        split = PYRAMID_CARDS + waste_size
        return Deal(tuple(deck[:PYRAMID_CARDS]), tuple(deck[PYRAMID_CARDS:split]), tuple(deck[split:])), rules
    raise InvalidCode(
        f"wrong length: the deal part {body!r} has {len(body)} characters; "
        f"a numbered deal has {NUMBER_LENGTH} and a layout deal {LAYOUT_LENGTH}",
        "length",
    )


CardsLike = Sequence[Card | str]


def layout_deal(pyramid: CardsLike, waste: CardsLike, stock: CardsLike) -> Deal:
    """Check an explicit deal: 28 pyramid cards plus waste and stock that make the 52 cards exactly once."""
    cards = [[Card.parse(c) for c in group] for group in (pyramid, waste, stock)]
    if len(cards[0]) != PYRAMID_CARDS:
        raise InvalidLayout(f"the pyramid needs {PYRAMID_CARDS} cards, not {len(cards[0])}")
    deck = cards[0] + cards[1] + cards[2]
    seen: set[Card] = set()
    doubles = [str(c) for c in deck if c in seen or seen.add(c)]  # type: ignore[func-returns-value]
    missing = [str(c) for c in full_deck() if c not in seen]
    if doubles or missing or len(deck) != 52:
        parts = []
        if doubles:
            parts.append("twice: " + " ".join(doubles))
        if missing:
            parts.append("missing: " + " ".join(missing))
        raise InvalidLayout("a deal must use each of the 52 cards exactly once (" + "; ".join(parts) + ")")
    return Deal(tuple(cards[0]), tuple(cards[1]), tuple(cards[2]))
