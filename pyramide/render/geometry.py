"""Where everything on a picture sits and what colour it is: the numbers every picture shares.

Plain numbers (no Pillow): the board is 690 px wide, Discord shows it at about 550 px on a desktop and
400 px on a phone, and the outlines of a selected or hinted card are drawn thick enough to be seen at
400 px."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import style
from ..game import PYRAMID_SIZE, ROWS, index_of
from ..style import TABLES, Corners, Deck, Felt

# The fonts and the palette ship inside the package (pyramide/assets links to the top-level assets/
# folder), so an installed wheel draws exactly as a checkout does, never with whatever the system has.
ASSETS = Path(__file__).resolve().parent.parent / "assets"
FONT_BOLD = ASSETS / "DejaVuSans-Bold.ttf"
FONT_REGULAR = ASSETS / "DejaVuSans.ttf"
PALETTE_FILE = ASSETS / "palette.bin"  # the default style's


def palette_file(deck: Deck, table: Felt) -> Path:
    """The shipped palette of a deck on a table (the corners' size changes no colour)."""
    if (deck, table) == (Deck.CLASSIC, Felt.GREEN):
        return PALETTE_FILE
    return ASSETS / f"palette-{deck.value}-{table.value}.bin"

WIDTH = 690
CARD_W, CARD_H = 80, 112
GAP = 8
ROW_STEP = CARD_H // 2  # each row covers the lower half of the row above
TOP = 20
RAISE = 6  # the selected card lifts by this much (no more than RING: its ring covers where it lay)
RING = 6  # width of the outline of a selected or hinted card: about 3.5 px on a 400 px phone picture
RADIUS = 9
FAN = 26  # horizontal step between the visible waste cards
MARGIN = 16
STOCK_X, STOCK_Y = MARGIN, TOP
WASTE_RIGHT = WIDTH - MARGIN
FOOTER_Y = TOP + (ROWS - 1) * ROW_STEP + CARD_H + 14  # top of the footer band
HEIGHT = FOOTER_Y + 32
PNG_LEVEL = 1  # ISA-L level 1 (0 is 20% larger, 2 and 3 no smaller on a board)

# The default style's table (pyramide.style holds every table's and deck's colours).
TABLE_TOP = TABLES[Felt.GREEN].top
TABLE_BOTTOM = TABLES[Felt.GREEN].bottom
BAND = TABLES[Felt.GREEN].band
FACE = (252, 252, 247)
FACE_EDGE = (60, 60, 60)
RED = style.RED
BLACK = style.BLACK
SELECT = (255, 196, 0)
HINT = (0, 200, 255)
PLAYABLE = (70, 190, 90)  # inner border of a covered card that the card-with-cover rule lets you take
SLOT_LINE = TABLES[Felt.GREEN].slot_line
TEXT = TABLES[Felt.GREEN].text
MUTED = TABLES[Felt.GREEN].muted
GOLD = (255, 215, 80)
WHITE = (255, 255, 255)
BACK_FIELD, BACK_LINES, BACK_EDGE = (36, 70, 150), (70, 110, 190), (250, 250, 250)



# The corner of a card face: the rank's font size (``wide``: a two-letter rank such as 10), its left and top,
# and the suit's size. Large corners are for phones: the rank about a third taller, still within the top half
# of the card that a covered card shows (the row below covers the rest).
@dataclass(frozen=True, slots=True)
class Corner:
    rank: int
    wide: int
    rank_xy: tuple[int, int]
    suit: int
    suit_xy: tuple[int, int]  # its top right
    pip: int


CORNERS: dict[Corners, Corner] = {
    Corners.NORMAL: Corner(rank=34, wide=28, rank_xy=(6, 3), suit=28, suit_xy=(CARD_W - 5, 5), pip=44),
    Corners.LARGE: Corner(rank=46, wide=40, rank_xy=(4, 0), suit=36, suit_xy=(CARD_W - 3, 2), pip=50),
}

# Where the words sit (top of each line of text).
PILE_LABEL_Y = TOP + CARD_H + 6
PILE_COUNT_Y = PILE_LABEL_Y + 18
PILE_PASS_Y = PILE_COUNT_Y + 22
PILE_TEXT_WIDTH = 150  # the words under a pile shrink to this width, clear of the pyramid
EDGE = 6  # no text closer than this to the picture's edges
BANNER_TOP, BANNER_BOTTOM = 172, 256


# The regions the piles and the footer are drawn in: nothing of the pyramid (rings included) reaches
# into them, so each is drawn once for what it shows and pasted whole after that.
STOCK_BOX = (0, 0, EDGE + PILE_TEXT_WIDTH + 4, PILE_PASS_Y + 22)
WASTE_BOX = (WIDTH - EDGE - PILE_TEXT_WIDTH - 6, 0, WIDTH, PILE_COUNT_Y + 22)
FOOTER_BOX = (0, FOOTER_Y, WIDTH, HEIGHT)


def card_position(index: int) -> tuple[int, int]:
    """Top-left pixel of pyramid card ``index``."""
    return _POSITIONS[index]


def _card_position(index: int) -> tuple[int, int]:
    row = 0
    while index_of(row + 1, 0) <= index:
        row += 1
    col = index - index_of(row, 0)
    width = (row + 1) * CARD_W + row * GAP
    x = (WIDTH - width) // 2 + col * (CARD_W + GAP)
    return x, TOP + row * ROW_STEP


_POSITIONS = tuple(_card_position(i) for i in range(PYRAMID_SIZE))


def waste_positions(count: int) -> list[tuple[int, int]]:
    """Top-left pixels of the visible waste cards (at most three), bottom to top."""
    shown = min(count, 3)
    x0 = WASTE_RIGHT - CARD_W - (shown - 1) * FAN
    return [(x0 + i * FAN, TOP) for i in range(shown)]
