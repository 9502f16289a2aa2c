"""The card pictures the Activity's page draws its table with: the same faces, back and empty piles as
the board picture (``sprites``), one PNG each with transparent rounded corners, at the board's size (the
page scales them)."""

from __future__ import annotations

import functools
import io

from PIL import Image

from ..cards import Card
from ..style import DEFAULT, Style
from .geometry import CARD_H, CARD_W, RADIUS
from .sprites import faces_for, rounded_mask, sprites

PILES = ("back", "empty", "turn")  # the stock's back, an empty waste, the stock to turn back


def _png(image: Image.Image) -> bytes:
    picture = image.convert("RGBA")
    picture.putalpha(rounded_mask((CARD_W, CARD_H), RADIUS))
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


@functools.lru_cache(maxsize=4 * 56 * 3)
def face_png(name: str, ranks: tuple[tuple[int, str], ...] = (), style: Style = DEFAULT) -> bytes:
    """``name``: a card's index (0-51, ``Card.index``) or one of ``PILES``; ``ranks``: a language's rank
    letters (``pyramide.i18n.rank_letters``); ``style``: the viewer's deck, corners and table. Raises
    ``ValueError`` for another name."""
    if name in PILES:
        cache = sprites(style)
        return _png({"back": cache.back, "empty": cache.empty_pile, "turn": cache.turn_pile}[name])
    if not name.isdigit() or not 0 <= int(name) < 52:
        raise ValueError(f"no card picture {name[:20]!r}")
    return _png(faces_for(ranks, style).free[Card.from_index(int(name))])
