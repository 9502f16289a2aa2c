"""A finished game's facts, each worked out once, where it is decided: the deal's difficulty (the one rule
for it), the solver's verdict, what the game unlocked and a counted daily's share line."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pyramide.daily import daily_number, daily_tier
from pyramide.difficulty import Tier
from pyramide.i18n import t
from pyramide.labels import format_duration

from . import finished
from .solving import DealVerdict, SolverService
from .storage import GameRecord


def deal_tier(code: str, daily: str | None, solver: SolverService | None) -> Tier | None:
    """The difficulty of a deal when it is known without rating it now: a daily's from its day (the week's
    schedule), another's when ``solver`` rated it (a deal chosen by difficulty, a daily before the schedule)."""
    if daily is not None and (scheduled := daily_tier(date.fromisoformat(daily))) is not None:
        return scheduled
    rating = solver.known_rating(code) if solver is not None else None
    return rating.tier if rating is not None else None


def daily_tier_of(day: str) -> str | None:
    """The scheduled difficulty of the daily of ``day`` (``None`` before the schedule began)."""
    tier = deal_tier("", day, None)
    return str(tier) if tier is not None else None


def record_tier(record: GameRecord, solver: SolverService | None) -> str | None:
    """A game's deal difficulty, as far as it is known now."""
    tier = deal_tier(record.code, record.daily, solver)
    return str(tier) if tier is not None else None


def share_line(record: GameRecord, picture: str | None, lang: str, tier: str | None) -> str:
    """A finished daily in a few spoiler-free lines: the day, the result, cards removed, time, moves,
    hints, and when each card of the pyramid went (no card is named, so it gives nothing away)."""
    assert record.daily is not None
    head = t(
        lang,
        "daily.share",
        number=daily_number(date.fromisoformat(record.daily)),
        tier=t(lang, f"tier.{tier or 'unrated'}"),
        result=t(lang, f"daily.result.{record.status}"),
        removed=record.removed,
        time=format_duration(record.seconds or 0),
        moves=record.moves,
        hints=record.hints,
    )
    return head + ("\n" + picture if picture else "")


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: its record (result, score, moves, time, hints), the solver's verdict on the deal
    (``None`` for a won game: it was winnable), the deal's difficulty, what the game unlocked (a perfect
    loss included when the verdict decided it in time) and a counted daily's share line."""

    record: GameRecord
    verdict: DealVerdict | None
    tier: str | None
    unlocked: tuple[str, ...]
    share: str | None

    @property
    def winnable(self) -> bool:
        """Whether the deal is known to be winnable from its start: won, or proved by the solver."""
        return finished.winnable(self.record, self.verdict)
