"""The board: the pyramid, the piles, the footer and the banner, composed in palette mode from the
sprites and runs of text of ``sprites``.

A press therefore costs a copy of a cached layer, some thirty masked pastes of bytes and the PNG
encoding; no quantizing, no antialiasing and (once the words of a language are cached) no FreeType.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TypedDict, Unpack

from PIL import Image, ImageDraw

from ..bounded import LRU
from ..effects import GameResult, Spot
from ..game import PYRAMID_SIZE, STOCK, UNDER, WASTE, Game
from ..labels import Labels, format_duration
from ..style import DEFAULT, Style
from .geometry import (
    BANNER_BOTTOM,
    BANNER_TOP,
    CARD_W,
    FOOTER_BOX,
    FOOTER_Y,
    GOLD,
    HEIGHT,
    MARGIN,
    PILE_COUNT_Y,
    PILE_LABEL_Y,
    PILE_PASS_Y,
    PILE_TEXT_WIDTH,
    RAISE,
    RING,
    STOCK_BOX,
    STOCK_X,
    STOCK_Y,
    TOP,
    WASTE_BOX,
    WASTE_RIGHT,
    WHITE,
    WIDTH,
    card_position,
    waste_positions,
)
from .png import paletted_png
from .sprites import Faces, faces_for, load_font, paste, put, sprites, text_run, text_runs, text_width


def _pile_text(
    image: Image.Image, text: str, size: int, y: int, centre: int, fill: tuple[int, int, int], style: Style
) -> None:
    while size > 9 and text_width(text, size) > PILE_TEXT_WIDTH:
        size -= 1
    put(image, text_run(text, size, y, fill=fill, style=style), centre, y, "centre")


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
    return float(load_font(size, bold).getlength(text))


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


def _footer(image: Image.Image, game: Game, labels: Labels, now: float | None, code: str, style: Style) -> None:
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
            paste(image, text_run(piece, layout.size, y, fill=style.colours.text, style=style), (round(x) - 1, y))
            x += _advance(piece, layout.size)
        line_height = layout.code_size + 3
        top = middle - line_height * len(layout.code_lines) // 2 - 1
        for i, line in enumerate(layout.code_lines):
            y = top + i * line_height
            run = text_run(line, layout.code_size, y, bold=False, fill=style.colours.muted, style=style)
            put(image, run, WIDTH - MARGIN, y, "right")

    _region(image, ("footer", layout, style), FOOTER_BOX, draw)


# --- The board ---


@functools.lru_cache(maxsize=8)
def _widest_code_letter(size: int) -> int:
    return max(text_width(letter, size, bold=False) for letter in CODE_LETTERS) - 2


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
    style: Style,
) -> None:
    """A card (or pile) at ``xy``: raised in a gold ring when selected, in a blue ring when hinted (the
    outline, not the colour, is the sign, whatever the style)."""
    cache = sprites(style)
    x, y = xy
    if spot is not None and spot == selected:
        y -= RAISE
        paste(image, cache.select_ring, (x - RING, y - RING), cache.ring_mask)
    elif spot is not None and spot in highlight:
        paste(image, cache.hint_ring, (x - RING, y - RING), cache.ring_mask)
    paste(image, sprite, (x, y), cache.card_mask)


# About 17 MB: every game being played in a busy minute keeps its pyramid.
_layers: LRU[tuple[object, ...], Image.Image] = LRU(48)


def _pyramid_layer(
    game: Game, ranks: tuple[tuple[int, str], ...], highlight: Collection[Spot], style: Style
) -> Image.Image:
    """The table with the pyramid on it, cached: most presses draw from the stock, select a card or show
    a hint and leave the pyramid as it was, so a board usually costs a copy of this layer, the rings of
    the selected and hinted free cards drawn over it, the piles and the footer.

    A selected or hinted card that is still covered (the card-with-cover rule) is part of the layer:
    the cards over it must stay over its ring."""
    pyramid = game.pyramid
    covered = [spot for spot in (game.selected, *highlight) if isinstance(spot, int) and not game.is_free(spot)]
    selected = game.selected if game.selected in covered else None
    marked = tuple(sorted(set(covered) - {selected}))
    key = (pyramid, selected, marked, game.rules.pair_with_cover, ranks, style)
    layer = _layers.get(key)
    if layer is not None:
        return layer
    cache = sprites(style)
    faces = faces_for(ranks, style)
    layer = cache.table.copy()
    playable = set(game.selectable_spots()) if game.rules.pair_with_cover else set()
    for index in range(PYRAMID_SIZE):  # empty places first: the cards above lie over their outlines
        if pyramid[index] is None:
            paste(layer, cache.slot_line, card_position(index), cache.slot_mask)
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
        _place(layer, sprite, card_position(index), index, selected, marked, style)
    # A selected covered card is drawn again on top so that its raise is not hidden by the row below.
    if selected is not None and (raised := pyramid[selected]) is not None:
        _place(layer, faces.playable[raised], card_position(selected), selected, selected, marked, style)
    return _layers.put(key, layer)


def _free_rings(image: Image.Image, game: Game, faces: Faces, highlight: Collection[Spot], style: Style) -> None:
    """The selected and hinted free pyramid cards, in their rings, over the cached layer. Nothing lies
    over a free card, its ring fits in the gaps beside it, and it is raised no more than the ring is
    wide, so this draws exactly what drawing it inside the layer would."""
    for spot in sorted({game.selected, *highlight} - {None}, key=lambda s: s == game.selected):
        if isinstance(spot, int) and game.is_free(spot) and (card := game.pyramid[spot]) is not None:
            _place(image, faces.free[card], card_position(spot), spot, game.selected, highlight, style)


_regions: LRU[tuple[object, ...], Image.Image] = LRU(2048)


def _region(
    image: Image.Image, key: tuple[object, ...], box: tuple[int, int, int, int], draw: Callable[[], None]
) -> None:
    """Paste the cached picture of ``box`` for ``key``, or ``draw`` it on ``image`` and keep a copy."""
    found = _regions.get(key)
    if found is not None:
        paste(image, found, box[:2])
        return
    draw()
    _regions.put(key, image.crop((box[0] + 1, box[1], box[2] + 1, box[3])))


def _stock(image: Image.Image, game: Game, labels: Labels, highlight: Collection[Spot], style: Style) -> None:
    """The stock: a back, or an empty place (with a turn-back mark when the waste can go back)."""
    cache = sprites(style)
    count = len(game.stock)
    sprite = cache.back if count else cache.turn_pile if game.can_turn else cache.empty_pile
    words = [labels.stock, labels.cards(count)]
    if game.rules.pass_limit is not None:
        total = game.rules.pass_limit + 1
        words.append(labels.passes.format(current=min(game.passes + 1, total), total=total))

    def draw() -> None:
        _place(image, sprite, (STOCK_X, STOCK_Y), STOCK, game.selected, highlight, style)
        centre = STOCK_X + CARD_W // 2
        felt = style.colours
        for text, size, y, fill in zip(
            words,
            (14, 16, 14),
            (PILE_LABEL_Y, PILE_COUNT_Y, PILE_PASS_Y),
            (felt.muted, felt.text, felt.muted),
            strict=False,  # no passes line
        ):
            if text:
                _pile_text(image, text, size, y, centre, fill, style)

    _region(image, ("stock", id(sprite), STOCK in highlight, style, *words), STOCK_BOX, draw)


def _waste(image: Image.Image, game: Game, labels: Labels, highlight: Collection[Spot], style: Style) -> None:
    """The waste: up to three cards fanned, the top one on the right."""
    cache = sprites(style)
    faces = faces_for(labels.ranks, style)
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
            paste(image, cache.empty_pile, (WASTE_RIGHT - CARD_W, TOP), cache.card_mask)
        for card, xy, spot in zip(shown, positions, spots, strict=True):
            sprite = faces.free[card] if spot is not None else faces.covered[card]
            _place(image, sprite, xy, spot, game.selected, highlight, style)
        centre = WASTE_RIGHT - CARD_W // 2
        felt = style.colours
        if labels.waste:
            _pile_text(image, labels.waste, 14, PILE_LABEL_Y, centre, felt.muted, style)
        _pile_text(image, words[1], 16, PILE_COUNT_Y, centre, felt.text, style)

    _region(image, ("waste", shown, tuple(spots), marks, labels.ranks, style, *words), WASTE_BOX, draw)


def _compose(
    game: Game,
    labels: Labels,
    now: float | None,
    highlight: Collection[Spot],
    banner: str | None,
    code: str | None,
    style: Style,
) -> Image.Image:
    faces = faces_for(labels.ranks, style)
    image = _pyramid_layer(game, labels.ranks, highlight, style).copy()
    _free_rings(image, game, faces, highlight, style)
    _stock(image, game, labels, highlight, style)
    _waste(image, game, labels, highlight, style)
    _footer(image, game, labels, now, code or game.code, style)
    if game.outcome is not None:
        _banner(image, labels.won if game.outcome is GameResult.WON else labels.stuck, game.outcome, style)
    elif banner:
        _banner(image, banner, None, style)
    return image


def _banner(image: Image.Image, text: str, outcome: GameResult | None, style: Style) -> None:
    """A dark band across the board with the result (only on finished boards, so drawn each time)."""
    box = (1, BANNER_TOP, WIDTH + 1, BANNER_BOTTOM)  # on the canvas, past the filter column
    band = Image.blend(image.crop(box).convert("RGB"), Image.new("RGB", (WIDTH, BANNER_BOTTOM - BANNER_TOP)), 170 / 255)
    size = 48
    font = load_font(size)
    while font.getlength(text) > WIDTH - 60 and size > 18:
        size -= 3
        font = load_font(size)
    colour = GOLD if outcome is GameResult.WON else WHITE
    ImageDraw.Draw(band).text((WIDTH // 2, band.height // 2), text, font=font, fill=colour, anchor="mm")
    image.paste(sprites(style).to_palette(band), box[:2])


class DrawOptions(TypedDict, total=False):
    """What a board is drawn with besides the game.

    ``labels``: the words in the player's language; ``now``: the clock for the time shown; ``highlight``:
    the hinted spots; ``banner``: a text across the board (for example "Game ended"; a won or stuck game
    gets its banner from ``labels`` without it); ``code``: replaces the deal code in the footer (a daily
    in play shows its name, not its code); ``style``: the deck, corners and table of the player whose game it
    is (the default style without it)."""

    labels: Labels | None
    now: float | None
    highlight: Collection[Spot]
    banner: str | None
    code: str | None
    style: Style | None


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
        options.get("style") or DEFAULT,
    )


def clear_caches() -> None:
    """Forget every cached layer, region and run of text (sprites and fonts stay): the next board is
    drawn from scratch, as in a fresh process."""
    for cache in (_layers, _regions, text_runs):
        cache.clear()


def cached_pictures() -> int:
    """How many layers, regions and runs of text are cached."""
    return len(_layers) + len(_regions) + len(text_runs)


def render_image(game: Game, **options: Unpack[DrawOptions]) -> Image.Image:
    """The board as an RGB ``Image`` (see ``render_board`` for the PNG)."""
    return render_paletted(game, **options).convert("RGB")


def render_board(game: Game, **options: Unpack[DrawOptions]) -> bytes:
    """The board as PNG bytes: a paletted PNG (a third of the bytes of RGB to compress)."""
    return paletted_png(_board_canvas(game, options), options.get("style") or DEFAULT)
