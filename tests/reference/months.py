"""The month of the calendar reference image: November 2026 seen on the 29th, with every kind of day
(won without hints, won with hints, given up, missed, today's attempt still open, days to come)."""

from __future__ import annotations

from datetime import date

from pyramide.daily import MonthCalendar, month_calendar
from pyramide_service.storage import ENDED, STUCK, WON, DailyAttempt

TODAY = date(2026, 11, 29)
PLAYER = 42


def attempt(day: int, status: str | None, hints: int = 0) -> DailyAttempt:
    return DailyAttempt(
        f"2026-11-{day:02}", PLAYER, 1, 2, day, 0.0, status, 60.0, 80, hints, 28 if status == WON else 12, None
    )


# 1-3 won clean, 4 with hints, 5 given up, 6 missed, 7-21 won (three with hints), 22 stuck,
# 23 missed, 24-28 won, 29 (today) open, 30 to come.
ATTEMPTS = [
    *(attempt(day, WON) for day in (1, 2, 3)),
    attempt(4, WON, hints=2),
    attempt(5, ENDED),
    *(attempt(day, WON, hints=1 if day in (9, 13, 17) else 0) for day in range(7, 22)),
    attempt(22, STUCK),
    *(attempt(day, WON) for day in range(24, 29)),
    attempt(29, None),
]


def november() -> MonthCalendar:
    return month_calendar(2026, 11, ATTEMPTS, TODAY, (6, 15))


def all_won() -> MonthCalendar:
    """October 2026, every day won: the month's badge."""
    days = [
        DailyAttempt(f"2026-10-{day:02}", PLAYER, 1, 2, day, 0.0, WON, 60.0, 80, day % 4 == 0, 28, None)
        for day in range(1, 32)
    ]
    return month_calendar(2026, 10, days, TODAY, (6, 31))


MONTHS = {"month_november_en": (november, "en"), "month_october_ru": (all_won, "ru")}
