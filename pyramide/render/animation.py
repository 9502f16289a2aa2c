"""A line of play as a looping animated GIF of boards."""

from __future__ import annotations

import io
from collections.abc import Collection, Sequence
from typing import Any

from ..effects import Spot
from ..game import Game
from .board import render_paletted


def animate(boards: Sequence[tuple[Game, Collection[Spot]]], durations: Sequence[int], **options: Any) -> bytes:
    """Positions (each with the spots to ring) drawn as a looping animated GIF, each shown for its
    duration in ms. One palette for every frame, and each frame stores only the rectangle that changed
    (Pillow's GIF writer): a 100-move line takes a few hundred KB, animated WebP several times more."""
    images = [render_paletted(game, highlight=highlight, **options) for game, highlight in boards]
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], duration=list(durations), loop=0)
    return out.getvalue()


# --- A player's month of dailies: a calendar on the table, readable at phone width ---
