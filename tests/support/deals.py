"""Deals built by hand whose answers are known, shared by engine, solver and bot tests."""

from __future__ import annotations

from pyramide import STOCK, WASTE, Card, Game, Rules
from pyramide.cards import full_deck

# Every rule set of RULES.md: the defaults and each variant alone (three passes = P2).
ALL_RULES = [
    Rules(),
    Rules(pass_limit=0),
    Rules(pass_limit=2),
    Rules(strict_win=True),
    Rules(draw_with_waste=True),
    Rules(pair_with_cover=True),
]

SUIT = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def card(value: int, suit: str) -> str:
    return NAMES[value - 1] + SUIT[suit]


# ---------------------------------------------------------------------------
# "Kings and pairs": every row falls by a king and pairs of neighbours.
KINGS_AND_PAIRS_ROWS = [
    "K♣",
    "6♥ 7♥",
    "K♦ 5♥ 8♥",
    "3♥ 10♥ 4♥ 9♥",
    "K♥ A♥ Q♥ 2♥ J♥",
    "4♠ 9♠ 5♠ 8♠ 6♠ 7♠",
    "K♠ A♠ Q♠ 2♠ J♠ 3♠ 10♠",
]
KINGS_AND_PAIRS_PYRAMID = [c for row in KINGS_AND_PAIRS_ROWS for c in row.split()]
# Outside cards: ♦ and ♣ in partner order, so that top and under pair in the W variant.
_OUTSIDE = [card(v, s) for s in "DC" for x in range(1, 7) for v in (x, 13 - x)]
KINGS_AND_PAIRS_WASTE = _OUTSIDE[:1]
KINGS_AND_PAIRS_STOCK = _OUTSIDE[1:]


def kings_and_pairs(rules: Rules = Rules()) -> Game:
    return Game.from_layout(KINGS_AND_PAIRS_PYRAMID, KINGS_AND_PAIRS_WASTE, KINGS_AND_PAIRS_STOCK, rules)


def clear_kings_and_pairs(game: Game) -> None:
    """Clear the pyramid row by row, bottom up, without touching the stock."""
    for row in range(6, -1, -1):
        start = row * (row + 1) // 2
        spots = list(range(start, start + row + 1))
        while spots:
            first = spots.pop(0)
            if game.pyramid[first] is not None and game.pyramid[first].is_king:
                game.tap(first)
            else:
                game.tap(first)
                game.tap(spots.pop(0))


class _Taps:
    """A game whose taps are written down (to play the same taps elsewhere: a page, the manager's turns)."""

    def __init__(self, game: Game) -> None:
        self.game, self.spots = game, []

    @property
    def pyramid(self):
        return self.game.pyramid

    def tap(self, spot: int) -> None:
        self.spots.append(spot)
        self.game.tap(spot)


def clear_kings_and_pairs_taps() -> list[int]:
    """The spots ``clear_kings_and_pairs`` taps, in order."""
    taps = _Taps(kings_and_pairs())
    clear_kings_and_pairs(taps)  # type: ignore[arg-type]
    return taps.spots


# ---------------------------------------------------------------------------
# "Stuck": 20 pyramid cards pair with the stock, the last 8 are pairs of a card
# and a card covering it, so once the stock and waste are gone nothing can move.
STUCK_TOP = {0: "4♠", 1: "9♠", 2: "10♠", 5: "3♠", 3: "Q♠", 6: "A♠", 4: "J♠", 7: "2♠"}
STUCK_ORDER = [*range(21, 28), *range(15, 21), *range(10, 15), 8, 9]
_ZONE = [card(v, "H") for v in range(1, 13)] + [card(v, "C") for v in range(1, 7)] + ["5♠", "6♠"]
_PARTNERS = [card(13 - v, "D") for v in range(1, 13)] + [card(13 - v, "C") for v in range(1, 7)] + ["8♠", "7♠"]


def stuck_layout() -> tuple[list[str], list[str], list[str]]:
    pyramid = [""] * 28
    for index, name in STUCK_TOP.items():
        pyramid[index] = name
    for index, name in zip(STUCK_ORDER, _ZONE, strict=True):
        pyramid[index] = name
    return pyramid, ["K♥"], [*_PARTNERS, "K♦", "K♣", "K♠"]


def stuck_game(rules: Rules = Rules()) -> Game:
    return Game.from_layout(*stuck_layout(), rules)


def play_stuck_line(game: Game, *, check: bool = False) -> None:
    """The line that empties the stock and waste; with ``check``, asserts the game is not over before the end."""
    steps: list[tuple[str | int, ...]] = [(WASTE,)]
    steps += [(STOCK, WASTE, index) for index in STUCK_ORDER]
    steps += [(STOCK, WASTE)] * 3
    for step in steps:
        if check:
            assert game.outcome is None
        for spot in step:
            game.tap(spot)


# ---------------------------------------------------------------------------
# "Two passes": Q♣ on top needs an ace, and the aces are drawn long before the
# 8 and the 6 that free it; one pass buries them, a second pass brings them back.
TWO_PASS_ROWS = [
    "Q♣",
    "5♣ 7♥",
    "K♦ 5♥ 8♥",
    "3♥ 10♥ 4♥ 9♥",
    "K♥ A♥ Q♥ 2♥ J♥",
    "4♠ 9♠ 5♠ 8♠ 6♠ 7♠",
    "K♠ A♠ Q♠ 2♠ J♠ 3♠ 10♠",
]
TWO_PASS_WASTE = ["2♣"]
TWO_PASS_STOCK = [
    "A♣",
    "A♦",
    "3♣",
    "4♣",
    "7♣",
    "9♣",
    "10♣",
    "J♣",
    "2♦",
    "3♦",
    "4♦",
    "5♦",
    "7♦",
    "9♦",
    "10♦",
    "J♦",
    "Q♦",
    "K♣",
    "8♣",
    "8♦",
    "6♥",
    "6♣",
    "6♦",
]


def two_pass(rules: Rules = Rules()) -> Game:
    pyramid = [c for row in TWO_PASS_ROWS for c in row.split()]
    return Game.from_layout(pyramid, TWO_PASS_WASTE, TWO_PASS_STOCK, rules)


def queen_over_all_aces(rules: Rules = Rules()) -> Game:
    """The two-pass deal with A♣ and A♦ moved into row 4: all four aces lie below Q♣."""
    pyramid = [c for row in TWO_PASS_ROWS for c in row.split()]
    pyramid[6], pyramid[7] = "A♣", "A♦"
    stock = [("3♥" if c == "A♣" else "10♥" if c == "A♦" else c) for c in TWO_PASS_STOCK]
    return Game.from_layout(pyramid, TWO_PASS_WASTE, stock, rules)


# The example deal of RULES.md, row by row; the texts do not give the stock order,
# so the other 23 cards are in canonical deck order.
EXAMPLE_ROWS = [
    "J♦",
    "6♣ 7♥",
    "A♠ 4♦ Q♠",
    "5♥ 3♦ 6♥ 8♠",
    "K♥ K♣ A♦ K♠ 9♣",
    "Q♣ 2♣ 8♦ 10♦ 10♠ J♠",
    "7♣ 10♣ 3♥ 4♥ 3♠ K♦ 7♠",
]
EXAMPLE_PYRAMID = [card for row in EXAMPLE_ROWS for card in row.split()]
EXAMPLE_WASTE = ["7♦"]
_used = {Card.parse(c) for c in EXAMPLE_PYRAMID + EXAMPLE_WASTE}
EXAMPLE_STOCK = [str(c) for c in full_deck() if c not in _used]


def example_game(rules: Rules = Rules(), stock: list[str] | None = None) -> Game:
    return Game.from_layout(EXAMPLE_PYRAMID, EXAMPLE_WASTE, stock or EXAMPLE_STOCK, rules)


def spot_of(game: Game, name: str) -> int:
    return game.pyramid.index(Card.parse(name))


def one_king_deal() -> Game:
    """A deal whose pyramid gives up one card at most: K♠ on the bottom row; its queens' aces and its
    jacks' twos all lie above them, so nothing else in the pyramid ever becomes removable."""
    upper = [f"{rank}{suit}" for rank in ("A", "2") for suit in "♠♥♦♣"]
    upper += [f"{v}♠" for v in range(3, 11)] + [f"{v}♥" for v in range(3, 8)]
    bottom = ["K♠", "Q♠", "Q♥", "Q♦", "Q♣", "J♠", "J♥"]
    rest = ["8♥", "9♥", "10♥"] + [f"{v}{suit}" for suit in "♦♣" for v in range(3, 11)]
    rest += ["J♦", "J♣", "K♥", "K♦", "K♣"]
    return Game.from_layout(upper + bottom, rest[:1], rest[1:])
