"""An ended server event's podium as a picture: its name and dates, the top three on their steps with their
totals, readable at phone width (the words come translated; the picture only lays them out)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from .geometry import BAND, GOLD, MARGIN, MUTED, TABLE_BOTTOM, TABLE_TOP, TEXT, WHITE, WIDTH
from .sprites import load_font


@dataclass(frozen=True)
class PodiumPicture:
    """``places``: up to three (name, total) pairs, first place first; ``empty`` is said without any."""

    title: str
    dates: str
    places: tuple[tuple[str, str], ...]
    empty: str
    footer: str


STEP_COLOURS = ((GOLD, (150, 100, 0)), ((200, 205, 210), (90, 95, 100)), ((205, 127, 50), (110, 60, 20)))
STEP_HEIGHTS = (190, 140, 105)
HEIGHT = 480
COLUMN = (WIDTH - 2 * MARGIN) // 3


def _fit(
    draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool = True, floor: int = 14
) -> ImageFont.FreeTypeFont:
    while size > floor and draw.textlength(text, font=load_font(size, bold)) > width:
        size -= 1
    return load_font(size, bold)


def _clip(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int) -> str:
    """``text`` shortened with an ellipsis until it fits ``width`` at ``font``."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def render_podium(podium: PodiumPicture) -> bytes:
    """The podium as a PNG: the event's name and dates on top, the second, first and third places on steps
    of three heights (their number on the step, so colour is not the only cue), names and totals above."""
    image = Image.new("RGB", (WIDTH, HEIGHT), TABLE_TOP)
    draw = ImageDraw.Draw(image)
    for y in range(HEIGHT):
        share = y / (HEIGHT - 1)
        colour = tuple(round(a + (b - a) * share) for a, b in zip(TABLE_TOP, TABLE_BOTTOM, strict=True))
        draw.line([(0, y), (WIDTH, y)], fill=colour)
    room = WIDTH - 2 * MARGIN
    title_font = _fit(draw, podium.title, 38, room)
    draw.text((WIDTH // 2, 22), _clip(draw, podium.title, title_font, room), font=title_font, fill=TEXT, anchor="mt")
    draw.text(
        (WIDTH // 2, 74), podium.dates, font=_fit(draw, podium.dates, 24, room, bold=False), fill=MUTED, anchor="mt"
    )
    base = HEIGHT - 70
    if not podium.places:
        draw.text(
            (WIDTH // 2, base // 2 + 50), podium.empty, font=_fit(draw, podium.empty, 28, room), fill=TEXT, anchor="mm"
        )
    order = (1, 0, 2)  # second on the left, first in the middle, third on the right
    for column, place in enumerate(order):
        if place >= len(podium.places):
            continue
        name, total = podium.places[place]
        fill, ink = STEP_COLOURS[place]
        left = MARGIN + column * COLUMN + 6
        right = left + COLUMN - 12
        top = base - STEP_HEIGHTS[place]
        draw.rounded_rectangle((left, top, right, base), 10, fill=fill)
        draw.text(((left + right) // 2, top + 12), str(place + 1), font=load_font(64), fill=ink, anchor="mt")
        width = right - left - 4
        name_font = _fit(draw, name, 28, width, floor=22)  # a long name is cut, never too small to read
        draw.text(
            ((left + right) // 2, top - 48),
            _clip(draw, name, name_font, width),
            font=name_font,
            fill=WHITE,
            anchor="mb",
        )
        total_font = _fit(draw, total, 22, width, bold=False)
        draw.text(
            ((left + right) // 2, top - 12),
            _clip(draw, total, total_font, width),
            font=total_font,
            fill=GOLD,
            anchor="mb",
        )
    draw.rectangle((0, base, WIDTH, HEIGHT), fill=BAND)
    draw.text(
        (WIDTH // 2, base + 35),
        podium.footer,
        font=_fit(draw, podium.footer, 24, room, bold=False),
        fill=TEXT,
        anchor="mm",
    )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


@dataclass(frozen=True)
class StandingsPicture:
    """``rows``: (place, name, cards, score, time, hints) as shown, best first (ten at most)."""

    title: str
    subtitle: str
    heads: tuple[str, str, str, str, str]  # player, cards, score, time, hints
    rows: tuple[tuple[str, str, str, str, str, str], ...]
    empty: str


ROW_H = 52
# Columns from the right: hints, time, score, cards (their right edges), the name fills the rest.
_RIGHTS = (WIDTH - MARGIN - 8, WIDTH - MARGIN - 104, WIDTH - MARGIN - 214, WIDTH - MARGIN - 316)
_GAPS = (102, 110, 96, 90)  # the room of each column's head: cards, score, time, hints
_NAME_LEFT = MARGIN + 64


def render_standings(standings: StandingsPicture) -> bytes:
    """The standings as a PNG table: place (a medal colour for the first three, its number always), name,
    cards removed, score, time and hints, a row each, in large type for phone screens."""
    height = 130 + ROW_H * max(1, len(standings.rows)) + 24
    image = Image.new("RGB", (WIDTH, height), TABLE_TOP)
    draw = ImageDraw.Draw(image)
    for y in range(height):
        share = y / max(1, height - 1)
        colour = tuple(round(a + (b - a) * share) for a, b in zip(TABLE_TOP, TABLE_BOTTOM, strict=True))
        draw.line([(0, y), (WIDTH, y)], fill=colour)
    room = WIDTH - 2 * MARGIN
    font = _fit(draw, standings.title, 34, room)
    draw.text((WIDTH // 2, 16), _clip(draw, standings.title, font, room), font=font, fill=TEXT, anchor="mt")
    font = _fit(draw, standings.subtitle, 22, room, bold=False)
    draw.text((WIDTH // 2, 60), standings.subtitle, font=font, fill=MUTED, anchor="mt")
    heads_y = 112
    draw.text((_NAME_LEFT, heads_y), standings.heads[0], font=load_font(18, False), fill=MUTED, anchor="ls")
    for right, gap, head in zip(reversed(_RIGHTS), _GAPS, standings.heads[1:], strict=True):
        font = _fit(draw, head, 18, gap - 10, bold=False)
        draw.text((right, heads_y), _clip(draw, head, font, gap - 10), font=font, fill=MUTED, anchor="rs")
    if not standings.rows:
        draw.text(
            (WIDTH // 2, 130 + ROW_H // 2),
            standings.empty,
            font=_fit(draw, standings.empty, 26, room),
            fill=TEXT,
            anchor="mm",
        )
    for n, (place, name, cards, score, time, hints) in enumerate(standings.rows):
        top = 124 + n * ROW_H
        if n % 2 == 0:
            draw.rectangle((MARGIN, top, WIDTH - MARGIN, top + ROW_H - 4), fill=BAND)
        middle = top + (ROW_H - 4) // 2
        fill, ink = STEP_COLOURS[n] if n < 3 else ((40, 70, 52), TEXT)
        draw.ellipse((MARGIN + 8, middle - 20, MARGIN + 48, middle + 20), fill=fill)
        draw.text((MARGIN + 28, middle), place, font=load_font(22), fill=ink, anchor="mm")
        name_room = _RIGHTS[3] - 70 - _NAME_LEFT
        name_font = _fit(draw, name, 26, name_room, floor=20)
        draw.text(
            (_NAME_LEFT, middle), _clip(draw, name, name_font, name_room), font=name_font, fill=WHITE, anchor="lm"
        )
        for right, value in zip(reversed(_RIGHTS), (cards, score, time, hints), strict=True):
            draw.text(
                (right, middle), value, font=load_font(24, False), fill=GOLD if value == cards else TEXT, anchor="rm"
            )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()
