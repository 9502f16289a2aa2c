"""A player's style on the board: the twelve reference images, the suits told apart by colour-blind players,
readable text on every table, the outlines and symbols kept, and caches that never mix two styles."""

import io
import itertools
import math
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pyramide import STOCK
from pyramide.cards import Card
from pyramide.render import (
    CARD_H,
    CARD_W,
    FACE,
    HEIGHT,
    HINT,
    PILE_LABEL_Y,
    PILE_PASS_Y,
    SELECT,
    STOCK_X,
    STOCK_Y,
    WIDTH,
    build_palette,
    card_position,
    clear_caches,
    faces_for,
    palette_file,
    render_board,
    render_image,
)
from pyramide.style import (
    CLASSIC_SUITS,
    DEFAULT,
    FOUR_COLOUR_SUITS,
    TABLES,
    Corners,
    Deck,
    Felt,
    Style,
)
from tests.reference.positions import mid_game
from tests.reference.style_scenes import OPTIONS, STYLES
from tests.support.deals import example_game

REFERENCE = Path(__file__).parent / "reference"
ALL_STYLES = [Style(d, c, t) for d, c, t in itertools.product(Deck, Corners, Felt)]


def board(style: Style, game=None, **options) -> Image.Image:
    return Image.open(io.BytesIO(render_board(game or mid_game(), style=style, **(options or OPTIONS)))).convert("RGB")


@pytest.mark.parametrize("name", sorted(STYLES))
def test_reference_images_of_every_style(name):
    expected = Image.open(REFERENCE / f"{name}.png").convert("RGB")
    actual = board(STYLES[name])
    assert actual.size == expected.size
    changed = sum(ImageChops.difference(actual, expected).convert("L").histogram()[40:])
    assert changed / (WIDTH * HEIGHT) < 0.005, (
        f"{name}: {changed} pixels differ; if the design changed on purpose, run tests/reference/regenerate.py"
    )


def test_the_styles_reference_images_are_twelve_different_pictures():
    pictures = {name: Image.open(REFERENCE / f"{name}.png").convert("L") for name in STYLES}
    assert len(pictures) == 12
    for (a, first), (b, second) in itertools.combinations(pictures.items(), 2):
        assert ImageChops.difference(first, second).getbbox() is not None, f"{a} and {b} look the same"


def test_the_default_style_is_todays_board_byte_for_byte():
    game = mid_game()
    assert render_board(game, now=1000.0) == render_board(game, now=1000.0, style=DEFAULT)
    assert (REFERENCE / "mid_game.png").read_bytes() == render_board(game, now=1000.0)


@pytest.mark.parametrize("style", [s for s in ALL_STYLES if s.corners is Corners.NORMAL], ids=str)
def test_the_shipped_palettes_are_the_ones_the_sprites_need(style):
    assert palette_file(style.deck, style.table).read_bytes() == build_palette(style), (
        "run tests/reference/regenerate.py after a design change"
    )


# --- Colour-blind players ---

# Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for Simulation of Color Vision
# Deficiency", IEEE TVCG 15(6), 1291-1298: the matrices for severity 1.0, applied to linear RGB.
PROTANOPIA = ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998))
DEUTERANOPIA = ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881))
# CIEDE2000 (Sharma, Wu & Dalal 2005's formulation): 1 is about the smallest difference one sees side by side;
# 15 is a difference seen at a glance, across a table, whatever the two colours are.
APART = 15.0


def _linear(value: float) -> float:
    value /= 255
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def _encoded(value: float) -> float:
    value = min(1.0, max(0.0, value))
    return 255 * (12.92 * value if value <= 0.0031308 else 1.055 * value ** (1 / 2.4) - 0.055)


def simulate(matrix, rgb):
    linear = [_linear(c) for c in rgb]
    return tuple(_encoded(sum(m * c for m, c in zip(row, linear, strict=True))) for row in matrix)


def lab(rgb):
    r, g, b = (_linear(c) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(first, second):
    (l1, a1, b1), (l2, a2, b2) = first, second
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 if abs(h2 - h1) <= 180 else h2 - h1 - 360 if h2 > h1 else h2 - h1 + 360)
    d_big_h = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_bar, c_bar = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_bar = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_bar = (h1 + h2) / 2
    else:
        h_bar = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_bar - 30))
        + 0.24 * math.cos(math.radians(2 * h_bar))
        + 0.32 * math.cos(math.radians(3 * h_bar + 6))
        - 0.20 * math.cos(math.radians(4 * h_bar - 63))
    )
    rotation = (
        -math.sin(math.radians(60 * math.exp(-(((h_bar - 275) / 25) ** 2))))
        * 2
        * math.sqrt(c_bar**7 / (c_bar**7 + 25**7))
    )
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_bar, 1 + 0.015 * c_bar * t
    dl, dc, dh2 = (l2 - l1) / s_l, (c2 - c1) / s_c, d_big_h / s_h
    return math.sqrt(dl**2 + dc**2 + dh2**2 + rotation * dc * dh2)


def test_ciede2000_agrees_with_sharmas_published_pairs():
    # Pairs 1, 7 and 17 of the test data published with Sharma, Wu & Dalal (2005).
    assert ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert ciede2000((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-4)
    assert ciede2000((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)


@pytest.mark.parametrize("name, matrix", [("protanopia", PROTANOPIA), ("deuteranopia", DEUTERANOPIA)])
def test_the_four_suits_stay_apart_for_colour_blind_players(name, matrix):
    seen = [lab(simulate(matrix, colour)) for colour in FOUR_COLOUR_SUITS]
    for (i, first), (j, second) in itertools.combinations(enumerate(seen), 2):
        distance = ciede2000(first, second)
        assert distance > APART, f"{name}: {'♠♥♦♣'[i]} and {'♠♥♦♣'[j]} only {distance:.1f} apart"


def test_the_simulation_does_merge_red_and_green_as_those_players_see_them():
    """The check above can fail: a pure red and a pure green, far apart to most eyes, merge under it."""
    red, green = (200, 20, 30), (0, 128, 0)
    assert ciede2000(lab(red), lab(green)) > 50
    assert ciede2000(lab(simulate(DEUTERANOPIA, red)), lab(simulate(DEUTERANOPIA, green))) < APART


def test_the_classic_red_and_the_four_colour_blue_already_differ():
    assert ciede2000(lab(CLASSIC_SUITS[2]), lab(FOUR_COLOUR_SUITS[2])) > APART
    assert CLASSIC_SUITS[1] == FOUR_COLOUR_SUITS[1] and CLASSIC_SUITS[0] == FOUR_COLOUR_SUITS[0]


# --- Readable text (WCAG 2.x) ---


def contrast(first, second):
    def luminance(rgb):
        r, g, b = (_linear(c) for c in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("table", list(Felt))
def test_every_table_keeps_its_words_readable(table):
    """The labels and counts under the piles and the footer, on the board's own background where they lie:
    WCAG AA (4.5:1) for the muted labels, and the figures no less readable than on today's green table."""
    colours = TABLES[table]
    image = render_image(example_game(), style=Style(table=table))
    behind = [image.getpixel((2, y)) for y in range(PILE_LABEL_Y, PILE_PASS_Y + 20)] + [image.getpixel((2, HEIGHT - 2))]
    assert min(contrast(colours.muted, colour) for colour in behind) >= 4.5
    assert min(contrast(colours.text, colour) for colour in behind) >= 7.0


@pytest.mark.parametrize("deck", list(Deck))
def test_every_suit_is_readable_on_the_white_card(deck):
    for colour in Style(deck=deck).suits:
        assert contrast(colour, FACE) >= 4.5


# --- What the player sees ---


def _corner(image: Image.Image, index: int) -> Image.Image:
    x, y = card_position(index)
    return image.crop((x, y, x + CARD_W, y + CARD_H // 2))


def _colours(image: Image.Image) -> set[tuple[int, int, int]]:
    return {colour for _, colour in image.getcolors(1 << 16) or []}


def test_a_four_colour_deck_paints_diamonds_blue_and_clubs_green():
    game = example_game()
    free = {card.suit: index for index in range(21, 28) if (card := game.pyramid[index]) is not None}
    assert set(free) == {0, 1, 2, 3}, "the example deal's bottom row holds every suit"
    classic = render_image(game)
    four = render_image(game, style=Style(deck=Deck.FOUR_COLOUR))
    for suit, index in free.items():
        assert CLASSIC_SUITS[suit] in _colours(_corner(classic, index))
        seen = _colours(_corner(four, index))
        assert FOUR_COLOUR_SUITS[suit] in seen
        assert all(other not in seen for other in set(FOUR_COLOUR_SUITS) - {FOUR_COLOUR_SUITS[suit]})


def _ink(face: Image.Image, box: tuple[int, int, int, int], colour=None) -> Image.Image:
    """Where a face has ink inside ``box`` (of ``colour`` only: not the card's grey outline), as a mask."""
    rgb = face.convert("RGB").crop(box)
    if colour is None:
        return rgb.convert("L").point(lambda v: 255 if v < 200 else 0)
    near = ImageChops.difference(rgb, Image.new("RGB", rgb.size, colour)).convert("L")
    return near.point(lambda v: 255 if v < 40 else 0)


@pytest.mark.parametrize("deck", list(Deck))
def test_suits_keep_their_symbols_whatever_their_colour(deck):
    """Colour is never the only sign: every suit's corner has a shape of its own, in every deck."""
    faces = faces_for((), Style(deck=deck)).free
    suits = [_ink(faces[Card(5, suit)], (CARD_W // 2, 3, CARD_W - 3, CARD_H // 2)) for suit in range(4)]
    for first, second in itertools.combinations(suits, 2):
        assert sum(ImageChops.difference(first, second).histogram()[128:]) > 40


@pytest.mark.parametrize("style", ALL_STYLES, ids=str)
def test_the_selection_and_the_hint_keep_their_outlines_in_every_style(style):
    image = board(style)
    x, y = STOCK_X, STOCK_Y
    ring = image.crop((x - 5, y - 5, x + CARD_W + 5, y + 1))  # the hinted stock's ring, above the card
    assert HINT in _colours(ring)
    selected = mid_game().selected
    assert isinstance(selected, int)
    sx, sy = card_position(selected)
    assert SELECT in _colours(image.crop((sx - 5, sy - 12, sx + CARD_W + 5, sy - 6)))


def test_large_corners_draw_a_taller_rank_and_suit():
    def height(corners, box):
        face = faces_for((), Style(corners=corners)).free[Card(8, 1)]
        found = _ink(face, box, CLASSIC_SUITS[1]).getbbox()
        assert found is not None
        return found[3] - found[1]

    rank, suit = (0, 0, CARD_W // 2, CARD_H // 2), (CARD_W // 2, 0, CARD_W, CARD_H // 2)
    assert height(Corners.LARGE, rank) >= 1.3 * height(Corners.NORMAL, rank)
    assert height(Corners.LARGE, suit) >= 1.2 * height(Corners.NORMAL, suit)


def test_two_styles_never_share_a_cached_picture():
    game = mid_game()
    clear_caches()
    first = render_board(game, now=1000.0)
    dark = render_board(game, now=1000.0, style=Style(table=Felt.DARK))
    four = render_board(game, now=1000.0, style=Style(deck=Deck.FOUR_COLOUR, table=Felt.DARK))
    assert len({first, dark, four}) == 3
    assert render_board(game, now=1000.0) == first
    clear_caches()
    assert render_board(game, now=1000.0, style=Style(table=Felt.DARK)) == dark


def test_the_empty_stock_is_drawn_on_the_styles_table():
    game = example_game()
    while game.stock:
        game.tap(STOCK)
    image = render_image(game, style=Style(table=Felt.BLUE))
    assert TABLES[Felt.BLUE].slot_line in _colours(image.crop((STOCK_X, STOCK_Y, STOCK_X + CARD_W, STOCK_Y + 4)))
