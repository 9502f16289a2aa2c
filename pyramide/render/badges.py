"""The achievements as pictures: one icon each (a medallion in its group's colour, a glyph drawn in it),
and the grid of ``/pyramide achievements`` (unlocked in colour with their date, locked greyed with what
they ask, each with its rarity), readable at phone width."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw, ImageFont

try:  # ISA-L's deflate, as the board's PNG writer uses: several times faster than Pillow's zlib
    from isal import isal_zlib as deflate
except ImportError:  # pragma: no cover - a platform without isal wheels
    deflate = zlib  # type: ignore[misc]

from .geometry import BAND, GOLD, MARGIN, MUTED, PNG_LEVEL, TABLE_BOTTOM, TABLE_TOP, TEXT, WIDTH
from .sprites import load_font

ICON = 64  # the icon's size in the grid; drawn at SUPER times that and scaled down (smooth edges)
SUPER = 4


@dataclass(frozen=True, slots=True)
class Icon:
    """What an achievement's medallion shows: a glyph (text, or ``stopwatch``), a short caption on its
    ribbon (figures only: no words to translate), and a bar across it (a "without" achievement)."""

    glyph: str
    caption: str = ""
    crossed: bool = False


# Keyed by the achievement's key (pyramide.achievements); another part adds its own to this table.
ICONS: dict[str, Icon] = {
    "first_win": Icon("1"),
    "wins_10": Icon("10"),
    "wins_100": Icon("100"),
    "wins_500": Icon("500"),
    "played_100": Icon("♠", "100"),
    "no_undo": Icon("↺", crossed=True),
    "no_hints": Icon("?", crossed=True),
    "clean_win": Icon("✦"),
    "strict_win": Icon("S"),
    "one_pass_win": Icon("1×"),
    "strict_one_pass_win": Icon("S", "1×"),
    "under_3_minutes": Icon("stopwatch", "3:00"),
    "under_90_seconds": Icon("stopwatch", "1:30"),
    "expert_win": Icon("▲", "★"),
    "win_run_5": Icon("»", "5"),
    "win_run_10": Icon("»", "10"),
    "perfect_loss": Icon("△", "max"),
    "daily_won": Icon("☀"),
    "daily_7_days": Icon("▦", "7"),
    "daily_30_days": Icon("▦", "30"),
    "daily_month": Icon("▦", "★"),
    "race_won": Icon("⚑"),
    "races_10": Icon("⚑", "10"),
    "event_podium": Icon("♛", "3"),
    "event_won": Icon("♛"),
}
DEFAULT_ICON = Icon("★")

# A group's colours: the medallion's face and its rim.
GROUP_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "volume": ((232, 178, 48), (150, 100, 10)),
    "skill": ((58, 140, 230), (20, 70, 150)),
    "habit": ((70, 185, 100), (20, 110, 50)),
    "social": ((175, 100, 225), (100, 40, 150)),
}
LOCKED_FACE, LOCKED_RIM, LOCKED_INK = (70, 92, 80), (48, 66, 56), (140, 165, 150)
INK = (255, 255, 255)
SHADOW = (0, 0, 0, 90)


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool = True) -> ImageFont.FreeTypeFont:
    while size > 10 and draw.textlength(text, font=load_font(size, bold)) > width:
        size -= 1
    return load_font(size, bold)


def _stopwatch(draw: ImageDraw.ImageDraw, centre: tuple[int, int], radius: int, ink: tuple[int, int, int]) -> None:
    x, y = centre
    line = max(2, radius // 5)
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=ink, width=line)
    draw.rectangle((x - radius // 4, y - radius - line * 2, x + radius // 4, y - radius - line // 2), fill=ink)
    draw.line((x, y, x, y - radius * 0.7), fill=ink, width=line)
    draw.line((x, y, x + radius * 0.5, y + radius * 0.15), fill=ink, width=line)


@cache
def icon(key: str, group: str, unlocked: bool, size: int = ICON) -> Image.Image:
    """An achievement's medallion, RGBA, ``size`` px square (memoised: constant drawing; callers paste
    it, never change it)."""
    spec = ICONS.get(key, DEFAULT_ICON)
    big = size * SUPER
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    face, rim = GROUP_COLOURS.get(group, GROUP_COLOURS["volume"]) if unlocked else (LOCKED_FACE, LOCKED_RIM)
    ink = INK if unlocked else LOCKED_INK
    edge = big // 16
    draw.ellipse((edge, edge + big // 40, big - edge, big - edge + big // 40), fill=SHADOW)
    draw.ellipse((edge, edge, big - edge, big - edge), fill=rim)
    inner = edge + big // 14
    draw.ellipse((inner, inner, big - inner, big - inner), fill=face)
    centre_y = big // 2 - (big // 12 if spec.caption else 0)
    if spec.glyph == "stopwatch":
        _stopwatch(draw, (big // 2, centre_y + big // 40), big // 5, ink)
    elif spec.crossed:  # the glyph inside a "no" sign: a ring and its bar
        font = _fit(draw, spec.glyph, big * 3 // 10, big * 3 // 10)
        draw.text((big // 2, centre_y), spec.glyph, font=font, fill=ink, anchor="mm")
        ring, line = big * 23 // 100, big // 22
        draw.ellipse((big // 2 - ring, centre_y - ring, big // 2 + ring, centre_y + ring), outline=ink, width=line)
        slant = ring * 0.7
        draw.line((big // 2 - slant, centre_y + slant, big // 2 + slant, centre_y - slant), fill=ink, width=line)
    else:
        room = big - 2 * inner - big // 6
        font = _fit(draw, spec.glyph, big * 9 // 20, room)
        draw.text((big // 2, centre_y), spec.glyph, font=font, fill=ink, anchor="mm")
    if spec.caption:
        font = _fit(draw, spec.caption, big // 4, big // 2)
        width = draw.textlength(spec.caption, font=font)
        top = big * 11 // 16
        pill = (big // 2 - width / 2 - big // 16, top, big // 2 + width / 2 + big // 16, top + big // 4)
        draw.rounded_rectangle(pill, big // 10, fill=rim)
        draw.text((big // 2, top + big // 8), spec.caption, font=font, fill=ink, anchor="mm")
    return image.resize((size, size), Image.Resampling.LANCZOS)


@dataclass(frozen=True, slots=True)
class BadgeCell:
    """One achievement in the grid, in the player's language: its name, then its date when unlocked or
    what it asks when locked, and its rarity ("12% of players")."""

    key: str
    group: str
    name: str
    detail: str
    rarity: str
    unlocked: bool


@dataclass(frozen=True, slots=True)
class BadgeGrid:
    title: str
    subtitle: str  # "7 of 23 achievements unlocked"
    note: str  # what the percentages are
    cells: tuple[BadgeCell, ...]


COLUMNS = 2
CELL_W = (WIDTH - 2 * MARGIN) // COLUMNS
CELL_H = 112
NAME_SIZE, DETAIL_SIZE, RARITY_SIZE = 21, 18, 17  # the board's footer is 12-20 px
HEAD = 124


def _wrap(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, lines: int = 2) -> list[str]:
    """``text`` in at most ``lines`` lines of ``width`` (the last one cut with an ellipsis if need be)."""
    font = load_font(size, False)
    words, out, line = text.split(" "), [], ""
    for word in words:
        candidate = f"{line} {word}".strip()
        if draw.textlength(candidate, font=font) <= width or not line:
            line = candidate
        else:
            out.append(line)
            line = word
    out.append(line)
    if len(out) > lines:
        out = [*out[: lines - 1], " ".join(out[lines - 1 :])]
    last = out[-1]
    while draw.textlength(last, font=font) > width and len(last) > 1:
        last = last[:-2] + "…"
    out[-1] = last
    return out


def table(height: int) -> Image.Image:
    """The board's table, a gradient from top to bottom."""
    column = Image.new("RGB", (1, height))
    colours = []
    for y in range(height):
        share = y / max(1, height - 1)
        colours.append(tuple(round(a + (b - a) * share) for a, b in zip(TABLE_TOP, TABLE_BOTTOM, strict=True)))
    column.putdata(colours)
    return column.resize((WIDTH, height), Image.Resampling.NEAREST)  # one colour a row, widened at once


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def rgb_png(image: Image.Image) -> bytes:
    """An RGB picture as a PNG, its rows unfiltered and deflated by ISA-L (about 10 ms for the grid
    where Pillow's encoder takes 70 ms, at the same size: the table's rows are runs of one colour)."""
    width, height = image.size
    raw = image.convert("RGB").tobytes()
    stride = width * 3
    rows = b"".join(b"\x00" + raw[y * stride : (y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", deflate.compress(rows, PNG_LEVEL)),
            _chunk(b"IEND", b""),
        )
    )


def render_badges(grid: BadgeGrid) -> bytes:
    """The grid as a PNG: two columns of achievements, each with its icon (in colour once unlocked,
    greyed while locked: the words say which too), its name, its date or what it asks, its rarity."""
    rows = -(-len(grid.cells) // COLUMNS)
    height = HEAD + rows * CELL_H + MARGIN
    image = table(height)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, HEAD - 12), fill=BAND)
    draw.text((MARGIN, 14), grid.title, font=_fit(draw, grid.title, 30, WIDTH - 2 * MARGIN), fill=TEXT)
    draw.text((MARGIN, 52), grid.subtitle, font=_fit(draw, grid.subtitle, 21, WIDTH - 2 * MARGIN, False), fill=GOLD)
    draw.text((MARGIN, 80), grid.note, font=_fit(draw, grid.note, 18, WIDTH - 2 * MARGIN, False), fill=MUTED)
    for index, cell in enumerate(grid.cells):
        left = MARGIN + (index % COLUMNS) * CELL_W
        top = HEAD + (index // COLUMNS) * CELL_H
        box = (left + 3, top + 3, left + CELL_W - 3, top + CELL_H - 5)
        draw.rounded_rectangle(box, 10, fill=(16, 70, 40) if cell.unlocked else (14, 52, 32))
        if cell.unlocked:
            draw.rounded_rectangle(box, 10, outline=GROUP_COLOURS.get(cell.group, GROUP_COLOURS["volume"])[0], width=2)
        badge = icon(cell.key, cell.group, cell.unlocked)
        image.paste(badge, (left + 10, top + (CELL_H - ICON) // 2 - 6), badge)
        text_left = left + 10 + ICON + 10
        room = left + CELL_W - 10 - text_left
        ink = TEXT if cell.unlocked else MUTED
        draw.text((text_left, top + 10), cell.name, font=_fit(draw, cell.name, NAME_SIZE, room), fill=ink)
        detail_ink = GOLD if cell.unlocked else MUTED
        for n, line in enumerate(_wrap(draw, cell.detail, DETAIL_SIZE, room, 3)):
            draw.text((text_left, top + 37 + n * 21), line, font=load_font(DETAIL_SIZE, False), fill=detail_ink)
        draw.text(
            (left + 10 + ICON // 2, top + CELL_H - 12),
            cell.rarity,
            font=_fit(draw, cell.rarity, RARITY_SIZE, ICON + 16),
            fill=ink,
            anchor="ms",
        )
    return rgb_png(image)
