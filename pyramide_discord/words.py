"""What players read about a game: rule sets, code problems and endings, in their language.

Events are put into words by ``pyramide.i18n.describe``."""

from __future__ import annotations

from pyramide import InvalidCode, Rules
from pyramide.i18n import t
from pyramide.labels import format_duration
from pyramide.solver import Verdict
from pyramide_service import STUCK, WON, GameRecord
from pyramide_service.ending import Ending, record_tier, share_line
from pyramide_service.solving import SolverService


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


def tier_words(record: GameRecord, lang: str, solver: SolverService) -> str:
    """ "Difficulty: hard" for the board's status line, or nothing for a deal not rated."""
    return tier_line(record_tier(record, solver), lang)


def tier_line(tier: str | None, lang: str) -> str:
    return t(lang, "board.tier", tier=t(lang, f"tier.{tier}")) if tier is not None else ""


def code_problem(error: InvalidCode, lang: str) -> str:
    return t(lang, f"error.code.{error.kind}")


def ending_lines(ending: Ending, lang: str) -> list[str]:
    """The end line of a finished game, whether its deal could have been won, its hints, a counted daily's
    share line and what it unlocked."""
    record = ending.record
    lines: list[str] = []
    time_text = format_duration(record.seconds or 0)
    if record.status == WON:
        lines.append(t(lang, "end.won", score=record.score, moves=record.moves, time=time_text))
    else:
        lines.append(
            t(lang, "end.stuck")
            if record.status == STUCK
            else t(lang, "end.ended", score=record.score, moves=record.moves)
        )
        verdict, most = ending.verdict or (Verdict.UNDECIDED, None)
        if verdict is Verdict.WON:
            lines.append(t(lang, "end.was_winnable"))
        elif verdict is Verdict.IMPOSSIBLE and most is not None:
            lines.append(t(lang, "end.not_winnable", count=most))
        else:
            lines.append(t(lang, "end.unknown"))
    if record.hints:
        lines.append(t(lang, "end.hints", count=record.hints))
    if ending.share is not None:
        lines.append(ending.share)
    lines.extend(unlocked_line(key, lang) for key in ending.unlocked)
    return lines


def unlocked_line(key: str, lang: str) -> str:
    """ "Achievement unlocked: First win — The first pyramid cleared." """
    name = t(lang, f"achievement.{key}.name")
    return t(lang, "achievement.unlocked", name=name, description=t(lang, f"achievement.{key}.description"))


def share_text(record: GameRecord, picture: str | None, lang: str, solver: SolverService) -> str:
    """A finished daily's spoiler-free share line (``ending.share_line``), its tier as known now."""
    return share_line(record, picture, lang, record_tier(record, solver))


def mention(user_id: int) -> str:
    return f"<@{user_id}>"
