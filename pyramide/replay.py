"""Animations of a game: the solver's winning line from the deal's start, or a player's own actions.

A line becomes frames (a position, the cards to mark, how long to show it); ``render.animate`` draws
and encodes them. ``winning_animation`` and ``replay_animation`` are what a worker process runs: no
Discord, and nothing here but the engine, the solver and the renderer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .effects import Spot
from .game import Game, Move
from .labels import Labels
from .render import animate
from .solver import solve
from .style import DEFAULT, Style

START_MS = 1200  # the deal, before the first move
MARK_MS = 450  # the pair or king about to go, ringed
REMOVED_MS = 350  # the short pause after a removal
STEP_MS = 220  # a draw, a turn, a selection
END_MS = 3000  # the cleared pyramid, held
MIN_MS = 60  # no frame shorter (players' clients show shorter delays as 100 ms or more)
MAX_PLAYBACK_MS = 90_000
MAX_BYTES = 8 * 1024 * 1024  # Discord's upload limit for a bot without boosts


@dataclass(frozen=True, slots=True)
class Frame:
    game: Game
    ms: int
    highlight: tuple[Spot, ...] = ()


@dataclass(frozen=True, slots=True)
class Animation:
    data: bytes
    format: str  # the file's extension: "gif"
    moves: int  # moves of the line shown (removals, draws and turns; a pair is one move)
    frames: int
    playback_ms: int


def line_frames(game: Game, line: Sequence[Move]) -> list[Frame]:
    """The deal, then each move: a removal shown ringed before it goes, with a pause after it."""
    game = game.copy()
    frames = [Frame(_still(game), START_MS)]
    for move in line:
        if move.kind in ("pair", "king"):
            frames.append(Frame(_still(game), MARK_MS, move.spots))
            game.play(move)
            frames.append(Frame(_still(game), REMOVED_MS))
        else:
            game.play(move)
            frames.append(Frame(_still(game), STEP_MS))
    return _held(frames)


def action_frames(game: Game, actions: Sequence[Spot]) -> list[Frame]:
    """A player's game as it was played: every tap (a selection shows raised), draw, turn and undo."""
    game = game.copy()
    frames = [Frame(_still(game), START_MS)]
    for action in actions:
        removed = game.removed
        game.apply(action)
        frames.append(Frame(_still(game), REMOVED_MS if game.removed > removed else STEP_MS))
    return _held(frames)


def _still(game: Game) -> Game:
    """A frame's position without the action log (a frame is drawn, never played on): each copy then
    costs the same, and a replay grows with its actions, not their square."""
    log, game.actions = game.actions, []
    try:
        return game.copy()
    finally:
        game.actions = log


def _held(frames: list[Frame]) -> list[Frame]:
    last = frames[-1]
    frames[-1] = Frame(last.game, END_MS, last.highlight)
    return fit(frames)


def fit(frames: list[Frame], limit_ms: int = MAX_PLAYBACK_MS) -> list[Frame]:
    """The frames within ``limit_ms`` of playback: every frame shortened in proportion, and when even the
    shortest frames would not fit, runs of draws merged into their last frame."""
    total = sum(frame.ms for frame in frames)
    if total <= limit_ms:
        return frames
    if len(frames) * MIN_MS > limit_ms:
        kept: list[Frame] = []
        for frame in frames:  # a step (draw, turn, selection) followed by another one is dropped
            if kept and not kept[-1].highlight and kept[-1].ms == STEP_MS and frame.ms == STEP_MS:
                kept[-1] = frame
            else:
                kept.append(frame)
        frames = kept[: limit_ms // MIN_MS - 1] + kept[-1:]
        total = sum(frame.ms for frame in frames)
    scale = limit_ms / total
    return [Frame(f.game, max(MIN_MS, int(f.ms * scale)), f.highlight) for f in frames]


def winning_animation(
    code: str, labels: Labels, node_limit: int, deadline: float | None, style: Style = DEFAULT
) -> Animation | None:
    """The solver's winning line of the deal ``code`` from its start, animated in ``style`` (``None``: no
    line found)."""
    line = winning_line(code, node_limit, deadline)
    if line is None:
        return None
    return _encoded(line_frames(Game.from_code(code), line), labels, code, len(line), style)


def winning_line(code: str, node_limit: int, deadline: float | None) -> tuple[Move, ...] | None:
    """The solver's winning line of the deal ``code`` from its start (``None``: none found): run in a
    worker, for a picture here or for a page that steps through the positions itself."""
    solution = solve(Game.from_code(code), node_limit, deadline)
    return tuple(solution.line) if solution.won else None


def replay_animation(code: str, actions: Sequence[Spot], labels: Labels, style: Style = DEFAULT) -> Animation:
    """A player's own game, animated from the deal in ``style``."""
    return _encoded(action_frames(Game.from_code(code), actions), labels, code, len(actions), style)


def _encoded(frames: list[Frame], labels: Labels, code: str, moves: int, style: Style) -> Animation:
    durations = [frame.ms for frame in frames]
    data = animate([(f.game, f.highlight) for f in frames], durations, labels=labels, code=code, style=style)
    return Animation(data, "gif", moves, len(frames), sum(durations))
