"""A player's month of dailies as a picture: a calendar on the table, readable at phone width."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from .geometry import (
    BAND,
    GOLD,
    MARGIN,
    MUTED,
    RADIUS,
    RING,
    SELECT,
    SLOT_LINE,
    TABLE_BOTTOM,
    TABLE_TOP,
    TEXT,
    WHITE,
    WIDTH,
)
from .sprites import load_font


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
    while size > 12 and draw.textlength(text, font=load_font(size, bold)) > width:
        size -= 1
    return load_font(size, bold)


def _wrap(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool) -> list[str]:
    """``text`` on one line, or on two split at the space that fits most on the first."""
    font = load_font(size, bold)
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
        (x, y + 1), "★", font=load_font(int(radius * 1.3)), fill=(150, 100, 0) if won else (110, 150, 125), anchor="mm"
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
        draw.text((left + 8, top + 5), str(index + 1), font=load_font(24), fill=ink)
        if mark:
            draw.text((box[2] - 10, box[3] - 4), mark, font=load_font(34), fill=ink, anchor="rd")
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
        draw.text((x + 16, y + 17), mark, font=load_font(22), fill=ink, anchor="mm")
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
