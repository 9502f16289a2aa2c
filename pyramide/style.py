"""A player's style of cards and table: plain data, the same for every picture of a game they started,
for the board's buttons and for the Activity (``Style.to_json``), which draws each viewer's own.

Standard library only: the renderer reads the colours from here, storage keeps the three names, and the
Activity's page gets them as JSON. Colour is never the only sign: a suit keeps its symbol in every deck.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

RGB = tuple[int, int, int]


class Deck(StrEnum):
    CLASSIC = "classic"  # ♥ ♦ red, ♠ ♣ black
    FOUR_COLOUR = "four-colour"  # ♠ black, ♥ red, ♦ blue, ♣ green


class Corners(StrEnum):
    NORMAL = "normal"
    LARGE = "large"  # a larger rank and suit on every card, for phones


class Felt(StrEnum):
    """The table's colour (``Felt``: ``Table`` is the storage schema's word for a table of rows)."""

    GREEN = "green"
    BLUE = "blue"
    DARK = "dark"


BLACK: RGB = (20, 20, 20)
RED: RGB = (200, 20, 30)
# Chosen with the simulations of tests/test_style.py: under deuteranopia and protanopia the blue stays a
# blue, the red and the green (a sea green: a pure one turns the red's olive) keep a CIEDE2000 distance
# of 18 or more, and each has at least WCAG AA contrast (4.5:1) on the white card.
BLUE: RGB = (20, 80, 220)
GREEN: RGB = (40, 128, 100)

CLASSIC_SUITS: tuple[RGB, RGB, RGB, RGB] = (BLACK, RED, RED, BLACK)  # ♠ ♥ ♦ ♣
FOUR_COLOUR_SUITS: tuple[RGB, RGB, RGB, RGB] = (BLACK, RED, BLUE, GREEN)


@dataclass(frozen=True, slots=True)
class TableColours:
    """A table's colours: its gradient (top to bottom), the footer band, the text on it (``text`` the
    figures, ``muted`` the labels and the deal code), the outline of an empty place and the mark of an
    empty stock that can turn, and the tint that darkens covered cards."""

    top: RGB
    bottom: RGB
    band: RGB
    text: RGB
    muted: RGB
    slot_line: RGB
    mark: RGB
    dim: RGB


TABLES: dict[Felt, TableColours] = {
    Felt.GREEN: TableColours(
        top=(22, 94, 56),
        bottom=(12, 62, 36),
        band=(8, 40, 24),
        text=(240, 245, 240),
        muted=(170, 200, 180),
        slot_line=(92, 140, 112),
        mark=(150, 190, 165),
        dim=(40, 60, 50),
    ),
    Felt.BLUE: TableColours(
        top=(22, 70, 128),
        bottom=(12, 44, 88),
        band=(8, 26, 56),
        text=(240, 244, 250),
        muted=(180, 200, 228),
        slot_line=(96, 128, 176),
        mark=(160, 186, 220),
        dim=(36, 48, 72),
    ),
    Felt.DARK: TableColours(
        top=(46, 48, 54),
        bottom=(26, 27, 31),
        band=(14, 14, 16),
        text=(242, 242, 242),
        muted=(190, 192, 200),
        slot_line=(110, 112, 122),
        mark=(170, 172, 182),
        dim=(30, 30, 34),
    ),
}


class StyleError(ValueError):
    """A value that names no choice: ``field`` (deck, corners or table), what was given and the choices."""

    def __init__(self, field: str, value: str, choices: tuple[str, ...]) -> None:
        super().__init__(f"no {field} {value!r}; the choices are {', '.join(choices)}")
        self.field = field
        self.value = value
        self.choices = choices


FIELDS: dict[str, type[StrEnum]] = {"deck": Deck, "corners": Corners, "table": Felt}


def choices(field: str) -> tuple[str, ...]:
    return tuple(member.value for member in FIELDS[field])


@dataclass(frozen=True, slots=True)
class Style:
    deck: Deck = Deck.CLASSIC
    corners: Corners = Corners.NORMAL
    table: Felt = Felt.GREEN

    @classmethod
    def parse(cls, deck: str, corners: str, table: str) -> Style:
        """The style the three names give; ``StyleError`` for a name that is no choice."""
        found: dict[str, Any] = {}
        for field, value in (("deck", deck), ("corners", corners), ("table", table)):
            try:
                found[field] = FIELDS[field](value.strip().lower())
            except ValueError:
                raise StyleError(field, value, choices(field)) from None
        return cls(**found)

    def with_values(self, **values: str | None) -> Style:
        """This style with the given names changed (``None`` keeps one); ``StyleError`` as ``parse``."""
        current = {"deck": self.deck.value, "corners": self.corners.value, "table": self.table.value}
        current.update({field: value for field, value in values.items() if value is not None})
        return Style.parse(current["deck"], current["corners"], current["table"])

    def __str__(self) -> str:
        return f"{self.deck.value}/{self.corners.value}/{self.table.value}"

    @property
    def is_default(self) -> bool:
        return self == DEFAULT

    @property
    def suits(self) -> tuple[RGB, RGB, RGB, RGB]:
        """The colour of each suit, ♠ ♥ ♦ ♣."""
        return FOUR_COLOUR_SUITS if self.deck is Deck.FOUR_COLOUR else CLASSIC_SUITS

    def suit_colour(self, suit: int) -> RGB:
        return self.suits[suit]

    @property
    def colours(self) -> TableColours:
        return TABLES[self.table]

    def to_json(self) -> dict[str, Any]:
        """The style as JSON-ready data for a client that draws cards itself (the Activity): the three
        names, each suit's colour and the table's colours as ``#rrggbb``, and how much larger the corners are."""
        table = self.colours
        return {
            "deck": self.deck.value,
            "corners": self.corners.value,
            "table": self.table.value,
            "suits": {letter: _hex(colour) for letter, colour in zip("SHDC", self.suits, strict=True)},
            "cornerScale": CORNER_SCALE[self.corners],
            "tableColours": {name: _hex(getattr(table, name)) for name in TableColours.__slots__},
        }


# The corner's rank and suit, relative to the normal corner (the renderer's sizes follow it).
CORNER_SCALE: dict[Corners, float] = {Corners.NORMAL: 1.0, Corners.LARGE: 1.35}

DEFAULT = Style()


def _hex(colour: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)
