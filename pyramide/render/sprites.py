"""The sprites a board is made of and the runs of text on it, each drawn once and kept in the board's
fixed palette; fonts per thread; the pasting that puts them on a canvas.

A board is composed directly in palette ("P") mode from sprites that were drawn once and converted
to one fixed 256-colour palette (shipped in ``assets/palette.bin``; each other deck and table of a
player's style has its own): the table, card faces, backs, outlines, and every run of text, each baked
onto the background it sits on. Everything kept is keyed by the style it was drawn in.

Safe to call from worker threads: the caches are built under a lock and fonts are per thread
(FreeType faces are not shared between threads).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from ..bounded import LRU
from ..cards import Card, full_deck
from ..style import DEFAULT, Corners, Deck, Felt, Style, TableColours
from .geometry import (
    BACK_EDGE,
    BACK_FIELD,
    BACK_LINES,
    CARD_H,
    CARD_W,
    CORNERS,
    EDGE,
    FACE,
    FACE_EDGE,
    FONT_BOLD,
    FONT_REGULAR,
    FOOTER_Y,
    GOLD,
    HEIGHT,
    HINT,
    PLAYABLE,
    RADIUS,
    RING,
    SELECT,
    STOCK_X,
    STOCK_Y,
    TEXT,
    WHITE,
    WIDTH,
    palette_file,
)

_local = threading.local()
_lock = threading.Lock()


def load_font(size: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    fonts: dict[tuple[int, bool], ImageFont.FreeTypeFont] | None = getattr(_local, "fonts", None)
    if fonts is None:
        fonts = _local.fonts = {}
    key = (size, bold)
    if key not in fonts:
        fonts[key] = ImageFont.truetype(str(FONT_BOLD if bold else FONT_REGULAR), size)
    return fonts[key]


# --- Drawing the sprites (once per process), in RGB(A), before they are put into the palette ---


def rounded_mask(size: tuple[int, int], radius: int) -> Image.Image:
    mask = Image.new("1", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius, fill=1)
    return mask


def _face(
    card: Card,
    centre_pip: bool = True,
    rank: str | None = None,
    border: tuple[int, int, int] | None = None,
    style: Style = DEFAULT,
) -> Image.Image:
    image = Image.new("RGB", (CARD_W, CARD_H), FACE)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), RADIUS, fill=FACE, outline=FACE_EDGE, width=2)
    if border is not None:
        draw.rounded_rectangle((2, 2, CARD_W - 3, CARD_H - 3), RADIUS - 2, outline=border, width=4)
    colour = style.suit_colour(card.suit)
    corner = CORNERS[style.corners]
    text = rank or card.rank_name
    suit_font = load_font(corner.suit, bold=False)
    if style.corners is Corners.NORMAL:
        draw.text(corner.rank_xy, text, font=load_font(corner.rank if len(text) == 1 else corner.wide), fill=colour)
    else:  # a large rank narrowed where it would reach the suit (a 10), never made shorter
        room = corner.suit_xy[0] - int(suit_font.getlength(card.suit_symbol)) - corner.rank_xy[0] - 2
        _squeezed(image, text, load_font(corner.rank if len(text) == 1 else corner.wide), corner.rank_xy, room, colour)
    draw.text(corner.suit_xy, card.suit_symbol, font=suit_font, fill=colour, anchor="ra")
    if centre_pip:  # covered cards show only their top half; a pip would peek through the gaps
        draw.text(
            (CARD_W // 2, CARD_H - 30),
            card.suit_symbol,
            font=load_font(corner.pip, bold=False),
            fill=colour,
            anchor="mm",
        )
    return image


def _squeezed(
    image: Image.Image,
    text: str,
    font: ImageFont.FreeTypeFont,
    xy: tuple[int, int],
    room: int,
    colour: tuple[int, int, int],
) -> None:
    """``text`` drawn at ``xy``, narrowed to ``room`` pixels when wider (its height kept)."""
    left, _, right, bottom = (round(edge) for edge in font.getbbox(text))
    mask = Image.new("L", (right, bottom), 0)
    ImageDraw.Draw(mask).text((0, 0), text, font=font, fill=255)
    mask = mask.crop((left, 0, right, bottom))
    if mask.width > room:
        mask = mask.resize((room, mask.height), Image.Resampling.LANCZOS)
    image.paste(Image.new("RGB", mask.size, colour), (xy[0] + left, xy[1]), mask)


def _dimmed(face: Image.Image, dim: tuple[int, int, int] = (40, 60, 50)) -> Image.Image:
    return Image.blend(face, Image.new("RGB", face.size, dim), 95 / 255)


def _back() -> Image.Image:
    image = Image.new("RGB", (CARD_W, CARD_H), BACK_EDGE)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), RADIUS, fill=BACK_EDGE, outline=FACE_EDGE, width=2)
    field = Image.new("RGB", (CARD_W - 12, CARD_H - 12), BACK_FIELD)
    lines = ImageDraw.Draw(field)
    for offset in range(-CARD_H, CARD_W, 11):
        lines.line((offset, 0, offset + CARD_H, CARD_H), fill=BACK_LINES, width=2)
    image.paste(field, (6, 6), rounded_mask(field.size, RADIUS - 3))
    return image


def _table_rgb(colours: TableColours = DEFAULT.colours) -> Image.Image:
    """The table with a vertical gradient and the dark footer band."""
    image = Image.new("RGB", (WIDTH, HEIGHT), colours.top)
    draw = ImageDraw.Draw(image)
    for y in range(FOOTER_Y):
        t = y / (FOOTER_Y - 1)
        colour = tuple(round(a + (b - a) * t) for a, b in zip(colours.top, colours.bottom, strict=True))
        draw.line((0, y, WIDTH, y), fill=colour)
    draw.rectangle((0, FOOTER_Y, WIDTH, HEIGHT), fill=colours.band)
    return image


def _empty_pile(table: Image.Image, mark: str, colours: TableColours = DEFAULT.colours) -> Image.Image:
    """An empty stock or waste place, drawn on the table where the piles are (nothing overlaps them)."""
    image = table.crop((STOCK_X, STOCK_Y, STOCK_X + CARD_W, STOCK_Y + CARD_H))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((1, 1, CARD_W - 2, CARD_H - 2), RADIUS, outline=colours.slot_line, width=2)
    if mark:
        draw.text((CARD_W // 2, CARD_H // 2), mark, font=load_font(42), fill=colours.mark, anchor="mm")
    return image


def _ring_mask() -> Image.Image:
    return rounded_mask((CARD_W + 2 * RING, CARD_H + 2 * RING), RADIUS + RING)


def _slot_mask() -> Image.Image:
    """Only the outline of an empty pyramid place: the cards above must show through it."""
    outer = rounded_mask((CARD_W, CARD_H), RADIUS)
    inner = Image.new("1", (CARD_W, CARD_H), 0)
    ImageDraw.Draw(inner).rounded_rectangle((3, 3, CARD_W - 4, CARD_H - 4), RADIUS - 2, fill=1)
    return Image.composite(Image.new("1", outer.size, 0), outer, inner)


def _exact_colours(table: Image.Image, style: Style) -> list[tuple[int, int, int]]:
    """Colours that must be reproduced exactly: every shade of the table and the marks' colours."""
    colours = dict.fromkeys(table.getpixel((0, y)) for y in range(HEIGHT))
    felt = style.colours
    black, red = style.suits[0], style.suits[1]
    marks = (FACE, FACE_EDGE, red, black, SELECT, HINT, PLAYABLE, felt.slot_line, felt.text, felt.muted, GOLD, WHITE)
    for colour in (*marks, BACK_FIELD, BACK_LINES, BACK_EDGE, *style.suits):
        colours[colour] = None
    return list(colours)  # type: ignore[arg-type]


def build_palette(style: Style = DEFAULT) -> bytes:
    """The fixed palette of a deck on a table (768 bytes): the exact colours, then a median cut of a sheet
    of every sprite and of text on the table, so that antialiased edges find a close colour. Shipped in
    ``assets/`` (``geometry.palette_file``); ``tests/reference/regenerate.py`` writes them after a design change."""
    style = Style(style.deck, Corners.NORMAL, style.table)
    felt = style.colours
    table = _table_rgb(felt)
    exact = _exact_colours(table, style)
    faces = [_face(card, style=style) for card in full_deck()]
    sprites = faces + [_dimmed(_face(c, centre_pip=False, style=style), felt.dim) for c in full_deck()]
    sprites += [_face(c, centre_pip=False, border=PLAYABLE, style=style) for c in full_deck()[:8]]
    sprites += [_back(), _empty_pile(table, "↻", felt)]
    columns = 13
    rows = -(-len(sprites) // columns)
    sheet = Image.new("RGB", (columns * (CARD_W + 8), rows * (CARD_H + 8) + 3 * HEIGHT), felt.top)
    for i, sprite in enumerate(sprites):
        sheet.paste(sprite, ((i % columns) * (CARD_W + 8), (i // columns) * (CARD_H + 8)))
    boards = rows * (CARD_H + 8)
    for k in range(3):  # text on the table, on the band, and on the darkened banner
        part = table.copy()
        draw = ImageDraw.Draw(part)
        for j, (colour, size) in enumerate(((felt.text, 20), (felt.muted, 16), (GOLD, 48), (WHITE, 48))):
            for y in range(10 + j * 12, HEIGHT, 60):
                draw.text(
                    (10 + 40 * k, y), "Score 280 · Moves 113 · 0123456789 ÆØČŠЖЯ", font=load_font(size), fill=colour
                )
        if k == 2:
            part = Image.blend(part, Image.new("RGB", part.size, (0, 0, 0)), 170 / 255)
        sheet.paste(part.crop((0, 0, min(WIDTH, sheet.width), HEIGHT)), (0, boards + k * HEIGHT))
    rest = sheet.quantize(colors=256 - len(exact), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    found = rest.getpalette() or []
    colours = [value for colour in exact for value in colour] + found[: 3 * (256 - len(exact))]
    return bytes(colours + [0] * (768 - len(colours)))


def _palette_image(deck: Deck, table: Felt) -> Image.Image:
    path = palette_file(deck, table)
    data = path.read_bytes() if path.exists() else build_palette(Style(deck, Corners.NORMAL, table))
    image = Image.new("P", (1, 1))
    image.putpalette(data)
    return image


@dataclass(frozen=True)
class Sprites:
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
class Faces:
    free: dict[Card, Image.Image]
    covered: dict[Card, Image.Image]
    playable: dict[Card, Image.Image]  # covered, yet takeable under the card-with-cover rule


def sprites(style: Style = DEFAULT) -> Sprites:
    """The sprites of a style's deck and table, built once per process (thread-safe)."""
    with _lock:
        return _build_sprites(style.deck, style.table)


@functools.cache
def _build_sprites(deck: Deck, felt: Felt) -> Sprites:
    palette = _palette_image(deck, felt)
    colours = Style(deck, Corners.NORMAL, felt).colours

    def paletted(image: Image.Image) -> Image.Image:
        return image.quantize(palette=palette, dither=Image.Dither.NONE)

    def solid(colour: tuple[int, int, int], size: tuple[int, int]) -> Image.Image:
        return paletted(Image.new("RGB", size, colour))

    table = _table_rgb(colours)
    ring = (CARD_W + 2 * RING, CARD_H + 2 * RING)
    return Sprites(
        palette=palette,
        table_rgb=table,
        table=_canvas(paletted(table)),
        card_mask=rounded_mask((CARD_W, CARD_H), RADIUS),
        ring_mask=_ring_mask(),
        slot_mask=_slot_mask(),
        back=paletted(_back()),
        empty_pile=paletted(_empty_pile(table, "", colours)),
        turn_pile=paletted(_empty_pile(table, "↻", colours)),
        select_ring=solid(SELECT, ring),
        hint_ring=solid(HINT, ring),
        slot_line=solid(colours.slot_line, (CARD_W, CARD_H)),
    )


def faces_for(ranks: tuple[tuple[int, str], ...] = (), style: Style = DEFAULT) -> Faces:
    """Card faces with the rank letters of a language in a style (built once per language and style, about
    half a second; thread-safe)."""
    key = (ranks, style)
    with _lock:
        found = _faces.get(key)
    if found is not None:
        return found
    built = _build_faces(ranks, style)  # outside the lock: a board drawn meanwhile in another style never waits
    with _lock:
        found = _faces.get(key)  # another thread's, built meanwhile: one set of sprites for every board
        return found if found is not None else _faces.put(key, built)


def faces_ready(ranks: tuple[tuple[int, str], ...] = (), style: Style = DEFAULT) -> bool:
    """Whether the faces of a language and style are built: a caller on an event loop builds them in a
    thread first, and draws on the loop only what costs a millisecond."""
    with _lock:
        return (ranks, style) in _faces


# About 1.4 MB each: every style (12) in each of the four languages fits.
_faces: LRU[tuple[tuple[tuple[int, str], ...], Style], Faces] = LRU(48)


def _build_faces(ranks: tuple[tuple[int, str], ...], style: Style) -> Faces:
    cache = _build_sprites(style.deck, style.table)
    names = dict(ranks)
    deck = full_deck()
    dim = style.colours.dim
    return Faces(
        free={c: cache.to_palette(_face(c, rank=names.get(c.rank), style=style)) for c in deck},
        covered={c: cache.to_palette(_dimmed(_face(c, False, names.get(c.rank), style=style), dim)) for c in deck},
        playable={c: cache.to_palette(_face(c, False, names.get(c.rank), PLAYABLE, style)) for c in deck},
    )


# --- Text: each run drawn once on the background at its height, then pasted as bytes ---


text_runs: LRU[tuple[str, int, int, bool, tuple[int, int, int], Deck, Felt], Image.Image] = LRU(4096)


def text_run(
    text: str,
    size: int,
    y: int,
    *,
    bold: bool = True,
    fill: tuple[int, int, int] = TEXT,
    style: Style = DEFAULT,
) -> Image.Image:
    """A run of text as a paletted image whose background is the style's table at height ``y``."""
    key = (text, size, y, bold, fill, style.deck, style.table)
    found = text_runs.get(key)
    if found is not None:
        return found
    cache = sprites(style)
    font = load_font(size, bold)
    ascent, descent = font.getmetrics()
    left, _, right, _ = font.getbbox(text)
    width = max(1, max(right, int(font.getlength(text))) - min(0, left) + 2)
    height = min(ascent + descent, HEIGHT - y)
    image = cache.table_rgb.crop((0, y, width, y + height))
    ImageDraw.Draw(image).text((1 - min(0, left), 0), text, font=font, fill=fill)
    return text_runs.put(key, cache.to_palette(image))


@functools.lru_cache(maxsize=4096)
def text_width(text: str, size: int, bold: bool = True) -> int:
    return int(load_font(size, bold).getlength(text)) + 2


def _canvas(table: Image.Image) -> Image.Image:
    """The table on a canvas one column wider: column 0 holds zeros, PNG's "no filter" byte, so that the
    canvas's bytes are the PNG's image data as they are (see ``png.paletted_png``). Everything is drawn at x + 1."""
    canvas = Image.new("P", (table.width + 1, table.height), 0)
    canvas.putpalette(table.getpalette() or [])
    canvas.paste(table, (1, 0))
    return canvas


def paste(image: Image.Image, sprite: Image.Image, xy: tuple[int, int], mask: Image.Image | None = None) -> None:
    """``Image.paste`` onto a canvas (board coordinates, shifted right by the filter column) without
    Pillow's Python-side checks (a third of a board's time): every image here is an in-memory image of
    the right mode, and every box lies inside the board."""
    x, y = xy
    x += 1
    box = (x, y, x + sprite.width, y + sprite.height)
    image.im.paste(sprite.im, box, mask.im) if mask is not None else image.im.paste(sprite.im, box)


def put(image: Image.Image, run: Image.Image, x: int, y: int, align: str = "left") -> tuple[int, int, int, int]:
    if align == "centre":
        x -= run.width // 2
    elif align == "right":
        x -= run.width
    x = max(EDGE, min(x, WIDTH - EDGE - run.width))  # never off an edge
    paste(image, run, (x, y))
    return x, y, x + run.width, y + run.height
