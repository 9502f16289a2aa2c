"""What both faces say about the daily: the time to the next one, where an open attempt waits, the words of
a second attempt (refused: the day's result and its share line), and the month's calendar picture."""

from __future__ import annotations

from datetime import date, datetime

from pyramide.daily import DayKind, MonthCalendar, daily_number, day_key, month_bounds, month_calendar, time_to_next
from pyramide.i18n import month_name, t, weekday_names
from pyramide.render import MonthPicture, render_month
from pyramide_service import DailyAttempt
from pyramide_service.dailies import DailyAttempts
from pyramide_service.manager import GameManager
from pyramide_service.seats import is_seat
from pyramide_service.server_settings import OUTSIDE_SERVERS
from pyramide_service.solving import SolverService

from .words import share_text


def next_daily(lang: str, now: datetime) -> str:
    left = time_to_next(now)
    hours, rest = divmod(int(left.total_seconds()), 3600)
    return t(lang, "daily.next", hours=hours, minutes=rest // 60)


def waiting_words(attempt: DailyAttempt, lang: str, number: int, asked_in: int | None) -> str:
    """Where the player's open daily waits: a channel mention only where it leads somewhere (``asked_in``:
    the server it was asked in, ``None`` where a mention shows as none, the page); elsewhere (a DM, a group
    DM, another server, an Activity's seat) the kind of place, in words."""
    if is_seat(attempt.channel_id):  # (a seat is no Discord channel: nothing to mention)
        return t(lang, "daily.waiting_activity", number=number)
    if asked_in is not None and asked_in != OUTSIDE_SERVERS and attempt.guild_id == asked_in:
        return t(lang, "daily.waiting", number=number, thread=f"<#{attempt.channel_id}>")
    kind = "daily.waiting_dm" if attempt.guild_id == OUTSIDE_SERVERS else "daily.waiting_server"
    return t(lang, kind, number=number)


async def already_words(
    manager: GameManager, solver: SolverService, attempt: DailyAttempt, lang: str, now: datetime, asked_in: int | None
) -> str:
    """A second attempt at the day's daily, refused: where the open one waits, or the day's result."""
    number = daily_number(date.fromisoformat(attempt.day))
    if attempt.status is None:
        return waiting_words(attempt, lang, number, asked_in)
    record = await manager.record(attempt.game_id)
    lines = [t(lang, "daily.done", number=number)]
    if record is not None:
        lines.append(share_text(record, attempt.picture, lang, solver))
    lines.append(next_daily(lang, now))
    return "\n".join(lines)


def month_picture(calendar: MonthCalendar, lang: str) -> tuple[MonthPicture, str]:
    """What the calendar picture shows in the player's language, and its alt text."""
    name = month_name(lang, calendar.year, calendar.month)

    def days(count: int) -> str:
        return t(lang, "month.days", count=count)

    streak = t(lang, "month.streak", current=days(calendar.current_streak), best=days(calendar.best_streak))
    badge = (
        t(lang, "month.badge.won")
        if calendar.badge
        else t(lang, "month.badge.open", won=calendar.won, days=len(calendar.days))
    )
    kinds = (DayKind.CLEAN, DayKind.HINTED, DayKind.GAVE_UP, DayKind.MISSED)
    picture = MonthPicture(
        title=t(lang, "month.title", month=name),
        weekdays=weekday_names(lang),
        days=tuple(str(kind) for kind in calendar.days),
        first_weekday=calendar.first_weekday,
        today=calendar.today,
        legend=tuple((str(kind), t(lang, f"month.{kind}")) for kind in kinds),
        streak=streak,
        badge=badge,
        badge_won=calendar.badge,
    )
    counts = {str(kind): calendar.days.count(kind) for kind in kinds}
    return picture, t(lang, "month.alt", month=name, streak=streak, **counts)[:1000]


async def month_png(
    attempts: DailyAttempts, player_id: int, lang: str, now: date, last: bool = False
) -> tuple[bytes, str]:
    """``/pyramide daily month``'s picture of the player's month (or the last), and its alt text (the PNG
    takes a few milliseconds: drawn where it is asked)."""
    year, month = (now.year, now.month) if not last else (now.year - (now.month == 1), (now.month - 2) % 12 + 1)
    first, final = month_bounds(year, month)
    found, streaks = await attempts.month(player_id, day_key(first), day_key(final), now)
    picture, alt = month_picture(month_calendar(year, month, found, now, streaks), lang)
    return render_month(picture), alt
