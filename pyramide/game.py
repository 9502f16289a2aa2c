"""The game: state, taps, undo, score, outcome and a replayable action log.

Only the standard library is imported here; the bot, the renderer and the
solver all stand on this module, never the reverse.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from .cards import Card, InvalidCard
from .codes import MAX_DEAL_NUMBER, Deal, deal_code, layout_deal, numbered_deal, parse_code
from .effects import (
    ActionLimit,
    Blocked,
    Deselected,
    Drew,
    Effect,
    GameOver,
    GameResult,
    KingRemoved,
    NoPassesLeft,
    NothingToDo,
    NothingToUndo,
    NotInPlay,
    PairRemoved,
    Selected,
    Spot,
    SumNot13,
    TurnedBack,
    Undone,
    UnknownCard,
)
from .rules import Rules

ROWS = 7
PYRAMID_SIZE = 28
POINTS_PER_CARD = 10
UNDO_LIMIT = 100
# A game's action log holds at most this many taps and undos (a real game takes a few hundred): every
# replay, picture and page of a game then costs a bounded time, whatever a player keeps tapping.
MAX_ACTIONS = 2_000
WASTE, STOCK, UNDER = "waste", "stock", "under"
UNDO = "undo"


def index_of(row: int, col: int) -> int:
    """Pyramid index of row ``row`` (0 = top) and column ``col`` (0 = left)."""
    return row * (row + 1) // 2 + col


# COVERS[i]: the (at most two) cards of the row below that lie on card i.
COVERS: tuple[tuple[int, ...], ...] = tuple(
    () if row == ROWS - 1 else (index_of(row + 1, col), index_of(row + 1, col + 1))
    for row in range(ROWS)
    for col in range(row + 1)
)


class InvalidSpot(ValueError):
    """A spot that is neither a pyramid index 0-27 nor one of waste, stock, under."""


class InvalidAction(ValueError):
    """An entry of an action log that is neither a spot nor ``"undo"``."""


@dataclass(frozen=True, slots=True)
class Move:
    """A move a player can make: ``pair`` (two spots), ``king`` (one spot), ``draw`` or ``turn``."""

    kind: str
    spots: tuple[Spot, ...] = ()

    def __str__(self) -> str:
        return " ".join([self.kind, *map(str, self.spots)])


@dataclass(frozen=True, slots=True)
class _Removal:
    kind: str  # "pair" or "king"
    pyramid: tuple[tuple[int, Card], ...]
    waste: tuple[Card, ...]  # bottom to top, as they lay on the waste
    points: int


_DRAW, _TURN = "draw", "turn"
_HistoryItem = _Removal | str


def _spot_key(spot: Spot) -> tuple[int, int | str]:
    return (0, spot) if isinstance(spot, int) else (1, spot)


class Game:
    """One game of Pyramide. Create it with ``from_code``, ``from_layout`` or ``new``."""

    def __init__(self, deal: Deal, rules: Rules = Rules()) -> None:
        self.deal = deal
        self.rules = rules
        self._pyramid: list[Card | None] = list(deal.pyramid)
        self._stock: list[Card] = list(reversed(deal.stock))  # next card to draw is last
        self._waste: list[Card] = list(deal.waste)
        self.selected: Spot | None = None
        self.score = 0
        self.moves = 0
        self.passes = 0
        # Counts every change of the board (removal, draw, turn, undo); selection does not count.
        self.version = 0
        self._history: deque[_HistoryItem] = deque(maxlen=UNDO_LIMIT)
        self.actions: list[Spot] = []
        # Wall-clock times (epoch seconds) kept by the caller; the engine has no clock.
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self._outcome: GameResult | None = None
        self._update_outcome()

    # ----------------------------------------------------------------- creation
    @classmethod
    def from_code(cls, code: str) -> Game:
        deal, rules = parse_code(code)
        return cls(deal, rules)

    @classmethod
    def from_layout(
        cls,
        pyramid: Sequence[Card | str],
        waste: Sequence[Card | str],
        stock: Sequence[Card | str],
        rules: Rules = Rules(),
    ) -> Game:
        return cls(layout_deal(pyramid, waste, stock), rules)

    @classmethod
    def from_number(cls, number: int, rules: Rules = Rules()) -> Game:
        return cls(numbered_deal(number), rules)

    @classmethod
    def new(cls, rules: Rules = Rules()) -> Game:
        return cls.from_number(secrets.randbelow(MAX_DEAL_NUMBER + 1), rules)

    @classmethod
    def replay(cls, code: str, actions: Iterable[Spot]) -> Game:
        """Rebuild a game from its code and ``actions`` log: same board, selection, score and undo history."""
        game = cls.from_code(code)
        for action in actions:
            game.apply(action)
        return game

    def copy(self) -> Game:
        """An independent copy of this game (state, history and action log)."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._pyramid = list(self._pyramid)
        other._stock = list(self._stock)
        other._waste = list(self._waste)
        other._history = deque(self._history, maxlen=UNDO_LIMIT)
        other.actions = list(self.actions)
        return other

    def apply(self, action: Spot) -> Effect:
        """Apply one entry of an action log (a log stored before ``MAX_ACTIONS`` is replayed whole)."""
        if action == UNDO:
            return self._undo()
        try:
            return self._tap(self._check_spot(action))
        except InvalidSpot as error:
            raise InvalidAction(f"not an action: {action!r}") from error

    # -------------------------------------------------------------------- state
    @property
    def code(self) -> str:
        return deal_code(self.deal, self.rules)

    @property
    def pyramid(self) -> tuple[Card | None, ...]:
        return tuple(self._pyramid)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock in draw order: ``stock[0]`` is the next card drawn."""
        return tuple(reversed(self._stock))

    @property
    def waste(self) -> tuple[Card, ...]:
        """The waste from bottom to top: ``waste[-1]`` is the top card."""
        return tuple(self._waste)

    @property
    def outcome(self) -> GameResult | None:
        return self._outcome

    @property
    def is_over(self) -> bool:
        return self._outcome is not None

    @property
    def removed(self) -> int:
        """Pyramid cards removed so far."""
        return sum(card is None for card in self._pyramid)

    @property
    def can_turn(self) -> bool:
        """Whether tapping the stock now turns the waste back (stock empty, a pass left)."""
        return not self._stock and bool(self._waste) and self._passes_left()

    @property
    def can_undo(self) -> bool:
        return bool(self._history) and not self.is_over

    def state(self) -> tuple[object, ...]:
        """Everything that defines the position, for comparing two games."""
        return (
            tuple(self._pyramid),
            tuple(self._stock),
            tuple(self._waste),
            self.selected,
            self.score,
            self.moves,
            self.passes,
            self.version,
            tuple(self._history),
            self._outcome,
        )

    def card_at(self, spot: Spot) -> Card | None:
        spot = self._check_spot(spot)
        if isinstance(spot, int):
            return self._pyramid[spot]
        if spot == WASTE:
            return self._waste[-1] if self._waste else None
        if spot == UNDER:
            return self._waste[-2] if self.rules.draw_with_waste and len(self._waste) >= 2 else None
        return None

    def is_free(self, index: int) -> bool:
        """A pyramid card is free when no card of the row below lies on it."""
        pyramid = self._pyramid
        if pyramid[index] is None:
            return False
        covers = COVERS[index]  # none on the bottom row, else two (no generator: drawing a board calls this 500 times)
        return not covers or (pyramid[covers[0]] is None and pyramid[covers[1]] is None)

    def covering(self, index: int) -> tuple[int, ...]:
        """The pyramid cards still lying on card ``index``."""
        return tuple(c for c in COVERS[index] if self._pyramid[c] is not None)

    def free_spots(self) -> list[Spot]:
        """Free pyramid indices, then the waste top (and ``under`` in the drawn-card-with-waste variant)."""
        spots: list[Spot] = [i for i in range(PYRAMID_SIZE) if self.is_free(i)]
        if self._waste:
            spots.append(WASTE)
        if self.card_at(UNDER) is not None:
            spots.append(UNDER)
        return spots

    def selectable_spots(self) -> list[Spot]:
        """Every spot a tap can select: the free spots plus, under the card-with-cover variant,
        cards whose only remaining cover is free."""
        spots = self.free_spots()
        if self.rules.pair_with_cover:
            spots.extend(i for i in range(PYRAMID_SIZE) if not self.is_free(i) and self._selectable(i))
            spots.sort(key=_spot_key)
        return spots

    def legal_moves(self) -> list[Move]:
        """The removals available now, then ``draw`` or ``turn`` when possible."""
        moves: list[Move] = []
        open_cards: list[tuple[Spot, Card]] = [(i, self._pyramid[i]) for i in range(PYRAMID_SIZE) if self.is_free(i)]  # type: ignore[misc]
        if self._waste:
            open_cards.append((WASTE, self._waste[-1]))
        moves.extend(Move("king", (spot,)) for spot, card in open_cards if card.is_king)
        for (a, ca), (b, cb) in combinations(open_cards, 2):
            if ca.value + cb.value == 13:
                moves.append(Move("pair", (a, b)))
        under = self.card_at(UNDER)
        if under is not None and under.value + self._waste[-1].value == 13:
            moves.append(Move("pair", (WASTE, UNDER)))
        if self.rules.pair_with_cover:
            for i in range(PYRAMID_SIZE):
                card = self._pyramid[i]
                cover = self.covering(i)
                if card is not None and len(cover) == 1 and self.is_free(cover[0]):
                    other = self._pyramid[cover[0]]
                    if other is not None and card.value + other.value == 13:
                        moves.append(Move("pair", (i, cover[0])))
        if self._stock:
            moves.append(Move(_DRAW))
        elif self.can_turn:
            moves.append(Move(_TURN))
        return moves

    # ------------------------------------------------------------------ actions
    def tap(self, spot: Spot) -> Effect:
        """The one action a player has: tap a pyramid card, the waste, the stock (or ``under``)."""
        spot = self._check_spot(spot)
        if len(self.actions) >= MAX_ACTIONS:
            return ActionLimit(MAX_ACTIONS)
        return self._tap(spot)

    def _tap(self, spot: Spot) -> Effect:
        self.actions.append(spot)
        if self._outcome is not None:
            return GameOver(self._outcome)
        if spot == STOCK:
            return self._tap_stock()
        card = self.card_at(spot)
        if card is None:
            return NothingToDo(spot)
        if not self._selectable(spot):
            return Blocked(spot, card)
        if card.is_king:
            return self._remove((spot,), "king")
        if self.selected is None:
            self.selected = spot
            return Selected(spot, card)
        if self.selected == spot:
            self.selected = None
            return Deselected(spot, card)
        first_spot = self.selected
        first = self.card_at(first_spot)
        assert first is not None
        if first.value + card.value != 13:
            self.selected = spot
            return SumNot13(first, card, spot)
        if not self._pair_legal(first_spot, spot):
            # The sum is right but one of the two is still covered (by a card other than its partner).
            blocked_spot, blocked_card = (spot, card) if self._blocks(spot, first_spot) else (first_spot, first)
            self.selected = spot
            return Blocked(blocked_spot, blocked_card)
        return self._remove((first_spot, spot), "pair")

    def tap_card(self, name: str | Card) -> Effect:
        """Tap a card given by name (``"K♦"``, ``"kd"``): its pyramid place or the waste top."""
        try:
            card = Card.parse(name)
        except InvalidCard as error:
            return UnknownCard(str(name), str(error))
        if card in self._pyramid:
            return self.tap(self._pyramid.index(card))
        for spot in (WASTE, UNDER):
            if self.card_at(spot) == card:
                return self.tap(spot)
        return NotInPlay(card, removed=card in self.deal.pyramid)

    def play(self, move: Move) -> Effect:
        """Make a move from ``legal_moves`` through taps, as a player would."""
        if move.kind in (_DRAW, _TURN):
            return self.tap(STOCK)
        if move.kind == "king":
            return self.tap(move.spots[0])
        first, second = move.spots
        if self.selected == second:
            first, second = second, first
        if self.selected is not None and self.selected != first:
            self.tap(self.selected)  # put the other selection back
        if self.selected != first:
            self.tap(first)
        return self.tap(second)

    def undo(self) -> Effect:
        """Take back the last action (up to 100); the move counter does not go down."""
        if len(self.actions) >= MAX_ACTIONS:
            return ActionLimit(MAX_ACTIONS)
        return self._undo()

    def _undo(self) -> Effect:
        self.actions.append(UNDO)
        if self._outcome is not None:
            return GameOver(self._outcome)
        if not self._history:
            return NothingToUndo()
        item = self._history.pop()
        self.selected = None
        self.version += 1
        if item == _DRAW:
            self._stock.append(self._waste.pop())
            return Undone(_DRAW, 0)
        if item == _TURN:
            self._waste = list(reversed(self._stock))
            self._stock = []
            self.passes -= 1
            return Undone(_TURN, 0)
        assert isinstance(item, _Removal)
        for index, card in item.pyramid:
            self._pyramid[index] = card
        self._waste.extend(item.waste)
        self.score -= item.points
        self._update_outcome()
        return Undone(item.kind, item.points)

    # ---------------------------------------------------------------- internals
    def _check_spot(self, spot: object) -> Spot:
        if isinstance(spot, int) and not isinstance(spot, bool):
            if 0 <= spot < PYRAMID_SIZE:
                return spot
        elif isinstance(spot, str) and spot.lower() in (WASTE, STOCK, UNDER):
            return spot.lower()
        raise InvalidSpot(f"{spot!r} is not a spot: use a pyramid index 0-27, 'waste', 'stock' or 'under'")

    def _passes_left(self) -> bool:
        return self.rules.pass_limit is None or self.passes < self.rules.pass_limit

    def _tap_stock(self) -> Effect:
        if self._stock:
            card = self._stock.pop()
            self._waste.append(card)
            self._after_stock_action(_DRAW)
            return Drew(card)
        if not self._waste:
            return NothingToDo(STOCK)
        if not self._passes_left():
            return NoPassesLeft(self.rules.pass_limit or 0)
        count = len(self._waste)
        self._stock = list(reversed(self._waste))
        self._waste = []
        self.passes += 1
        self._after_stock_action(_TURN)
        return TurnedBack(count, self.passes)

    def _after_stock_action(self, item: str) -> None:
        if self.selected in (WASTE, UNDER):
            self.selected = None
        self.moves += 1
        self.version += 1
        self._history.append(item)
        self._update_outcome()

    def _selectable(self, spot: Spot) -> bool:
        card = self.card_at(spot)
        if card is None:
            return False
        if not isinstance(spot, int):
            return spot == WASTE or not card.is_king
        if self.is_free(spot):
            return True
        if not self.rules.pair_with_cover or card.is_king:
            return False
        cover = self.covering(spot)
        return len(cover) == 1 and self.is_free(cover[0])

    def _blocks(self, spot: Spot, partner: Spot) -> bool:
        """Whether ``spot`` cannot take part in a pair with ``partner`` because of where it lies."""
        if isinstance(spot, int):
            allowed = (partner,) if self.rules.pair_with_cover else ()
            return any(c not in allowed for c in self.covering(spot))
        return spot == UNDER and partner != WASTE

    def _pair_legal(self, a: Spot, b: Spot) -> bool:
        return not self._blocks(a, b) and not self._blocks(b, a)

    def _remove(self, spots: tuple[Spot, ...], kind: str) -> Effect:
        cards = tuple(self.card_at(spot) for spot in spots)
        pyramid = tuple((spot, self._pyramid[spot]) for spot in sorted(s for s in spots if isinstance(s, int)))
        taken = sum(1 for spot in spots if not isinstance(spot, int))
        waste = tuple(self._waste[len(self._waste) - taken :])
        for index, _ in pyramid:
            self._pyramid[index] = None
        del self._waste[len(self._waste) - taken :]
        points = POINTS_PER_CARD * len(pyramid)
        self.score += points
        self.moves += 1
        self.version += 1
        self.selected = None
        self._history.append(_Removal(kind, pyramid, waste, points))  # type: ignore[arg-type]
        self._update_outcome()
        if kind == "king":
            return KingRemoved(spots[0], cards[0], points)  # type: ignore[arg-type]
        return PairRemoved(spots, cards, points)  # type: ignore[arg-type]

    def _update_outcome(self) -> None:
        cleared = all(card is None for card in self._pyramid)
        if cleared and (not self.rules.strict_win or not (self._stock or self._waste)):
            self._outcome = GameResult.WON
        elif self._stock or self.can_turn:
            self._outcome = None  # a card to draw or a waste to turn back: the game goes on
        elif not self.legal_moves():
            self._outcome = GameResult.STUCK
        else:
            self._outcome = None

    def __repr__(self) -> str:
        return f"<Game {self.code} score={self.score} moves={self.moves} outcome={self._outcome}>"
