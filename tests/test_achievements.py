"""The achievements' catalogue (pyramide/achievements.py): each predicate with its boundary cases, and the
fold that credits a history in one pass the same as game by game."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import pytest

from pyramide import achievements as ach
from pyramide.achievements import CATALOGUE, GameFacts, Progress, credit, credit_all
from pyramide.i18n import LANGUAGES, has

WIN = GameFacts(game_id=1, status="won", rules="N", seconds=300.0, hints=1, undone=True, daily=None, finished_at=0.0)
LOSS = replace(WIN, status="stuck")


def unlocks(*games: GameFacts, progress: Progress | None = None) -> set[str]:
    progress = progress or Progress()
    return {key for key, _ in credit_all(progress, games)}


def test_every_achievement_has_words_in_every_language_and_a_unique_key():
    assert 20 <= len(CATALOGUE) <= 30
    assert len({a.key for a in CATALOGUE}) == len(CATALOGUE)
    for achievement in CATALOGUE:
        for lang in LANGUAGES:
            assert has(lang, f"achievement.{achievement.key}.name"), (lang, achievement.key)
            assert has(lang, f"achievement.{achievement.key}.description"), (lang, achievement.key)


def test_first_win_and_win_counts():
    assert "first_win" not in unlocks(LOSS, LOSS)
    assert "first_win" in unlocks(LOSS, WIN)
    progress = Progress()
    found = credit_all(progress, [WIN] * 9)
    assert "wins_10" not in {k for k, _ in found}
    assert "wins_10" in credit(progress, replace(WIN, game_id=10))
    found = credit_all(Progress(), [replace(WIN, game_id=n) for n in range(1, 501)])
    by_key = {k: f.game_id for k, f in found}
    assert by_key["wins_100"] == 100 and by_key["wins_500"] == 500
    assert unlocks(*[LOSS] * 99) == set() and "played_100" in unlocks(*[LOSS] * 100)


def test_an_achievement_unlocks_once():
    progress = Progress()
    assert "first_win" in credit(progress, WIN)
    assert "first_win" not in credit(progress, WIN)


def test_a_win_without_undo_counts_no_undo_at_all_even_one_redone():
    # An undo then the same move again (the game has no redo) is still a game with an undo.
    assert "no_undo" not in unlocks(replace(WIN, undone=True))
    assert "no_undo" in unlocks(replace(WIN, undone=False))
    assert "no_undo" not in unlocks(replace(LOSS, undone=False))


def test_a_win_without_hints_and_a_clean_win():
    assert "no_hints" not in unlocks(replace(WIN, hints=1))
    assert "no_hints" in unlocks(replace(WIN, hints=0))
    assert "clean_win" not in unlocks(replace(WIN, hints=0, undone=True), replace(WIN, hints=1, undone=False))
    assert "clean_win" in unlocks(replace(WIN, hints=0, undone=False))


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ("N", set()),
        ("S", {"strict_win"}),
        ("P0", {"one_pass_win"}),
        ("P1", set()),
        ("SP0", {"strict_win", "one_pass_win", "strict_one_pass_win"}),
        ("SP0WC", {"strict_win", "one_pass_win", "strict_one_pass_win"}),
        ("SP2", {"strict_win"}),
    ],
)
def test_rule_set_wins(rules, expected):
    rule_keys = {"strict_win", "one_pass_win", "strict_one_pass_win"}
    assert unlocks(replace(WIN, rules=rules)) & rule_keys == expected
    assert unlocks(replace(LOSS, rules=rules)) & rule_keys == set()


def test_times_are_strictly_under_the_limit():
    assert "under_3_minutes" not in unlocks(replace(WIN, seconds=180.0))  # exactly 3:00 is not under 3 minutes
    assert "under_3_minutes" in unlocks(replace(WIN, seconds=179.99))
    assert "under_90_seconds" not in unlocks(replace(WIN, seconds=90.0))
    assert unlocks(replace(WIN, seconds=89.5)) >= {"under_90_seconds", "under_3_minutes"}
    assert "under_3_minutes" not in unlocks(replace(LOSS, seconds=10.0), replace(WIN, seconds=None))


def test_an_expert_deal_won():
    assert "expert_win" not in unlocks(replace(WIN, tier="hard"), replace(LOSS, tier="expert"), WIN)
    assert "expert_win" in unlocks(replace(WIN, tier="expert"))


def test_runs_of_wins_break_on_a_loss():
    assert "win_run_5" not in unlocks(*[WIN] * 4, LOSS, *[WIN] * 4)
    assert "win_run_5" in unlocks(LOSS, *[WIN] * 5)
    assert "win_run_10" in unlocks(*[WIN] * 10) and "win_run_10" not in unlocks(*[WIN] * 9)


def test_perfect_loss():
    assert ach.perfect_loss("stuck", True, 20, 20)
    assert not ach.perfect_loss("stuck", True, 20, 19)  # one card short of the most
    assert not ach.perfect_loss("stuck", False, 20, 20)  # not proved unwinnable
    assert not ach.perfect_loss("stuck", True, None, 20)
    assert not ach.perfect_loss("won", True, 28, 28)
    assert ach.BY_KEY["perfect_loss"].awarded  # no predicate over games: the verdict decides it


def daily(day: date, won: bool = True, game_id: int = 1) -> GameFacts:
    return replace(WIN if won else LOSS, daily=day.isoformat(), game_id=game_id)


def days(start: date, count: int, won: bool = True) -> list[GameFacts]:
    return [daily(start + timedelta(days=n), won, n) for n in range(count)]


def test_dailies_in_a_row_count_lost_ones_and_break_on_a_missed_day():
    start = date(2026, 3, 1)
    assert "daily_7_days" not in unlocks(*days(start, 6))
    assert "daily_7_days" in unlocks(*days(start, 6, won=False), daily(start + timedelta(days=6), won=False))
    gap = days(start, 3) + days(start + timedelta(days=4), 4)  # day 4 missed: 3 then 4
    assert "daily_7_days" not in unlocks(*gap)
    # A day credited late (a daily finished after the next day's) still joins its run.
    late = days(start, 3) + days(start + timedelta(days=4), 3) + [daily(start + timedelta(days=3))]
    assert "daily_7_days" in unlocks(*late)
    assert "daily_30_days" not in unlocks(*days(start, 29))
    assert "daily_30_days" in unlocks(*days(start, 30))
    assert "daily_won" not in unlocks(*days(start, 3, won=False)) and "daily_won" in unlocks(daily(start))
    assert "daily_7_days" not in unlocks(*[replace(WIN, game_id=n) for n in range(10)])  # not dailies


def test_a_calendar_month_of_won_dailies():
    february = date(2027, 2, 1)  # 28 days
    assert "daily_month" in unlocks(*days(february, 28))
    assert "daily_month" not in unlocks(*days(february, 27))
    one_lost = days(february, 28)
    one_lost[10] = replace(one_lost[10], status="stuck")
    assert "daily_month" not in unlocks(*one_lost)
    # 30 days in a row across two months is not a whole month won.
    assert "daily_month" not in unlocks(*days(date(2026, 3, 15), 30))
    assert "daily_month" in unlocks(*days(date(2026, 3, 1), 31))


def test_races_won():
    race = replace(LOSS, race_won=False)
    assert "race_won" not in unlocks(race, WIN)
    assert "race_won" in unlocks(replace(WIN, race_won=True))
    assert "races_10" not in unlocks(*[replace(WIN, race_won=True)] * 9)
    assert "races_10" in unlocks(*[replace(WIN, race_won=True)] * 10)


def test_progress_round_trips_and_stays_small():
    progress = Progress()
    credit_all(progress, days(date(2026, 1, 1), 200) + [replace(WIN, race_won=True)] * 3)
    again = Progress.from_json(progress.to_json())
    assert again == progress
    assert len(progress.to_json()) < 2000  # bounded however long the history
    assert Progress.from_json(None) == Progress() == Progress.from_json("")


def test_credited_in_chunks_as_in_one_pass():
    history = [replace(WIN if n % 3 else LOSS, game_id=n, hints=n % 2, race_won=n % 7 == 0) for n in range(1, 300)]
    whole = credit_all(Progress(), history)
    progress, chunked = Progress(), []
    for start in range(0, len(history), 50):
        progress = Progress.from_json(progress.to_json())
        chunked += credit_all(progress, history[start : start + 50])
    assert [(k, f.game_id) for k, f in chunked] == [(k, f.game_id) for k, f in whole]
