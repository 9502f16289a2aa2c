"""The daily challenge: one winnable deal per UTC day, the same on every server of a deployment.

With a deployment secret the day's deal cannot be worked out in advance from the date; without
one (tests, docs) the plain date-based scheme of docs/deal-codes.md is used.
"""

from __future__ import annotations

import hashlib
import hmac
from calendar import monthrange
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from functools import lru_cache
from typing import Protocol

from .codes import MAX_DEAL_NUMBER
from .difficulty import Rating, Tier, find_rated, rate
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


def daily_start(day: date, secret: bytes | None = None) -> int:
    """Where the search for the day's deal starts (see docs/deal-codes.md): from the date alone, or
    HMAC-SHA256 of the date under the deployment's secret."""
    if secret is None:
        return ((day - EPOCH).days * STRIDE + OFFSET) % (MAX_DEAL_NUMBER + 1)
    digest = hmac.new(secret, day.isoformat().encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % (MAX_DEAL_NUMBER + 1)


# The week gets harder from Monday to Sunday (date.weekday(): Monday is 0), as crosswords do.
WEEK_TIERS = (Tier.EASY, Tier.EASY, Tier.MEDIUM, Tier.MEDIUM, Tier.HARD, Tier.HARD, Tier.EXPERT)
# The first day chosen by the week's schedule, a Monday. The days before keep the deal they had (the
# first winnable deal from the day's start): an upgrade never changes a day that players may have played.
RATED_FROM = date(2026, 12, 7)


def daily_tier(day: date) -> Tier | None:
    """The tier the week's schedule gives ``day`` (``None`` before the schedule began)."""
    return WEEK_TIERS[day.weekday()] if day >= RATED_FROM else None


@lru_cache(maxsize=64)
def _daily_pick(day: date, secret: bytes | None) -> tuple[int, Rating]:
    tier = daily_tier(day)
    if tier is None:
        pick = first_winnable(daily_start(day, secret), Rules())
        assert pick is not None  # without max_tries the search only ends on a winnable deal
        return pick.number, rate(Game.from_number(pick.number))
    found = find_rated(daily_start(day, secret), Rules(), tier)
    assert found is not None  # without max_tries the search only ends on a deal of the tier
    return found


def daily_deal_number(day: date, secret: bytes | None = None) -> int:
    """The first deal from the day's start number that the solver proves winnable under the default
    rules and, from ``RATED_FROM`` on, is of the day's tier (docs/deal-codes.md)."""
    return _daily_pick(day, secret)[0]


def daily_rating(day: date, secret: bytes | None = None) -> Rating:
    """The day's deal (its code) and its rating: what the bot's worker hands back once a day."""
    return _daily_pick(day, secret)[1]


def daily_game(day: date, secret: bytes | None = None) -> Game:
    return Game.from_number(daily_deal_number(day, secret), Rules())


# How a pyramid was cleared, for the share line: when each card went, in thirds of the game.
CLEARED_MARKS = ("🟩", "🟨", "🟧")
LEFT_MARK = "⬛"


def clearing_picture(code: str, actions: Sequence[int | str]) -> str:
    """The pyramid as seven rows of squares: green for a card removed in the first third of the game's
    actions, yellow in the second, orange in the last, black for one left. No card is named."""
    game = Game.from_code(code)
    gone_at: list[int | None] = [None] * 28
    for index, action in enumerate(actions):
        game.apply(action)
        for spot, card in enumerate(game.pyramid):
            if card is None and gone_at[spot] is None:
                gone_at[spot] = index
            elif card is not None:
                gone_at[spot] = None  # put back by an undo
    total = max(len(actions), 1)
    marks = [LEFT_MARK if at is None else CLEARED_MARKS[min(2, at * 3 // total)] for at in gone_at]
    rows = []
    for row in range(7):
        start = row * (row + 1) // 2
        rows.append("".join(marks[start : start + row + 1]))
    return "\n".join(rows)


def time_to_next(now: datetime | None = None) -> timedelta:
    now = (now or datetime.now(UTC)).astimezone(UTC)
    tomorrow = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
    return tomorrow - now


def day_key(day: date) -> str:
    return day.isoformat()


class DayKind(StrEnum):
    """How a day of a player's month went, for the calendar."""

    CLEAN = "clean"  # won without hints
    HINTED = "hinted"  # won with hints
    GAVE_UP = "gave_up"  # finished without clearing the pyramid (ended, stuck, or left at midnight)
    MISSED = "missed"  # a past day without an attempt
    OPEN = "open"  # today's attempt, still played
    NONE = "none"  # today not opened yet, a day to come, or a day before the first daily


@dataclass(frozen=True, slots=True)
class MonthCalendar:
    year: int
    month: int
    days: tuple[DayKind, ...]  # one a day of the month, the 1st first
    today: int | None  # the day of the month that is today, when it is this month
    current_streak: int
    best_streak: int

    @property
    def badge(self) -> bool:
        """The month's badge: every day of the month won (with or without hints)."""
        return all(kind in (DayKind.CLEAN, DayKind.HINTED) for kind in self.days)

    @property
    def won(self) -> int:
        return sum(kind in (DayKind.CLEAN, DayKind.HINTED) for kind in self.days)

    @property
    def first_weekday(self) -> int:
        """The weekday of the 1st (Monday is 0)."""
        return date(self.year, self.month, 1).weekday()


def month_bounds(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, monthrange(year, month)[1])


class Attempt(Protocol):
    """A player's daily attempt as the calendar reads it (the application's stored row fits)."""

    @property
    def day(self) -> str: ...
    @property
    def status(self) -> str | None: ...  # None while in play, else the game's result ("won", ...)
    @property
    def hints(self) -> int: ...


def month_calendar(
    year: int, month: int, attempts: Sequence[Attempt], now: date, streaks: tuple[int, int]
) -> MonthCalendar:
    """The calendar of ``year``-``month`` from a player's daily attempts of that month, seen on ``now``."""
    by_day = {attempt.day: attempt for attempt in attempts}
    first, last = month_bounds(year, month)
    kinds = []
    for offset in range((last - first).days + 1):
        day = first + timedelta(days=offset)
        attempt = by_day.get(day_key(day))
        if attempt is None:
            kinds.append(DayKind.MISSED if EPOCH <= day < now else DayKind.NONE)
        elif attempt.status is None:
            kinds.append(DayKind.OPEN if day >= now else DayKind.GAVE_UP)  # left at midnight: given up
        elif attempt.status == "won":
            kinds.append(DayKind.HINTED if attempt.hints else DayKind.CLEAN)
        else:
            kinds.append(DayKind.GAVE_UP)
    today_in_month = now.day if (now.year, now.month) == (year, month) else None
    return MonthCalendar(year, month, tuple(kinds), today_in_month, *streaks)
