"""Words and figures shown on a board, independent of how it is drawn: the cogs fill ``Labels`` in the
player's language, and both the picture and the messages format times with ``format_duration``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Labels:
    """Words drawn on the board, supplied by the caller in the player's language.

    ``cards`` and ``passes`` are format strings with ``{n}`` (and ``{limit}``)."""

    score: str = "Score"
    moves: str = "Moves"
    time: str = "Time"
    cards: str = "{n} cards"
    passes: str = "passes {n}/{limit}"
    won: str = "You won!"
    stuck: str = "No more possible moves"
    # Rank letters that differ from A/J/Q/K in the player's language, e.g. {13: "R", 12: "D", 11: "V"}.
    ranks: tuple[tuple[int, str], ...] = ()


def format_duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"
