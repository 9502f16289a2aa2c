"""What players read about a game: rule sets, code problems and endings, in their language.

Events are put into words by ``pyramide.i18n.describe``."""

from __future__ import annotations

from datetime import date

from pyramide import InvalidCode, Rules
from pyramide.achievements import PERFECT_LOSS, perfect_loss
from pyramide.daily import daily_number, daily_tier
from pyramide.difficulty import Tier
from pyramide.i18n import t
from pyramide.labels import format_duration
from pyramide.solver import Verdict
from pyramide_service.manager import Live
from pyramide_service.solving import SolverService
from pyramide_service.storage import STUCK, WON, GameRecord

from ..answer import Answer


def rules_words(rules: Rules, lang: str) -> str:
    parts = []
    if rules.strict_win:
        parts.append(t(lang, "rules.name.S"))
    if rules.pass_limit is not None:
        parts.append(t(lang, "rules.name.P", passes=rules.pass_limit + 1))  # the same words as the option
    if rules.draw_with_waste:
        parts.append(t(lang, "rules.name.W"))
    if rules.pair_with_cover:
        parts.append(t(lang, "rules.name.C"))
    return ", ".join(parts) or t(lang, "rules.name.N")


def deal_tier(record: GameRecord, solver: SolverService) -> Tier | None:
    """The difficulty of a game's deal when it is known without rating it now: a daily's from its day
    (the week's schedule), another's when ``solver`` rated it (a deal chosen by difficulty, a daily
    before the schedule)."""
    rating = solver.known_rating(record.code)
    if record.daily is not None:
        scheduled = daily_tier(date.fromisoformat(record.daily))
        if scheduled is not None:
            return scheduled
    return rating.tier if rating is not None else None


def tier_words(record: GameRecord, lang: str, solver: SolverService) -> str:
    """ "Difficulty: hard" for the board's status line, or nothing for a deal not rated."""
    tier = deal_tier(record, solver)
    return t(lang, "board.tier", tier=t(lang, f"tier.{tier}")) if tier is not None else ""


def code_problem(error: InvalidCode, lang: str) -> str:
    return t(lang, f"error.code.{error.kind}")


async def ending_words(answer: Answer, live: Live, lang: str) -> list[str]:
    """The end line of a finished game, and whether its deal could have been won (the solver is asked,
    after deferring the answer, only when the verdict is not known yet)."""
    record = live.record
    lines: list[str] = []
    unlocked = list(record.unlocked or ())
    time_text = format_duration(record.seconds or 0)
    if record.status == WON:
        lines.append(t(lang, "end.won", score=record.score, moves=record.moves, time=time_text))
    else:
        lines.append(
            t(lang, "end.stuck")
            if record.status == STUCK
            else t(lang, "end.ended", score=record.score, moves=record.moves)
        )
        solver = answer.bot.solver
        known = solver.known_verdict(record.code)
        if known is None:
            await answer.defer()
            known = await solver.verdict(record.code)  # a bounded wait (solving.VERDICT_WAIT)
        verdict, most = known
        if perfect_loss(record.status, verdict is Verdict.IMPOSSIBLE, most, record.removed):
            # Decided once the verdict is known (after the finish): its insert decides who announces it.
            at = record.finished_at or 0.0
            if await answer.bot.storage.award(record.owner_id, PERFECT_LOSS, at, record.id):
                unlocked.append(PERFECT_LOSS)
        if verdict is Verdict.WON:
            lines.append(t(lang, "end.was_winnable"))
        elif verdict is Verdict.IMPOSSIBLE and most is not None:
            lines.append(t(lang, "end.not_winnable", count=most))
        else:
            lines.append(t(lang, "end.unknown"))
    if record.hints:
        lines.append(t(lang, "end.hints", count=record.hints))
    if record.daily is not None and record.counted:
        lines.append(share_text(record, record.picture, lang, answer.bot.solver))
    lines.extend(unlocked_line(key, lang) for key in unlocked)
    return lines


def unlocked_line(key: str, lang: str) -> str:
    """ "Achievement unlocked: First win — The first pyramid cleared." """
    name = t(lang, f"achievement.{key}.name")
    return t(lang, "achievement.unlocked", name=name, description=t(lang, f"achievement.{key}.description"))


def share_text(record: GameRecord, picture: str | None, lang: str, solver: SolverService) -> str:
    """A finished daily in a few spoiler-free lines: the day, the result, cards removed, time, moves,
    hints, and when each card of the pyramid went (no card is named, so it gives nothing away)."""
    assert record.daily is not None
    head = t(
        lang,
        "daily.share",
        number=daily_number(date.fromisoformat(record.daily)),
        tier=t(lang, f"tier.{deal_tier(record, solver) or 'unrated'}"),
        result=t(lang, f"daily.result.{record.status}"),
        removed=record.removed,
        time=format_duration(record.seconds or 0),
        moves=record.moves,
        hints=record.hints,
    )
    return head + ("\n" + picture if picture else "")
