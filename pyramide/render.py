"""The board as a PNG, drawn with Pillow. The only module of the package that imports PIL.

A board is composed directly in palette ("P") mode from sprites that were drawn once and
converted to one fixed 256-colour palette (shipped in ``assets/palette.bin``): the table, card
faces, backs, outlines, and every run of text, each baked onto the background it sits on. A press
therefore costs a copy of the table, some thirty masked pastes of bytes and the PNG encoding; no
quantizing, no antialiasing and (once the words of a language are cached) no FreeType.

The picture is 690 px wide: Discord shows a board at about 550 px on a desktop and 400 px on a
phone, and the outlines of a selected or hinted card are drawn thick enough to be seen at 400 px.

Safe to call from worker threads: the caches are built under a lock and fonts are per thread
(FreeType faces are not shared between threads).
"""

from __future__ import annotations

import functools
import io
import struct
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

from PIL import Image, ImageDraw, ImageFont

try:  # ISA-L's deflate: the same format as zlib's, five times faster on a board
    from isal import isal_zlib as deflate
except ImportError:  # pragma: no cover - a platform without isal wheels
    deflate = zlib  # type: ignore[misc]

from .cards import Card, full_deck
from .events import Outcome, Spot
from .game import PYRAMID_SIZE, ROWS, STOCK, UNDER, WASTE, Game, index_of
from .labels import Labels, format_duration

# The fonts and the palette ship inside the package (pyramide/assets links to the top-level assets/
# folder), so an installed wheel draws exactly as a checkout does, never with whatever the system has.
ASSETS = Path(__file__).resolve().parent / "assets"
FONT_BOLD = ASSETS / "DejaVuSans-Bold.ttf"
FONT_REGULAR = ASSETS / "DejaVuSans.ttf"
PALETTE_FILE = ASSETS / "palette.bin"

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

TABLE_TOP = (22, 94, 56)
TABLE_BOTTOM = (12, 62, 36)
BAND = (8, 40, 24)
FACE = (252, 252, 247)
FACE_EDGE = (60, 60, 60)
RED = (200, 20, 30)
BLACK = (20, 20, 20)
SELECT = (255, 196, 0)
HINT = (0, 200, 255)
PLAYABLE = (70, 190, 90)  # inner border of a covered card that the card-with-cover rule lets you take
SLOT_LINE = (92, 140, 112)
TEXT = (240, 245, 240)
MUTED = (170, 200, 180)
GOLD = (255, 215, 80)
WHITE = (255, 255, 255)
BACK_FIELD, BACK_LINES, BACK_EDGE = (36, 70, 150), (70, 110, 190), (250, 250, 250)

# Where the words sit (top of each line of text).
PILE_LABEL_Y = TOP + CARD_H + 6
PILE_COUNT_Y = PILE_LABEL_Y + 18
PILE_PASS_Y = PILE_COUNT_Y + 22
PILE_TEXT_WIDTH = 150  # the words under a pile shrink to this width, clear of the pyramid
EDGE = 6  # no text closer than this to the picture's edges
BANNER_TOP, BANNER_BOTTOM = 172, 256


_local = threading.local()
_lock = threading.Lock()


def _font(size: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    fonts = getattr(_local, "fonts", None)
    if fonts is None:
        fonts = _local.fonts = {}
    key = (size, bold)
    if key not in fonts:
        fonts[key] = ImageFont.truetype(str(FONT_BOLD if bold else FONT_REGULAR), size)
    return fonts[key]


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


# --- Drawing the sprites (once per process), in RGB(A), before they are put into the palette ---


def _rounded_mask(size: tuple[int, int], radius: int) -> Image.Image:
    mask = Image.new("1", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius, fill=1)
    return mask


def _face(card: Card, centre_pip: bool = True, rank: str | None = None, border: tuple | None = None) -> Image.Image:
    image = Image.new("RGB", (CARD_W, CARD_H), FACE)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), RADIUS, fill=FACE, outline=FACE_EDGE, width=2)
    if border is not None:
        draw.rounded_rectangle((2, 2, CARD_W - 3, CARD_H - 3), RADIUS - 2, outline=border, width=4)
    colour = RED if card.is_red else BLACK
    text = rank or card.rank_name
    draw.text((6, 3), text, font=_font(34 if len(text) == 1 else 28), fill=colour)
    draw.text((CARD_W - 5, 5), card.suit_symbol, font=_font(28, bold=False), fill=colour, anchor="ra")
    if centre_pip:  # covered cards show only their top half; a pip would peek through the gaps
        draw.text((CARD_W // 2, CARD_H - 30), card.suit_symbol, font=_font(44, bold=False), fill=colour, anchor="mm")
    return image


def _dimmed(face: Image.Image) -> Image.Image:
    return Image.blend(face, Image.new("RGB", face.size, (40, 60, 50)), 95 / 255)


def _back() -> Image.Image:
    image = Image.new("RGB", (CARD_W, CARD_H), BACK_EDGE)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), RADIUS, fill=BACK_EDGE, outline=FACE_EDGE, width=2)
    field = Image.new("RGB", (CARD_W - 12, CARD_H - 12), BACK_FIELD)
    lines = ImageDraw.Draw(field)
    for offset in range(-CARD_H, CARD_W, 11):
        lines.line((offset, 0, offset + CARD_H, CARD_H), fill=BACK_LINES, width=2)
    image.paste(field, (6, 6), _rounded_mask(field.size, RADIUS - 3))
    return image


def _table_rgb() -> Image.Image:
    """The green table with a vertical gradient and the dark footer band."""
    image = Image.new("RGB", (WIDTH, HEIGHT), TABLE_TOP)
    draw = ImageDraw.Draw(image)
    for y in range(FOOTER_Y):
        t = y / (FOOTER_Y - 1)
        colour = tuple(round(a + (b - a) * t) for a, b in zip(TABLE_TOP, TABLE_BOTTOM, strict=True))
        draw.line((0, y, WIDTH, y), fill=colour)
    draw.rectangle((0, FOOTER_Y, WIDTH, HEIGHT), fill=BAND)
    return image


def _empty_pile(table: Image.Image, mark: str) -> Image.Image:
    """An empty stock or waste place, drawn on the table where the piles are (nothing overlaps them)."""
    image = table.crop((STOCK_X, STOCK_Y, STOCK_X + CARD_W, STOCK_Y + CARD_H))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((1, 1, CARD_W - 2, CARD_H - 2), RADIUS, outline=SLOT_LINE, width=2)
    if mark:
        draw.text((CARD_W // 2, CARD_H // 2), mark, font=_font(42), fill=(150, 190, 165), anchor="mm")
    return image


def _ring_mask() -> Image.Image:
    return _rounded_mask((CARD_W + 2 * RING, CARD_H + 2 * RING), RADIUS + RING)


def _slot_mask() -> Image.Image:
    """Only the outline of an empty pyramid place: the cards above must show through it."""
    outer = _rounded_mask((CARD_W, CARD_H), RADIUS)
    inner = Image.new("1", (CARD_W, CARD_H), 0)
    ImageDraw.Draw(inner).rounded_rectangle((3, 3, CARD_W - 4, CARD_H - 4), RADIUS - 2, fill=1)
    return Image.composite(Image.new("1", outer.size, 0), outer, inner)


def _exact_colours(table: Image.Image) -> list[tuple[int, int, int]]:
    """Colours that must be reproduced exactly: every shade of the table and the marks' colours."""
    colours = dict.fromkeys(table.getpixel((0, y)) for y in range(HEIGHT))
    marks = (FACE, FACE_EDGE, RED, BLACK, SELECT, HINT, PLAYABLE, SLOT_LINE, TEXT, MUTED, GOLD, WHITE)
    for colour in (*marks, BACK_FIELD, BACK_LINES, BACK_EDGE):
        colours[colour] = None
    return list(colours)  # type: ignore[arg-type]


def build_palette() -> bytes:
    """The fixed palette (768 bytes): the exact colours, then a median cut of a sheet of every sprite
    and of text on the table, so that antialiased edges find a close colour. Shipped in
    ``assets/palette.bin``; ``tests/reference/regenerate.py`` writes it after a design change."""
    table = _table_rgb()
    exact = _exact_colours(table)
    faces = [_face(card) for card in full_deck()]
    sprites = faces + [_dimmed(_face(c, centre_pip=False)) for c in full_deck()]
    sprites += [_face(c, centre_pip=False, border=PLAYABLE) for c in full_deck()[:8]]
    sprites += [_back(), _empty_pile(table, "↻")]
    columns = 13
    rows = -(-len(sprites) // columns)
    sheet = Image.new("RGB", (columns * (CARD_W + 8), rows * (CARD_H + 8) + 3 * HEIGHT), TABLE_TOP)
    for i, sprite in enumerate(sprites):
        sheet.paste(sprite, ((i % columns) * (CARD_W + 8), (i // columns) * (CARD_H + 8)))
    boards = rows * (CARD_H + 8)
    for k in range(3):  # text on the table, on the band, and on the darkened banner
        part = table.copy()
        draw = ImageDraw.Draw(part)
        for j, (colour, size) in enumerate(((TEXT, 20), (MUTED, 16), (GOLD, 48), (WHITE, 48))):
            for y in range(10 + j * 12, HEIGHT, 60):
                draw.text((10 + 40 * k, y), "Score 280 · Moves 113 · 0123456789 ÆØČŠЖЯ", font=_font(size), fill=colour)
        if k == 2:
            part = Image.blend(part, Image.new("RGB", part.size, (0, 0, 0)), 170 / 255)
        sheet.paste(part.crop((0, 0, min(WIDTH, sheet.width), HEIGHT)), (0, boards + k * HEIGHT))
    rest = sheet.quantize(colors=256 - len(exact), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    found = rest.getpalette() or []
    colours = [value for colour in exact for value in colour] + found[: 3 * (256 - len(exact))]
    return bytes(colours + [0] * (768 - len(colours)))


def _palette_image() -> Image.Image:
    data = PALETTE_FILE.read_bytes() if PALETTE_FILE.exists() else build_palette()
    image = Image.new("P", (1, 1))
    image.putpalette(data)
    return image


@dataclass(frozen=True)
class _Sprites:
    palette: Image.Image  # a 1×1 "P" image carrying the fixed palette
    table_rgb: Image.Image  # the table before it was put into the palette: the background text is drawn on
    table: Image.Image
    card_mask: Image.Image
    ring_mask: Image.Image
    slot_mask: Image.Image
    back: Image.Image
    empty_pile: Image.Image
    turn_pile: Image.Image
    select_ring: Image.Image
    hint_ring: Image.Image
    slot_line: Image.Image

    def to_palette(self, image: Image.Image) -> Image.Image:
        return image.quantize(palette=self.palette, dither=Image.Dither.NONE)


@dataclass(frozen=True)
class _Faces:
    free: dict[Card, Image.Image]
    covered: dict[Card, Image.Image]
    playable: dict[Card, Image.Image]  # covered, yet takeable under the card-with-cover rule


_sprites: _Sprites | None = None
_faces: dict[tuple[tuple[int, str], ...], _Faces] = {}


def sprites() -> _Sprites:
    """Build the sprite cache once (thread-safe)."""
    global _sprites
    if _sprites is None:
        with _lock:
            if _sprites is None:
                palette = _palette_image()

                def paletted(image: Image.Image) -> Image.Image:
                    return image.quantize(palette=palette, dither=Image.Dither.NONE)

                def solid(colour: tuple[int, int, int], size: tuple[int, int]) -> Image.Image:
                    return paletted(Image.new("RGB", size, colour))

                table = _table_rgb()
                ring = (CARD_W + 2 * RING, CARD_H + 2 * RING)
                _sprites = _Sprites(
                    palette=palette,
                    table_rgb=table,
                    table=_canvas(paletted(table)),
                    card_mask=_rounded_mask((CARD_W, CARD_H), RADIUS),
                    ring_mask=_ring_mask(),
                    slot_mask=_slot_mask(),
                    back=paletted(_back()),
                    empty_pile=paletted(_empty_pile(table, "")),
                    turn_pile=paletted(_empty_pile(table, "↻")),
                    select_ring=solid(SELECT, ring),
                    hint_ring=solid(HINT, ring),
                    slot_line=solid(SLOT_LINE, (CARD_W, CARD_H)),
                )
    return _sprites


def faces_for(ranks: tuple[tuple[int, str], ...] = ()) -> _Faces:
    """Card faces with the rank letters of a language (built once per language)."""
    found = _faces.get(ranks)
    if found is None:
        cache = sprites()
        with _lock:
            found = _faces.get(ranks)
            if found is None:
                names = dict(ranks)
                deck = full_deck()
                found = _faces[ranks] = _Faces(
                    free={c: cache.to_palette(_face(c, rank=names.get(c.rank))) for c in deck},
                    covered={c: cache.to_palette(_dimmed(_face(c, False, names.get(c.rank)))) for c in deck},
                    playable={c: cache.to_palette(_face(c, False, names.get(c.rank), PLAYABLE)) for c in deck},
                )
    return found


# --- Text: each run drawn once on the background at its height, then pasted as bytes ---


class _Recent:
    """A thread-safe cache of the most recently used images."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[tuple, Image.Image] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Image.Image | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple, image: Image.Image) -> Image.Image:
        with self._lock:
            self._items[key] = image
            if len(self._items) > self._size:
                self._items.popitem(last=False)
        return image

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_texts = _Recent(4096)


def _text(text: str, size: int, y: int, *, bold: bool = True, fill: tuple[int, int, int] = TEXT) -> Image.Image:
    """A run of text as a paletted image whose background is the table at height ``y``."""
    key = (text, size, y, bold, fill)
    found = _texts.get(key)
    if found is not None:
        return found
    cache = sprites()
    font = _font(size, bold)
    ascent, descent = font.getmetrics()
    left, _, right, _ = font.getbbox(text)
    width = max(1, max(right, int(font.getlength(text))) - min(0, left) + 2)
    height = min(ascent + descent, HEIGHT - y)
    image = cache.table_rgb.crop((0, y, width, y + height))
    ImageDraw.Draw(image).text((1 - min(0, left), 0), text, font=font, fill=fill)
    return _texts.put(key, cache.to_palette(image))


@functools.lru_cache(maxsize=4096)
def text_width(text: str, size: int, bold: bool = True) -> int:
    return int(_font(size, bold).getlength(text)) + 2


@functools.lru_cache(maxsize=8)
def _widest_code_letter(size: int) -> int:
    return max(text_width(letter, size, bold=False) for letter in CODE_LETTERS) - 2


def _canvas(table: Image.Image) -> Image.Image:
    """The table on a canvas one column wider: column 0 holds zeros, PNG's "no filter" byte, so that the
    canvas's bytes are the PNG's image data as they are (see ``_png``). Everything is drawn at x + 1."""
    canvas = Image.new("P", (table.width + 1, table.height), 0)
    canvas.putpalette(table.getpalette() or [])
    canvas.paste(table, (1, 0))
    return canvas


def _paste(image: Image.Image, sprite: Image.Image, xy: tuple[int, int], mask: Image.Image | None = None) -> None:
    """``Image.paste`` onto a canvas (board coordinates, shifted right by the filter column) without
    Pillow's Python-side checks (a third of a board's time): every image here is an in-memory image of
    the right mode, and every box lies inside the board."""
    x, y = xy
    x += 1
    box = (x, y, x + sprite.width, y + sprite.height)
    image.im.paste(sprite.im, box, mask.im) if mask is not None else image.im.paste(sprite.im, box)


def _put(image: Image.Image, run: Image.Image, x: int, y: int, align: str = "left") -> tuple[int, int, int, int]:
    if align == "centre":
        x -= run.width // 2
    elif align == "right":
        x -= run.width
    x = max(EDGE, min(x, WIDTH - EDGE - run.width))  # never off an edge
    _paste(image, run, (x, y))
    return x, y, x + run.width, y + run.height


def _pile_text(image: Image.Image, text: str, size: int, y: int, centre: int, fill: tuple[int, int, int]) -> None:
    while size > 9 and text_width(text, size) > PILE_TEXT_WIDTH:
        size -= 1
    _put(image, _text(text, size, y, fill=fill), centre, y, "centre")


# --- The footer: score, moves and time on the left, the deal code on the right, never overlapping ---


@dataclass(frozen=True)
class FooterLayout:
    pairs: tuple[tuple[str, str], ...]  # (label, figure): "Score", "30"
    joiner: str
    size: int
    code_lines: tuple[str, ...]
    code_size: int

    def width(self) -> float:
        return sum(_advance(piece, self.size) for piece in _footer_pieces(self.pairs, self.joiner))


CODE_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567-"


@functools.lru_cache(maxsize=4096)
def _advance(text: str, size: int, bold: bool = True) -> float:
    return float(_font(size, bold).getlength(text))


def _footer_pieces(pairs: tuple[tuple[str, str], ...], joiner: str) -> list[str]:
    """The runs the statistics are drawn from: labels and separators whole, figures one character at a
    time (DejaVu's digits all have the same advance), so that a ticking clock never draws new text."""
    pieces: list[str] = []
    for i, (label, figure) in enumerate(pairs):
        if i:
            pieces.append(joiner)
        pieces.append(f"{label} ")
        pieces.extend(figure)
    return pieces


def footer_layout(pairs: tuple[tuple[str, str], ...], code: str) -> FooterLayout:
    """The largest footer that fits: the deal code on one line (two for layout codes), then the
    statistics with wide separators, narrower ones, and smaller type until they clear the code."""
    room = WIDTH - 2 * MARGIN - 14
    lines: tuple[str, ...]
    if len(code) < 20:
        lines, code_size = (code,), 15
    else:
        half = (len(code) + 1) // 2
        lines, code_size = (code[:half], code[half:]), 11
    # The room kept for the code depends on its length only, so the statistics keep their size from one
    # board of a game to the next whatever letters the codes have.
    code_width = max(len(line) for line in lines) * _widest_code_letter(code_size)
    layout = FooterLayout(pairs, " · ", 12, lines, code_size)
    for size in (20, 18, 16, 14, 12):
        for joiner in ("   ·   ", "  ·  ", " · "):
            candidate = FooterLayout(pairs, joiner, size, lines, code_size)
            if candidate.width() + code_width <= room:
                return candidate
    return layout


def _footer(image: Image.Image, game: Game, labels: Labels, now: float | None, code: str) -> None:
    pairs = [(labels.score, str(game.score)), (labels.moves, str(game.moves))]
    seconds = elapsed_seconds(game, now)
    if seconds is not None:
        pairs.append((labels.time, format_duration(seconds)))
    layout = footer_layout(tuple(pairs), code)

    def draw() -> None:
        middle = FOOTER_Y + (HEIGHT - FOOTER_Y) // 2
        y = middle - layout.size * 6 // 10
        x = float(MARGIN)
        for piece in _footer_pieces(layout.pairs, layout.joiner):
            _paste(image, _text(piece, layout.size, y), (round(x) - 1, y))
            x += _advance(piece, layout.size)
        line_height = layout.code_size + 3
        top = middle - line_height * len(layout.code_lines) // 2 - 1
        for i, line in enumerate(layout.code_lines):
            y = top + i * line_height
            _put(image, _text(line, layout.code_size, y, bold=False, fill=MUTED), WIDTH - MARGIN, y, "right")

    _region(image, ("footer", layout), FOOTER_BOX, draw)


# --- The board ---


def elapsed_seconds(game: Game, now: float | None = None) -> float | None:
    if game.started_at is None:
        return None
    end = game.finished_at if game.finished_at is not None else (now if now is not None else time.time())
    return max(0.0, end - game.started_at)


def _place(
    image: Image.Image,
    sprite: Image.Image,
    xy: tuple[int, int],
    spot: Spot | None,
    selected: Spot | None,
    highlight: Collection[Spot],
) -> None:
    """A card (or pile) at ``xy``: raised in a gold ring when selected, in a blue ring when hinted."""
    cache = sprites()
    x, y = xy
    if spot is not None and spot == selected:
        y -= RAISE
        _paste(image, cache.select_ring, (x - RING, y - RING), cache.ring_mask)
    elif spot is not None and spot in highlight:
        _paste(image, cache.hint_ring, (x - RING, y - RING), cache.ring_mask)
    _paste(image, sprite, (x, y), cache.card_mask)


_layers = _Recent(48)  # about 17 MB: every game being played in a busy minute keeps its pyramid


def _pyramid_layer(game: Game, ranks: tuple[tuple[int, str], ...], highlight: Collection[Spot]) -> Image.Image:
    """The table with the pyramid on it, cached: most presses draw from the stock, select a card or show
    a hint and leave the pyramid as it was, so a board usually costs a copy of this layer, the rings of
    the selected and hinted free cards drawn over it, the piles and the footer.

    A selected or hinted card that is still covered (the card-with-cover rule) is part of the layer:
    the cards over it must stay over its ring."""
    pyramid = game.pyramid
    covered = [spot for spot in (game.selected, *highlight) if isinstance(spot, int) and not game.is_free(spot)]
    selected = game.selected if game.selected in covered else None
    marked = tuple(sorted(set(covered) - {selected}))
    key = (pyramid, selected, marked, game.rules.pair_with_cover, ranks)
    layer = _layers.get(key)
    if layer is not None:
        return layer
    cache = sprites()
    faces = faces_for(ranks)
    layer = cache.table.copy()
    playable = set(game.selectable_spots()) if game.rules.pair_with_cover else set()
    for index in range(PYRAMID_SIZE):  # empty places first: the cards above lie over their outlines
        if pyramid[index] is None:
            _paste(layer, cache.slot_line, card_position(index), cache.slot_mask)
    for index in range(PYRAMID_SIZE):
        card = pyramid[index]
        if card is None:
            continue
        if game.is_free(index):
            sprite = faces.free[card]
        elif index in playable:
            sprite = faces.playable[card]
        else:
            sprite = faces.covered[card]
        _place(layer, sprite, card_position(index), index, selected, marked)
    # A selected covered card is drawn again on top so that its raise is not hidden by the row below.
    if selected is not None and (raised := pyramid[selected]) is not None:
        _place(layer, faces.playable[raised], card_position(selected), selected, selected, marked)
    return _layers.put(key, layer)


def _free_rings(image: Image.Image, game: Game, faces: _Faces, highlight: Collection[Spot]) -> None:
    """The selected and hinted free pyramid cards, in their rings, over the cached layer. Nothing lies
    over a free card, its ring fits in the gaps beside it, and it is raised no more than the ring is
    wide, so this draws exactly what drawing it inside the layer would."""
    for spot in sorted({game.selected, *highlight} - {None}, key=lambda s: s == game.selected):
        if isinstance(spot, int) and game.is_free(spot) and (card := game.pyramid[spot]) is not None:
            _place(image, faces.free[card], card_position(spot), spot, game.selected, highlight)


# The regions the piles and the footer are drawn in: nothing of the pyramid (rings included) reaches
# into them, so each is drawn once for what it shows and pasted whole after that.
STOCK_BOX = (0, 0, EDGE + PILE_TEXT_WIDTH + 4, PILE_PASS_Y + 22)
WASTE_BOX = (WIDTH - EDGE - PILE_TEXT_WIDTH - 6, 0, WIDTH, PILE_COUNT_Y + 22)
FOOTER_BOX = (0, FOOTER_Y, WIDTH, HEIGHT)
_regions = _Recent(2048)


def _region(image: Image.Image, key: tuple, box: tuple[int, int, int, int], draw: Callable[[], None]) -> None:
    """Paste the cached picture of ``box`` for ``key``, or ``draw`` it on ``image`` and keep a copy."""
    found = _regions.get(key)
    if found is not None:
        _paste(image, found, box[:2])
        return
    draw()
    _regions.put(key, image.crop((box[0] + 1, box[1], box[2] + 1, box[3])))


def _stock(image: Image.Image, game: Game, labels: Labels, highlight: Collection[Spot]) -> None:
    """The stock: a back, or an empty place (with a turn-back mark when the waste can go back)."""
    cache = sprites()
    count = len(game.stock)
    sprite = cache.back if count else cache.turn_pile if game.can_turn else cache.empty_pile
    words = [labels.stock, labels.cards(count)]
    if game.rules.pass_limit is not None:
        total = game.rules.pass_limit + 1
        words.append(labels.passes.format(current=min(game.passes + 1, total), total=total))

    def draw() -> None:
        _place(image, sprite, (STOCK_X, STOCK_Y), STOCK, game.selected, highlight)
        centre = STOCK_X + CARD_W // 2
        for text, size, y, fill in zip(
            words,
            (14, 16, 14),
            (PILE_LABEL_Y, PILE_COUNT_Y, PILE_PASS_Y),
            (MUTED, TEXT, MUTED),
            strict=False,  # no passes line
        ):
            if text:
                _pile_text(image, text, size, y, centre, fill)

    _region(image, ("stock", id(sprite), STOCK in highlight, *words), STOCK_BOX, draw)


def _waste(image: Image.Image, game: Game, labels: Labels, highlight: Collection[Spot]) -> None:
    """The waste: up to three cards fanned, the top one on the right."""
    cache = sprites()
    faces = faces_for(labels.ranks)
    waste = game.waste
    positions = waste_positions(len(waste))
    shown = waste[-len(positions) :] if positions else ()
    spots = [
        WASTE if depth == 0 else (UNDER if depth == 1 and game.rules.draw_with_waste else None)
        for depth in range(len(shown) - 1, -1, -1)
    ]
    marks = tuple((spot == game.selected, spot in highlight) for spot in spots)
    words = (labels.waste, labels.cards(len(waste)))

    def draw() -> None:
        if not waste:
            _paste(image, cache.empty_pile, (WASTE_RIGHT - CARD_W, TOP), cache.card_mask)
        for card, xy, spot in zip(shown, positions, spots, strict=True):
            _place(
                image, faces.free[card] if spot is not None else faces.covered[card], xy, spot, game.selected, highlight
            )
        centre = WASTE_RIGHT - CARD_W // 2
        if labels.waste:
            _pile_text(image, labels.waste, 14, PILE_LABEL_Y, centre, MUTED)
        _pile_text(image, words[1], 16, PILE_COUNT_Y, centre, TEXT)

    _region(image, ("waste", shown, tuple(spots), marks, labels.ranks, *words), WASTE_BOX, draw)


def _compose(
    game: Game,
    labels: Labels,
    now: float | None,
    highlight: Collection[Spot],
    banner: str | None,
    code: str | None,
) -> Image.Image:
    faces = faces_for(labels.ranks)
    image = _pyramid_layer(game, labels.ranks, highlight).copy()
    _free_rings(image, game, faces, highlight)
    _stock(image, game, labels, highlight)
    _waste(image, game, labels, highlight)
    _footer(image, game, labels, now, code or game.code)
    if game.outcome is not None:
        _banner(image, labels.won if game.outcome is Outcome.WON else labels.stuck, game.outcome)
    elif banner:
        _banner(image, banner, None)
    return image


def _banner(image: Image.Image, text: str, outcome: Outcome | None) -> None:
    """A dark band across the board with the result (only on finished boards, so drawn each time)."""
    box = (1, BANNER_TOP, WIDTH + 1, BANNER_BOTTOM)  # on the canvas, past the filter column
    band = Image.blend(image.crop(box).convert("RGB"), Image.new("RGB", (WIDTH, BANNER_BOTTOM - BANNER_TOP)), 170 / 255)
    size = 48
    font = _font(size)
    while font.getlength(text) > WIDTH - 60 and size > 18:
        size -= 3
        font = _font(size)
    colour = GOLD if outcome is Outcome.WON else WHITE
    ImageDraw.Draw(band).text((WIDTH // 2, band.height // 2), text, font=font, fill=colour, anchor="mm")
    image.paste(sprites().to_palette(band), box[:2])


class DrawOptions(TypedDict, total=False):
    """What a board is drawn with besides the game.

    ``labels``: the words in the player's language; ``now``: the clock for the time shown; ``highlight``:
    the hinted spots; ``banner``: a text across the board (for example "Game ended"; a won or stuck game
    gets its banner from ``labels`` without it); ``code``: replaces the deal code in the footer (a daily
    in play shows its name, not its code)."""

    labels: Labels | None
    now: float | None
    highlight: Collection[Spot]
    banner: str | None
    code: str | None


def render_paletted(game: Game, **options: Unpack[DrawOptions]) -> Image.Image:
    """The board as a paletted ``Image`` (animations reuse it)."""
    return _board_canvas(game, options).crop((1, 0, WIDTH + 1, HEIGHT))


def _board_canvas(game: Game, options: DrawOptions) -> Image.Image:
    return _compose(
        game,
        options.get("labels") or Labels(),
        options.get("now"),
        options.get("highlight", ()),
        options.get("banner"),
        options.get("code"),
    )


def clear_caches() -> None:
    """Forget every cached layer, region and run of text (sprites and fonts stay): the next board is
    drawn from scratch, as in a fresh process."""
    for cache in (_layers, _regions, _texts):
        cache.clear()


def cached_pictures() -> int:
    """How many layers, regions and runs of text are cached."""
    return len(_layers) + len(_regions) + len(_texts)


def render_image(game: Game, **options: Unpack[DrawOptions]) -> Image.Image:
    """The board as an RGB ``Image`` (see ``render_board`` for the PNG)."""
    return render_paletted(game, **options).convert("RGB")


def render_board(game: Game, **options: Unpack[DrawOptions]) -> bytes:
    """The board as PNG bytes: a paletted PNG (a third of the bytes of RGB to compress)."""
    return _png(_board_canvas(game, options))


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


@functools.lru_cache(maxsize=1)
def _png_palette() -> bytes:
    return _chunk(b"PLTE", bytes(sprites().palette.getpalette() or [])[:768])


def _png(canvas: Image.Image) -> bytes:
    """A paletted PNG written directly: the canvas's bytes are already PNG scanlines (a "no filter"
    byte, then the row), compressed by ISA-L's deflate (python-isal), five times faster than zlib's
    at the same size, which Pillow's encoder cannot use. Without isal, zlib does the same work."""
    header = struct.pack(">IIBBBBB", canvas.width - 1, canvas.height, 8, 3, 0, 0, 0)
    return b"".join(
        (
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _png_palette(),
            _chunk(b"IDAT", deflate.compress(canvas.tobytes(), PNG_LEVEL)),
            _chunk(b"IEND", b""),
        )
    )


def animate(boards: Sequence[tuple[Game, Collection[Spot]]], durations: Sequence[int], **options: Any) -> bytes:
    """Positions (each with the spots to ring) drawn as a looping animated GIF, each shown for its
    duration in ms. One palette for every frame, and each frame stores only the rectangle that changed
    (Pillow's GIF writer): a 100-move line takes a few hundred KB, animated WebP several times more."""
    images = [render_paletted(game, highlight=highlight, **options) for game, highlight in boards]
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], duration=list(durations), loop=0)
    return out.getvalue()


# --- A player's month of dailies: a calendar on the table, readable at phone width ---


@dataclass(frozen=True)
class MonthPicture:
    """What the calendar shows, in the player's language. ``days`` holds one kind a day of the month
    (``pyramide.daily.DayKind`` values: clean, hinted, gave_up, missed, open, none); ``weekdays`` are
    the seven column heads from Monday; ``legend`` maps the first four kinds to their words."""

    title: str
    weekdays: tuple[str, ...]
    days: tuple[str, ...]
    first_weekday: int  # of the 1st, Monday 0
    today: int | None
    legend: tuple[tuple[str, str], ...]
    streak: str
    badge: str
    badge_won: bool


MONTH_COLOURS = {
    "clean": ((70, 190, 90), WHITE, "✓"),
    "hinted": ((0, 150, 215), WHITE, "?"),
    "gave_up": ((190, 60, 60), WHITE, "✗"),
    "missed": ((40, 70, 52), MUTED, "–"),
    "open": ((40, 70, 52), GOLD, "…"),
    "none": ((30, 78, 48), (110, 150, 125), ""),
}
CELL_W = (WIDTH - 2 * MARGIN) // 7
CELL_H = 78
CELL_GAP = 6


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    while size > 12 and draw.textlength(text, font=_font(size, bold)) > width:
        size -= 1
    return _font(size, bold)


def _wrap(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool) -> list[str]:
    """``text`` on one line, or on two split at the space that fits most on the first."""
    font = _font(size, bold)
    if draw.textlength(text, font=font) <= width:
        return [text]
    words = text.split(" ")
    for cut in range(len(words) - 1, 0, -1):
        first = " ".join(words[:cut])
        if draw.textlength(first, font=font) <= width:
            return [first, " ".join(words[cut:])]
    return [text]


def _medal(draw: ImageDraw.ImageDraw, centre: tuple[int, int], radius: int, won: bool) -> None:
    x, y = centre
    ribbon = (200, 30, 50) if won else (70, 100, 85)
    draw.polygon([(x - 18, y - radius - 22), (x - 4, y - radius - 22), (x + 4, y), (x - 10, y)], fill=ribbon)
    draw.polygon([(x + 4, y - radius - 22), (x + 18, y - radius - 22), (x + 10, y), (x - 4, y)], fill=ribbon)
    face, rim = (GOLD, (190, 140, 20)) if won else ((60, 95, 75), (90, 125, 105))
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=face, outline=rim, width=4)
    draw.text(
        (x, y + 1), "★", font=_font(int(radius * 1.3)), fill=(150, 100, 0) if won else (110, 150, 125), anchor="mm"
    )


def render_month(month: MonthPicture) -> bytes:
    """The month as a PNG: a title, seven columns from Monday, one tile a day coloured by how it went
    (a mark on each, so colour is not the only cue), today ringed, the streaks, the legend and the
    month's badge (gold once every day of the month is won)."""
    weeks = (month.first_weekday + len(month.days) + 6) // 7
    grid_top = 20 + 44 + 34
    legend_top = grid_top + weeks * (CELL_H + CELL_GAP) + 10
    height = legend_top + 2 * 40 + 16 + 124
    image = Image.new("RGB", (WIDTH, height), TABLE_TOP)
    draw = ImageDraw.Draw(image)
    for y in range(height):  # the board's table: a gradient from top to bottom
        share = y / max(1, height - 1)
        colour = tuple(round(a + (b - a) * share) for a, b in zip(TABLE_TOP, TABLE_BOTTOM, strict=True))
        draw.line([(0, y), (WIDTH, y)], fill=colour)
    title_font = _fit(draw, month.title, 34, WIDTH - 2 * MARGIN)
    draw.text((WIDTH // 2, 20), month.title, font=title_font, fill=TEXT, anchor="mt")
    for column, name in enumerate(month.weekdays):
        x = MARGIN + column * CELL_W + CELL_W // 2
        draw.text((x, grid_top - 30), name, font=_fit(draw, name, 22, CELL_W - 6), fill=MUTED, anchor="mt")
    for index, kind in enumerate(month.days):
        place = month.first_weekday + index
        left = MARGIN + (place % 7) * CELL_W + CELL_GAP // 2
        top = grid_top + (place // 7) * (CELL_H + CELL_GAP)
        box = (left, top, left + CELL_W - CELL_GAP, top + CELL_H)
        fill, ink, mark = MONTH_COLOURS.get(kind, MONTH_COLOURS["none"])
        draw.rounded_rectangle(box, RADIUS, fill=fill)
        if kind == "missed":
            draw.rounded_rectangle(box, RADIUS, outline=SLOT_LINE, width=2)
        draw.text((left + 8, top + 5), str(index + 1), font=_font(24), fill=ink)
        if mark:
            draw.text((box[2] - 10, box[3] - 4), mark, font=_font(34), fill=ink, anchor="rd")
        if month.today == index + 1:
            draw.rounded_rectangle(
                (box[0] - 3, box[1] - 3, box[2] + 3, box[3] + 3), RADIUS + 2, outline=SELECT, width=RING - 1
            )
    half = (WIDTH - 2 * MARGIN) // 2
    for n, (kind, words) in enumerate(month.legend):
        x = MARGIN + (n % 2) * half
        y = legend_top + (n // 2) * 40
        fill, ink, mark = MONTH_COLOURS[kind]
        draw.rounded_rectangle((x, y, x + 32, y + 32), 6, fill=fill, outline=SLOT_LINE if kind == "missed" else None)
        draw.text((x + 16, y + 17), mark, font=_font(22), fill=ink, anchor="mm")
        draw.text((x + 42, y + 16), words, font=_fit(draw, words, 24, half - 50, bold=False), fill=TEXT, anchor="lm")
    band_top = legend_top + 2 * 40 + 10
    draw.rectangle((0, band_top, WIDTH, height), fill=BAND)
    _medal(draw, (MARGIN + 46, band_top + 70), 30, month.badge_won)
    text_left = MARGIN + 46 + 30 + 22
    room = WIDTH - MARGIN - text_left
    draw.text((text_left, band_top + 18), month.streak, font=_fit(draw, month.streak, 26, room), fill=TEXT)
    for n, line in enumerate(_wrap(draw, month.badge, 24, room, bold=month.badge_won)):
        draw.text(
            (text_left, band_top + 56 + n * 30),
            line,
            font=_fit(draw, line, 24, room, bold=month.badge_won),
            fill=GOLD if month.badge_won else MUTED,
        )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


# --- Card emojis: the faces the board's buttons show, read at about 20 px ---

EMOJI_SIZE = 128  # Discord shows a button's emoji at about 20 px: everything is drawn about six times larger
EMOJI_RADIUS = 18
EMOJI_EDGE = 5  # the card's outline: about 1 px at 20 px, so a white card stays a card on a light button


def _emoji_card(fill: tuple[int, int, int], edge: tuple[int, int, int]) -> Image.Image:
    """A card that fills the square (transparent corners): on a button, width is worth more than shape."""
    image = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (0, 0, 0, 0))
    box = (0, 0, EMOJI_SIZE - 1, EMOJI_SIZE - 1)
    ImageDraw.Draw(image).rounded_rectangle(box, EMOJI_RADIUS, fill=fill, outline=edge, width=EMOJI_EDGE)
    return image


def _emoji_text(
    image: Image.Image, text: str, box: tuple[int, int, int, int], font: ImageFont.FreeTypeFont, fill: tuple
) -> None:
    """``text`` scaled to the height of ``box`` and centred in it, squeezed sideways when it is too wide."""
    left, top, right, bottom = (round(edge) for edge in font.getbbox(text))
    run = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(run).text((-left, -top), text, font=font, fill=255)
    width, height = box[2] - box[0], box[3] - box[1]
    scale = height / run.height
    size = (min(width, round(run.width * scale)), round(run.height * scale))
    if size != run.size:
        run = run.resize(size, Image.Resampling.LANCZOS)
    x = box[0] + (width - run.width) // 2
    y = box[1] + (height - run.height) // 2
    image.paste(Image.new("RGBA", run.size, fill), (x, y), run)


def _png_rgba(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def card_emoji(card: Card, rank: str | None = None) -> bytes:
    """A card face as a 128×128 PNG emoji: its rank (``rank``, a language's letter, or the English one)
    over its suit, both as large as the square allows, red suits in the board's red."""
    image = _emoji_card(FACE, FACE_EDGE)
    colour = RED if card.is_red else BLACK
    text = rank or card.rank_name
    inner = EMOJI_EDGE + 4
    _emoji_text(image, text, (inner, inner + 2, EMOJI_SIZE - inner, 60), _font(120), colour)
    _emoji_text(
        image, card.suit_symbol, (inner, 66, EMOJI_SIZE - inner, EMOJI_SIZE - inner), _font(120, bold=False), colour
    )
    return _png_rgba(image)


def back_emoji() -> bytes:
    """The card back (the stock) as a 128×128 PNG emoji: the board's back, its stripes widened."""
    image = _emoji_card(BACK_EDGE, FACE_EDGE)
    field_size = EMOJI_SIZE - 2 * 14
    field = Image.new("RGB", (field_size, field_size), BACK_FIELD)
    lines = ImageDraw.Draw(field)
    for offset in range(-field_size, field_size, 24):
        lines.line((offset, 0, offset + field_size, field_size), fill=BACK_LINES, width=8)
    image.paste(field, (14, 14), _rounded_mask(field.size, EMOJI_RADIUS - 8))
    return _png_rgba(image)


def empty_waste_emoji() -> bytes:
    """The empty waste as a 128×128 PNG emoji: the board's empty place, a card's outline on the table
    (in the light shade of the board's muted text, so that it stands out on a green button too)."""
    image = _emoji_card(BAND, MUTED)
    ImageDraw.Draw(image).rounded_rectangle(
        (0, 0, EMOJI_SIZE - 1, EMOJI_SIZE - 1), EMOJI_RADIUS, outline=MUTED, width=12
    )
    return _png_rgba(image)


def emoji_sheet(images: Sequence[bytes], sizes: Sequence[int] = (20, 40)) -> bytes:
    """The emojis as Discord shows them on buttons: at each of ``sizes``, on a grey, a blue and a green
    button (the secondary, primary and success styles), for looking at (``tests/reference/``)."""
    buttons = ((78, 80, 88), (88, 101, 242), (36, 128, 70))
    columns = 18
    decoded = [Image.open(io.BytesIO(data)).convert("RGBA") for data in images]
    rows = -(-len(decoded) // columns)
    pad = 6
    height = sum(len(buttons) * rows * (size + 2 * pad) for size in sizes)
    width = max(columns * (size + 2 * pad) for size in sizes)
    sheet = Image.new("RGB", (width, height), (49, 51, 56))  # Discord's dark message background
    y = 0
    for size in sizes:
        small = [image.resize((size, size), Image.Resampling.LANCZOS) for image in decoded]
        cell = size + 2 * pad
        for colour in buttons:
            for row in range(rows):
                ImageDraw.Draw(sheet).rectangle((0, y, columns * cell - 1, y + cell - 1), fill=colour)
                for column, image in enumerate(small[row * columns : (row + 1) * columns]):
                    sheet.paste(image, (column * cell + pad, y + pad), image)
                y += cell
    out = io.BytesIO()
    sheet.save(out, format="PNG", optimize=True)
    return out.getvalue()
