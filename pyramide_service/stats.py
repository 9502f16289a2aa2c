"""Statistics computed from stored results: no figure is kept only in memory."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from .storage import WON, GameStatus, ResultRow


@dataclass(frozen=True, slots=True)
class PlayerStats:
    played: int
    won: int
    best_seconds: float | None
    fewest_moves: int | None
    average_score: float
    current_streak: int
    best_streak: int
    daily_played: int
    daily_won: int
    recent: tuple[GameStatus, ...]  # the last results, oldest first
    hints: int = 0  # hints used over all these games

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0


def player_stats(rows: Sequence[ResultRow], recent: int = 10) -> PlayerStats:
    """Figures for one player from their finished games, oldest first."""
    wins = [r for r in rows if r.status == WON]
    best = current = 0
    for row in rows:
        current = current + 1 if row.status == WON else 0
        best = max(best, current)
    counted = [r for r in rows if r.daily is not None and r.counted]
    return PlayerStats(
        played=len(rows),
        won=len(wins),
        best_seconds=min((r.seconds for r in wins if r.seconds is not None), default=None),
        fewest_moves=min((r.moves for r in wins), default=None),
        average_score=sum(r.score for r in rows) / len(rows) if rows else 0.0,
        current_streak=current,
        best_streak=best,
        daily_played=len(counted),
        daily_won=sum(1 for r in counted if r.status == WON),
        recent=tuple(r.status for r in rows[-recent:]),
        hints=sum(r.hints for r in rows),
    )


def day_streaks(days: Sequence[str], today: date) -> tuple[int, int]:
    """(current, best) runs of consecutive UTC days with a counted daily.

    The current run is still alive today if the last day played is today or yesterday:
    a streak breaks only once a whole day has passed without a daily."""
    played = sorted({date.fromisoformat(d) for d in days})
    best = run = 0
    previous: date | None = None
    for day in played:
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and today - previous <= timedelta(days=1) else 0
    return current, best


def recent_days(rows: Sequence[ResultRow], today: date, days: int = 30) -> list[tuple[int, int]]:
    """(games, wins) finished on each of the ``days`` UTC days up to ``today``, the oldest first."""
    first = today - timedelta(days=days - 1)
    counts = [[0, 0] for _ in range(days)]
    for row in rows:
        day = datetime.fromtimestamp(row.finished_at, UTC).date()
        if first <= day <= today:
            counts[(day - first).days][0] += 1
            counts[(day - first).days][1] += row.status == WON
    return [(games, wins) for games, wins in counts]
