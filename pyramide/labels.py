"""Words and figures shown on a board, independent of how it is drawn: the cogs fill ``Labels`` in the
player's language, and both the picture and the messages format times with ``format_duration``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


def english_cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


@dataclass(frozen=True, slots=True)
class Labels:
    """Words drawn on the board, supplied by the caller in the player's language.

    ``cards`` says how many cards a pile holds (a function: the words depend on the count's plural
    category); ``passes`` is a format string with ``{current}`` and ``{total}`` ("pass 2 of 3")."""

    score: str = "Score"
    moves: str = "Moves"
    time: str = "Time"
    cards: Callable[[int], str] = english_cards
    passes: str = "pass {current} of {total}"
    stock: str = "Stock"
    waste: str = "Waste"
    won: str = "You won!"
    stuck: str = "No more possible moves"
    # Rank letters that differ from A/J/Q/K in the player's language, e.g. {13: "R", 12: "D", 11: "V"}.
    ranks: tuple[tuple[int, str], ...] = ()


def format_duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"
