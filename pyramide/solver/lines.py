"""Turning a compact search's steps back into engine moves that the game accepts, in order."""

from __future__ import annotations

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

    def cycle_until(done) -> None:  # noqa: ANN001
        for _ in range(2 * 52 + 2):
            if done():
                return
            play(Move("draw") if trial.stock else Move("turn"))
        raise AssertionError("solver line cannot be realised")

    cards = getattr(search, "cards", None)
    for step in steps:
        kind = step[0]
        if kind == "m":
            play(step[1])
        elif kind == "k":
            play(Move("king", (step[1],)))
        elif kind == "pp":
            play(Move("pair", (step[1], step[2])))
        elif kind == "po":
            value = step[2]
            cycle_until(lambda v=value: bool(trial.waste) and trial.waste[-1].value == v)
            play(Move("pair", (step[1], WASTE)))
        elif kind == "pc":
            card = cards[step[2]]
            cycle_until(lambda c=card: bool(trial.waste) and trial.waste[-1] == c)
            play(Move("pair", (step[1], WASTE)))
        elif kind == "cc":
            low, high = cards[step[1]], cards[step[2]]
            cycle_until(lambda a=low, b=high: len(trial.waste) >= 2 and trial.waste[-2:] == (a, b))
            play(Move("pair", (WASTE, UNDER)))
        elif kind == "ck":
            card = cards[step[1]]
            cycle_until(lambda c=card: bool(trial.waste) and trial.waste[-1] == c)
            play(Move("king", (WASTE,)))
    # Strict win under the counts search: outside kings go last.
    while game.rules.strict_win and trial.outcome is None and any(c.is_king for c in (*trial.stock, *trial.waste)):
        cycle_until(lambda: bool(trial.waste) and trial.waste[-1].is_king)
        play(Move("king", (WASTE,)))
    return out
