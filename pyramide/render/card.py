"""The player card of ``/pyramide stats``: the main figures, the last 30 days as a chart, the month's dailies
as a strip, and the latest and rarest achievements, readable at phone width."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import ImageDraw

from .badges import ICON, _fit, icon, rgb_png, table
from .geometry import BAND, GOLD, MARGIN, MUTED, SLOT_LINE, TEXT, WIDTH
from .month import MONTH_COLOURS
from .sprites import load_font

GAMES_BAR = (150, 185, 165)
WINS_BAR = (70, 190, 90)


@dataclass(frozen=True, slots=True)
class CardBadge:
    key: str
    group: str
    name: str
    detail: str  # its date, or its rarity


@dataclass(frozen=True, slots=True)
class PlayerCard:
    """What the card shows, in the player's language."""

    title: str
    subtitle: str
    figures: tuple[tuple[str, str], ...]  # (label, value), read row by row, three a row
    chart_title: str
    chart: tuple[tuple[int, int], ...]  # (games, wins) a day, the oldest first
    chart_ends: tuple[str, str]  # the first day's and the last day's labels
    legend: tuple[str, str]  # "games", "wins"
    dailies_title: str
    dailies: tuple[str, ...]  # one DayKind value a day of the month (pyramide.daily)
    today: int | None
    badges_title: str
    badges: tuple[tuple[str, CardBadge], ...]  # ("Latest", badge), ("Rarest", badge)
    no_badge: str


FIGURE_COLUMNS = 3
FIGURE_H = 66
LABEL_SIZE, VALUE_SIZE, SMALL = 18, 28, 18  # the board's footer is 12-20 px
CHART_H = 150
TILE = 38
TILE_GAP = 3


def render_card(card: PlayerCard) -> bytes:
    figure_rows = -(-len(card.figures) // FIGURE_COLUMNS)
    head = 92
    figures_top = head + 10
    chart_top = figures_top + figure_rows * FIGURE_H + 16
    strip_top = chart_top + 34 + CHART_H + 52
    badges_top = strip_top + 34 + 2 * (TILE + TILE_GAP) + 18
    height = badges_top + 36 + ICON + 34
    image = table(height)
    draw = ImageDraw.Draw(image)
    room = WIDTH - 2 * MARGIN
    draw.rectangle((0, 0, WIDTH, head), fill=BAND)
    draw.text((MARGIN, 14), card.title, font=_fit(draw, card.title, 32, room), fill=TEXT)
    draw.text((MARGIN, 56), card.subtitle, font=_fit(draw, card.subtitle, 20, room, False), fill=MUTED)

    column = room // FIGURE_COLUMNS
    for n, (label, value) in enumerate(card.figures):
        x = MARGIN + (n % FIGURE_COLUMNS) * column
        y = figures_top + (n // FIGURE_COLUMNS) * FIGURE_H
        draw.text((x, y), label, font=_fit(draw, label, LABEL_SIZE, column - 8, False), fill=MUTED)
        draw.text((x, y + 22), value, font=_fit(draw, value, VALUE_SIZE, column - 8), fill=TEXT)

    draw.text((MARGIN, chart_top), card.chart_title, font=_fit(draw, card.chart_title, 21, room), fill=TEXT)
    _chart(draw, card, (MARGIN, chart_top + 34, WIDTH - MARGIN, chart_top + 34 + CHART_H))

    draw.text((MARGIN, strip_top), card.dailies_title, font=_fit(draw, card.dailies_title, 21, room), fill=TEXT)
    per_row = 16
    for index, kind in enumerate(card.dailies):
        left = MARGIN + (index % per_row) * (TILE + TILE_GAP) + 2
        top = strip_top + 34 + (index // per_row) * (TILE + TILE_GAP)
        fill, ink, mark = MONTH_COLOURS.get(kind, MONTH_COLOURS["none"])
        box = (left, top, left + TILE, top + TILE)
        draw.rounded_rectangle(box, 6, fill=fill, outline=SLOT_LINE if kind == "missed" else None)
        draw.text(
            (left + TILE // 2, top + TILE // 2 + 1), mark or str(index + 1), font=load_font(20), fill=ink, anchor="mm"
        )
        if card.today == index + 1:
            draw.rounded_rectangle((left - 2, top - 2, left + TILE + 2, top + TILE + 2), 7, outline=GOLD, width=3)

    draw.text((MARGIN, badges_top), card.badges_title, font=_fit(draw, card.badges_title, 21, room), fill=TEXT)
    if not card.badges:
        draw.text(
            (MARGIN, badges_top + 40), card.no_badge, font=_fit(draw, card.no_badge, SMALL, room, False), fill=MUTED
        )
    half = room // 2
    for n, (label, badge) in enumerate(card.badges[:2]):
        x = MARGIN + n * half
        y = badges_top + 36
        picture = icon(badge.key, badge.group, True)
        image.paste(picture, (x, y), picture)
        text_room = half - ICON - 18
        draw.text((x + ICON + 10, y - 2), label, font=_fit(draw, label, 17, text_room, False), fill=MUTED)
        draw.text((x + ICON + 10, y + 20), badge.name, font=_fit(draw, badge.name, 21, text_room), fill=TEXT)
        draw.text(
            (x + ICON + 10, y + 46), badge.detail, font=_fit(draw, badge.detail, SMALL, text_room, False), fill=GOLD
        )
    return rgb_png(image)


def _chart(draw: ImageDraw.ImageDraw, card: PlayerCard, box: tuple[int, int, int, int]) -> None:
    """Games a day as pale bars, the wins of the day in green over them; the tallest day's count on
    the left, the first and last days under the axis, the legend under those."""
    left, top, right, bottom = box
    axis = left + 34
    peak = max((games for games, _ in card.chart), default=0)
    scale = max(peak, 1)
    draw.line((axis, bottom, right, bottom), fill=SLOT_LINE, width=2)
    draw.line((axis, top, right, top), fill=(40, 100, 66), width=1)
    font = load_font(SMALL, False)
    draw.text((axis - 6, top), str(peak), font=font, fill=MUTED, anchor="rt")
    draw.text((axis - 6, bottom), "0", font=font, fill=MUTED, anchor="rb")
    days = max(1, len(card.chart))
    step = (right - axis) / days
    for n, (games, wins) in enumerate(card.chart):
        x0 = axis + n * step + 2
        x1 = axis + (n + 1) * step - 2
        if games:
            draw.rectangle((x0, bottom - (bottom - top) * games / scale, x1, bottom - 1), fill=GAMES_BAR)
        if wins:
            draw.rectangle((x0, bottom - (bottom - top) * wins / scale, x1, bottom - 1), fill=WINS_BAR)
    draw.text((axis, bottom + 6), card.chart_ends[0], font=font, fill=MUTED)
    draw.text((right, bottom + 6), card.chart_ends[1], font=font, fill=MUTED, anchor="ra")
    legend_y = bottom + 8
    middle = (axis + right) // 2
    for n, (words, colour) in enumerate(zip(card.legend, (GAMES_BAR, WINS_BAR), strict=True)):
        x = middle - 110 + n * 120
        draw.rectangle((x, legend_y + 3, x + 16, legend_y + 19), fill=colour)
        draw.text((x + 22, legend_y), words, font=font, fill=TEXT)
