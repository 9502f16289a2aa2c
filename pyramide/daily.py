"""The daily challenge: one winnable deal per UTC day, the same on every server of a deployment.

With a deployment secret the day's deal cannot be worked out in advance from the date; without
one (tests, docs) the plain date-based scheme of docs/deal-codes.md is used.
"""

from __future__ import annotations

import hashlib
import hmac
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


def daily_start(day: date, secret: bytes | None = None) -> int:
    """Where the search for the day's deal starts (see docs/deal-codes.md): from the date alone, or
    HMAC-SHA256 of the date under the deployment's secret."""
    if secret is None:
        return ((day - EPOCH).days * STRIDE + OFFSET) % (MAX_DEAL_NUMBER + 1)
    digest = hmac.new(secret, day.isoformat().encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") % (MAX_DEAL_NUMBER + 1)


@lru_cache(maxsize=64)
def daily_deal_number(day: date, secret: bytes | None = None) -> int:
    """The first deal from the day's start number that the solver proves winnable under the default rules."""
    pick = first_winnable(daily_start(day, secret), Rules())
    assert pick is not None  # without max_tries the search only ends on a winnable deal
    return pick.number


def daily_game(day: date, secret: bytes | None = None) -> Game:
    return Game.from_number(daily_deal_number(day, secret), Rules())


# How a pyramid was cleared, for the share line: when each card went, in thirds of the game.
CLEARED_MARKS = ("🟩", "🟨", "🟧")
LEFT_MARK = "⬛"


def clearing_picture(code: str, actions: list[int | str]) -> str:
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
