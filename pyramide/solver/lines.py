"""Turning a compact search's steps back into engine moves that the game accepts, in order."""

from __future__ import annotations

from ..cards import Card
from ..game import UNDER, WASTE, Game, Move
from .base import Step, _Search


def _realize(game: Game, search: _Search, steps: list[Step]) -> list[Move]:
    """Turn abstract steps into engine moves by playing them on a copy of ``game``."""
    trial = game.copy()
    trial.selected = None
    out: list[Move] = []

    def play(move: Move) -> None:
        out.append(move)
        trial.play(move)

    def bring(value: int | None = None, top: Card | None = None, under: Card | None = None) -> None:
        """Draw, and turn the waste back, until its top card is ``top`` (or of ``value``), on ``under``."""
        for _ in range(2 * 52 + 2):
            waste = trial.waste
            if (
                waste
                and (value is None or waste[-1].value == value)
                and (top is None or waste[-1] == top)
                and (under is None or (len(waste) >= 2 and waste[-2] == under))
            ):
                return
            play(Move("draw") if trial.stock else Move("turn"))
        raise AssertionError("solver line cannot be realised")

    cards: list[Card] = getattr(search, "cards", [])  # the outside cards, for the searches that track them
    for step in steps:
        kind = step.kind
        if kind == "m":
            play(step.a)
        elif kind == "k":
            play(Move("king", (step.a,)))
        elif kind == "pp":
            play(Move("pair", (step.a, step.b)))
        elif kind == "po":
            bring(value=step.b)
            play(Move("pair", (step.a, WASTE)))
        elif kind == "pc":
            bring(top=cards[step.b])
            play(Move("pair", (step.a, WASTE)))
        elif kind == "cc":
            bring(top=cards[step.b], under=cards[step.a])
            play(Move("pair", (WASTE, UNDER)))
        elif kind == "ck":
            bring(top=cards[step.a])
            play(Move("king", (WASTE,)))
    # Strict win under the counts search: outside kings go last.
    while game.rules.strict_win and trial.outcome is None and any(c.is_king for c in (*trial.stock, *trial.waste)):
        bring(value=13)
        play(Move("king", (WASTE,)))
    return out
