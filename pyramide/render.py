"""The board as a PNG, drawn with Pillow. The only module of the package that imports PIL.

Card faces, backs, slots and the table are drawn once and cached; a board is the
cached table with cached sprites pasted on it, a few lines of text, and the PNG
encoding. Safe to call from worker threads: the caches are built under a lock and
fonts are per thread (FreeType faces are not shared between threads).
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from .cards import Card, full_deck
from .events import Outcome, Spot
from .game import PYRAMID_SIZE, ROWS, STOCK, UNDER, WASTE, Game, index_of
from .labels import Labels, format_duration

# The fonts ship inside the package (pyramide/assets links to the top-level assets/ folder), so an
# installed wheel draws with the same fonts as a checkout, never with whatever the system has.
ASSETS = Path(__file__).resolve().parent / "assets"
FONT_BOLD = ASSETS / "DejaVuSans-Bold.ttf"
FONT_REGULAR = ASSETS / "DejaVuSans.ttf"

WIDTH, HEIGHT = 920, 668
CARD_W, CARD_H = 106, 148
GAP = 10
ROW_STEP = 74  # each row covers the lower half of the row above
TOP = 22
RAISE = 12  # the selected card lifts by this much
RADIUS = 12
FAN = 34  # horizontal step between the visible waste cards
FOOTER_Y = TOP + (ROWS - 1) * ROW_STEP + CARD_H + 20
PNG_LEVEL = 3  # zlib level: 6 costs ~50% more time for ~15% less size

TABLE_TOP = (22, 94, 56)
TABLE_BOTTOM = (12, 62, 36)
FACE = (252, 252, 247)
FACE_EDGE = (60, 60, 60)
RED = (200, 20, 30)
BLACK = (20, 20, 20)
SELECT = (255, 196, 0)
HINT = (0, 200, 255)
TEXT = (240, 245, 240)
MUTED = (170, 200, 180)

STOCK_X, STOCK_Y = 24, TOP
WASTE_RIGHT = WIDTH - 24


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
    row = 0
    while index_of(row + 1, 0) <= index:
        row += 1
    col = index - index_of(row, 0)
    width = (row + 1) * CARD_W + row * GAP
    x = (WIDTH - width) // 2 + col * (CARD_W + GAP)
    return x, TOP + row * ROW_STEP


def waste_positions(count: int) -> list[tuple[int, int]]:
    """Top-left pixels of the visible waste cards (at most three), bottom to top."""
    shown = min(count, 3)
    x0 = WASTE_RIGHT - CARD_W - (shown - 1) * FAN
    return [(x0 + i * FAN, TOP) for i in range(shown)]


def _rounded_mask(size: tuple[int, int], radius: int = RADIUS) -> Image.Image:
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1), radius, fill=255)
    return mask


def _face(card: Card, centre_pip: bool = True, rank: str | None = None) -> Image.Image:
    image = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), RADIUS, fill=FACE, outline=FACE_EDGE, width=2)
    colour = RED if card.is_red else BLACK
    rank_font = _font(44 if card.rank != 10 else 38)
    suit_font = _font(38, bold=False)
    draw.text((8, 4), rank or card.rank_name, font=rank_font, fill=colour)
    draw.text((CARD_W - 7, 6), card.suit_symbol, font=suit_font, fill=colour, anchor="ra")
    if centre_pip:  # covered cards show only their top half; a pip would peek through the gaps
        draw.text((CARD_W // 2, CARD_H - 40), card.suit_symbol, font=_font(58, bold=False), fill=colour, anchor="mm")
    return image


def _dimmed(face: Image.Image) -> Image.Image:
    shade = Image.new("RGBA", face.size, (40, 60, 50, 95))
    out = face.copy()
    out.alpha_composite(Image.composite(shade, Image.new("RGBA", face.size, (0, 0, 0, 0)), face.getchannel("A")))
    return out


def _glow(colour: tuple[int, int, int], spread: int = 8) -> Image.Image:
    size = (CARD_W + 2 * spread, CARD_H + 2 * spread)
    glow = Image.new("RGBA", size, (0, 0, 0, 0))
    ImageDraw.Draw(glow).rounded_rectangle(
        (spread - 5, spread - 5, size[0] - spread + 4, size[1] - spread + 4), RADIUS + 4, fill=(*colour, 255)
    )
    return glow.filter(ImageFilter.GaussianBlur(3))


def _back() -> Image.Image:
    image = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), RADIUS, fill=(250, 250, 250), outline=FACE_EDGE, width=2)
    draw.rounded_rectangle((7, 7, CARD_W - 8, CARD_H - 8), RADIUS - 4, fill=(36, 70, 150))
    for offset in range(-CARD_H, CARD_W, 14):
        draw.line((7 + offset, 7, 7 + offset + CARD_H, 7 + CARD_H), fill=(70, 110, 190), width=3)
    inner = Image.new("RGBA", image.size, (0, 0, 0, 0))
    ImageDraw.Draw(inner).rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), RADIUS, outline=FACE_EDGE, width=2)
    frame = _rounded_mask((CARD_W - 14, CARD_H - 14), RADIUS - 4)
    pattern = image.crop((7, 7, CARD_W - 7, CARD_H - 7))
    image.paste((250, 250, 250, 255), (0, 0, CARD_W, CARD_H), _rounded_mask((CARD_W, CARD_H)))
    image.paste(pattern, (7, 7), frame)
    image.alpha_composite(inner)
    return image


def _slot(mark: str = "") -> Image.Image:
    image = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((1, 1, CARD_W - 2, CARD_H - 2), RADIUS, outline=(255, 255, 255, 70), width=2)
    if mark:
        draw.text((CARD_W // 2, CARD_H // 2), mark, font=_font(54), fill=(255, 255, 255, 150), anchor="mm")
    return image


def _table() -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), TABLE_TOP)
    draw = ImageDraw.Draw(image)
    for y in range(HEIGHT):
        t = y / (HEIGHT - 1)
        colour = tuple(round(a + (b - a) * t) for a, b in zip(TABLE_TOP, TABLE_BOTTOM, strict=True))
        draw.line((0, y, WIDTH, y), fill=colour)
    draw.line((24, FOOTER_Y - 10, WIDTH - 24, FOOTER_Y - 10), fill=(255, 255, 255), width=1)
    return image


@dataclass(frozen=True)
class _Sprites:
    faces: dict[Card, Image.Image]
    dimmed: dict[Card, Image.Image]
    back: Image.Image
    slot: Image.Image
    turn_slot: Image.Image
    empty_slot: Image.Image
    select_glow: Image.Image
    hint_glow: Image.Image
    table: Image.Image
    palette: Image.Image  # 256 colours covering every sprite, so a board encodes as a small paletted PNG


_sprites: _Sprites | None = None
_faces: dict[tuple[tuple[int, str], ...], tuple[dict[Card, Image.Image], dict[Card, Image.Image]]] = {}


def faces_for(ranks: tuple[tuple[int, str], ...]) -> tuple[dict[Card, Image.Image], dict[Card, Image.Image]]:
    """Free and covered card faces with the rank letters of a language (built once per language)."""
    cache = sprites()
    if not ranks:
        return cache.faces, cache.dimmed
    found = _faces.get(ranks)
    if found is None:
        with _lock:
            found = _faces.get(ranks)
            if found is None:
                names = dict(ranks)
                faces = {card: _face(card, rank=names.get(card.rank)) for card in full_deck()}
                dimmed = {card: _dimmed(_face(card, centre_pip=False, rank=names.get(card.rank))) for card in faces}
                found = _faces[ranks] = (faces, dimmed)
    return found


def sprites() -> _Sprites:
    """Build the sprite cache once (thread-safe)."""
    global _sprites
    if _sprites is None:
        with _lock:
            if _sprites is None:
                faces = {card: _face(card) for card in full_deck()}
                parts = {
                    "faces": faces,
                    "dimmed": {card: _dimmed(_face(card, centre_pip=False)) for card in faces},
                    "back": _back(),
                    "slot": _slot(),
                    "turn_slot": _slot("↻"),
                    "empty_slot": _slot(),
                    "select_glow": _glow(SELECT),
                    "hint_glow": _glow(HINT),
                    "table": _table(),
                }
                _sprites = _Sprites(**parts, palette=_palette(parts))  # type: ignore[arg-type]
    return _sprites


def _palette(parts: dict) -> Image.Image:
    """One 256-colour palette for every board: quantized from a sheet of all sprites on the table."""
    faces = list(parts["faces"].values()) + list(parts["dimmed"].values())
    columns = 13
    rows = -(-len(faces) // columns) + 2
    sheet = Image.new("RGB", (columns * (CARD_W + 20), rows * (CARD_H + 20)), TABLE_TOP)
    sheet.paste(parts["table"].resize((sheet.width, sheet.height)))
    extras = [parts["select_glow"], parts["hint_glow"], parts["back"], parts["slot"], parts["turn_slot"]]
    for i, sprite in enumerate(extras + faces):
        x, y = (i % columns) * (CARD_W + 20), (i // columns) * (CARD_H + 20)
        if i < 2:  # glows with a card on top, as they are drawn
            sheet.paste(sprite, (x, y), sprite)
            sprite = faces[0]
            x, y = x + 8, y + 8
        sheet.paste(sprite, (x, y), sprite)
    draw = ImageDraw.Draw(sheet)
    band = Image.new("RGBA", (sheet.width, 120), (0, 0, 0, 170))
    sheet.paste(band, (0, 0), band)
    for colour in (TEXT, MUTED, (255, 215, 80), (255, 255, 255)):
        draw.text(
            (20, 20 + 30 * (colour == MUTED)),
            "Score 280 · Moves 113 · 0123456789 You won!",
            font=_font(40),
            fill=colour,
        )
    return sheet.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def elapsed_seconds(game: Game, now: float | None = None) -> float | None:
    if game.started_at is None:
        return None
    end = game.finished_at if game.finished_at is not None else (now if now is not None else time.time())
    return max(0.0, end - game.started_at)


def render_image(
    game: Game,
    *,
    labels: Labels | None = None,
    now: float | None = None,
    highlight: Collection[Spot] = (),
    banner: str | None = None,
    code: str | None = None,
) -> Image.Image:
    """The board as an RGB ``Image`` (see ``render_board`` for the PNG).

    ``banner`` is drawn across the board (for example "Game ended"); a won or stuck
    game gets its banner from ``labels`` without it. ``code`` replaces the deal code in the
    footer (a daily in play shows its name, not its code)."""
    labels = labels or Labels()
    cache = sprites()
    faces, dimmed = faces_for(labels.ranks)
    image = cache.table.copy()
    pyramid = game.pyramid
    selected = game.selected

    def place(sprite: Image.Image, xy: tuple[int, int], spot: Spot | None = None) -> None:
        x, y = xy
        if spot is not None and spot == selected:
            y -= RAISE
            image.paste(cache.select_glow, (x - 8, y - 8), cache.select_glow)
        elif spot is not None and spot in highlight:
            image.paste(cache.hint_glow, (x - 8, y - 8), cache.hint_glow)
        image.paste(sprite, (x, y), sprite)

    for index in range(PYRAMID_SIZE):
        card = pyramid[index]
        xy = card_position(index)
        if card is None:
            place(cache.slot, xy)
        elif game.is_free(index) or index == selected or index in highlight:
            place(faces[card], xy, index)
        else:
            place(dimmed[card], xy, index)
    # The selected card is drawn again on top so that its raise is not hidden by the row below.
    if isinstance(selected, int) and (raised := pyramid[selected]) is not None:
        place(faces[raised], card_position(selected), selected)

    draw = ImageDraw.Draw(image)
    small = _font(22)
    # Stock: a back with the count, or an empty place (with a turn-back mark when the waste can go back).
    stock_count = len(game.stock)
    if stock_count:
        place(cache.back, (STOCK_X, STOCK_Y), STOCK)
    else:
        place(cache.turn_slot if game.can_turn else cache.empty_slot, (STOCK_X, STOCK_Y), STOCK)
    draw.text(
        (STOCK_X + CARD_W // 2, STOCK_Y + CARD_H + 8),
        labels.cards(stock_count),
        font=small,
        fill=TEXT,
        anchor="ma",
    )
    if game.rules.pass_limit is not None:
        passes = labels.passes.format(
            current=min(game.passes + 1, game.rules.pass_limit + 1), total=game.rules.pass_limit + 1
        )
        left = max(8, STOCK_X + CARD_W // 2 - int(small.getlength(passes)) // 2)  # never off the left edge
        draw.text((left, STOCK_Y + CARD_H + 36), passes, font=small, fill=MUTED)
    # Waste: up to three cards fanned, the top one on the right.
    waste = game.waste
    positions = waste_positions(len(waste))
    if not waste:
        place(cache.empty_slot, (WASTE_RIGHT - CARD_W, TOP))
    shown = waste[-len(positions) :] if positions else ()
    for offset, (card, xy) in enumerate(zip(shown, positions, strict=True)):
        depth = len(shown) - 1 - offset  # 0 = top
        spot = WASTE if depth == 0 else (UNDER if depth == 1 and game.rules.draw_with_waste else None)
        sprite = faces[card] if spot is not None else dimmed[card]
        place(sprite, xy, spot)
    draw.text(
        (WASTE_RIGHT - CARD_W // 2, TOP + CARD_H + 8),
        labels.cards(len(waste)),
        font=small,
        fill=TEXT,
        anchor="ma",
    )

    # Footer: score, moves, time and the deal code.
    font = _font(26)
    parts = [f"{labels.score} {game.score}", f"{labels.moves} {game.moves}"]
    seconds = elapsed_seconds(game, now)
    if seconds is not None:
        parts.append(f"{labels.time} {format_duration(seconds)}")
    draw.text((24, FOOTER_Y), "   ·   ".join(parts), font=font, fill=TEXT)
    code = code or game.code
    if len(code) < 20:
        draw.text((WIDTH - 24, FOOTER_Y + 6), code, font=_font(22, bold=False), fill=MUTED, anchor="ra")
    else:  # a layout code: two short lines so that it never runs into the score
        half = (len(code) + 1) // 2
        for line, text in enumerate((code[:half], code[half:])):
            draw.text((WIDTH - 24, FOOTER_Y + line * 17), text, font=_font(14, bold=False), fill=MUTED, anchor="ra")

    if game.outcome is not None:
        _banner(image, labels.won if game.outcome is Outcome.WON else labels.stuck, game.outcome)
    elif banner:
        _banner(image, banner, None)
    return image


def _banner(image: Image.Image, text: str, outcome: Outcome | None) -> None:
    top, bottom = 230, 340
    band = Image.new("RGBA", (WIDTH, bottom - top), (0, 0, 0, 170))
    image.paste(band, (0, top), band)
    colour = (255, 215, 80) if outcome is Outcome.WON else (255, 255, 255)
    size = 64
    font = _font(size)
    while font.getlength(text) > WIDTH - 80 and size > 24:
        size -= 4
        font = _font(size)
    ImageDraw.Draw(image).text((WIDTH // 2, (top + bottom) // 2), text, font=font, fill=colour, anchor="mm")


def render_board(
    game: Game,
    *,
    labels: Labels | None = None,
    now: float | None = None,
    highlight: Collection[Spot] = (),
    banner: str | None = None,
    code: str | None = None,
) -> bytes:
    """The board as PNG bytes."""
    image = render_image(game, labels=labels, now=now, highlight=highlight, banner=banner, code=code)
    out = io.BytesIO()
    # A fixed palette: no dithering noise, a third of the bytes to compress, one look for every board.
    paletted = image.quantize(palette=sprites().palette, dither=Image.Dither.NONE)
    paletted.save(out, format="PNG", compress_level=PNG_LEVEL)
    return out.getvalue()
