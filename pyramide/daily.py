"""The daily challenge: one winnable deal per UTC day, the same for every copy of the bot."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from .codes import MAX_DEAL_NUMBER
from .game import Game
from .rules import Rules
from .solver import first_winnable

EPOCH = date(2026, 1, 1)  # daily #1
STRIDE = 7919
OFFSET = 1_000_003


def today(now: datetime | None = None) -> date:
    return (now or datetime.now(UTC)).astimezone(UTC).date()


def daily_number(day: date) -> int:
    """The challenge's number for players: 2026-01-01 is #1."""
    return (day - EPOCH).days + 1


def daily_start(day: date) -> int:
    """Where the search for the day's deal starts (see docs/deal-codes.md)."""
    return ((day - EPOCH).days * STRIDE + OFFSET) % (MAX_DEAL_NUMBER + 1)


@lru_cache(maxsize=64)
def daily_deal_number(day: date) -> int:
    """The first deal from the day's start number that the solver proves winnable under the default rules."""
    pick = first_winnable(daily_start(day), Rules())
    assert pick is not None  # without max_tries the search only ends on a winnable deal
    return pick.number


def daily_game(day: date) -> Game:
    return Game.from_number(daily_deal_number(day), Rules())


def time_to_next(now: datetime | None = None) -> timedelta:
    now = (now or datetime.now(UTC)).astimezone(UTC)
    tomorrow = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
    return tomorrow - now


def day_key(day: date) -> str:
    return day.isoformat()
