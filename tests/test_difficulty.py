"""Deal difficulty: the tiers of deals measured easy and hard, the week's daily schedule, the rate
command, and the tier as players read it (the board's status line, /pyramide new difficulty:...)."""

import io
from datetime import date, timedelta

import pytest

from pyramide import Game, Rules
from pyramide.__main__ import rate_command
from pyramide.daily import RATED_FROM, WEEK_TIERS, daily_deal_number, daily_rating, daily_start, daily_tier
from pyramide.difficulty import Tier, human_wins, is_of_tier, play_random, population, rate, tier_of
from pyramide.i18n import t
from pyramide.solver import first_winnable, solve
from tests.support.harness import CHANNEL_ID

# Found by measurement (rating the winnable deals among the first 200 deal numbers): deals
# nearly every player of the population clears, and winnable deals none of them clears.
EASY_DEALS = ("PY1-N-AAAAAAC", "PY1-N-AAAAAAP")  # scores 1.6 and 6.2
EXPERT_DEALS = ("PY1-N-AAAAAAK", "PY1-N-AAAAAA7")  # score 100: winnable, yet no player clears it
OTHERS = population(100, seed=77)  # a second population, other tastes: the rating never saw it


@pytest.mark.parametrize("code", EASY_DEALS)
def test_a_deal_measured_easy_is_easy_and_most_players_clear_it(code):
    game = Game.from_code(code)
    assert solve(game).won
    rating = rate(game)
    assert rating.tier is Tier.EASY and rating.score < 10
    assert human_wins(game, OTHERS, salt=5) >= 80  # of 100 other human-like players


@pytest.mark.parametrize("code", EXPERT_DEALS)
def test_a_deal_measured_expert_is_winnable_but_few_players_clear_it(code):
    game = Game.from_code(code)
    assert solve(game).won
    rating = rate(game)
    assert rating.tier is Tier.EXPERT and rating.score > 96.9
    assert human_wins(game, OTHERS, salt=5) <= 10


def test_scores_grow_with_difficulty_and_a_random_player_feels_it_too():
    easy = [rate(Game.from_code(code)) for code in EASY_DEALS]
    hard = [rate(Game.from_code(code)) for code in EXPERT_DEALS]
    assert max(r.score for r in easy) < min(r.score for r in hard)
    wins = {
        code: sum(play_random(Game.from_code(code), seed) for seed in range(200)) for code in EASY_DEALS + EXPERT_DEALS
    }
    assert min(wins[code] for code in EASY_DEALS) > max(wins[code] for code in EXPERT_DEALS)


def test_a_rating_is_the_same_every_time_and_from_any_position_of_the_deal():
    game = Game.from_code(EASY_DEALS[1])
    first = rate(game)
    game.tap("stock")
    assert rate(game) == first  # rated from the deal's start, whatever was played


def test_tiers_follow_the_thresholds_and_other_rules_are_not_rated():
    assert tier_of(0, Rules()) is Tier.EASY
    assert tier_of(50, Rules()) is Tier.MEDIUM
    assert tier_of(80, Rules()) is Tier.HARD
    assert tier_of(100, Rules()) is Tier.EXPERT
    assert tier_of(0, Rules(pass_limit=0)) is None


def test_the_week_gets_harder_over_eight_weeks_and_the_days_before_keep_their_deal():
    monday = RATED_FROM
    assert monday.weekday() == 0
    for day in (monday - timedelta(days=1), date(2026, 11, 30)):  # an upgrade changes no day already played
        assert daily_tier(day) is None
        assert daily_deal_number(day, b"deployment") == first_winnable(daily_start(day, b"deployment"), Rules()).number
    expected = [Tier.EASY, Tier.EASY, Tier.MEDIUM, Tier.MEDIUM, Tier.HARD, Tier.HARD, Tier.EXPERT]
    assert list(WEEK_TIERS) == expected
    for offset in range(56):
        day = monday + timedelta(days=offset)
        assert daily_tier(day) is expected[offset % 7], day


def test_each_days_deal_is_winnable_and_of_its_tier_with_or_without_a_secret():
    """Every tier of the week, each with and without a secret: the two easy, medium and hard days share
    their tier and their search, so one of each pair goes without the secret and the other with it."""
    monday = date(2027, 1, 4)
    for offset, secrets in enumerate(([None], [b"deployment"]) * 3 + ([None, b"deployment"],)):
        day = monday + timedelta(days=offset)
        for secret in secrets:
            rating = daily_rating(day, secret)
            game = Game.from_code(rating.code)
            assert game.deal.number == daily_deal_number(day, secret)
            assert solve(game).won and rate(game).tier is daily_tier(day)
    assert daily_deal_number(monday, b"one") != daily_deal_number(monday, b"two")  # the secret decides


def test_the_rate_command_prints_the_verdict_then_the_difficulty():
    out = io.StringIO()
    assert rate_command(Game.from_code(EXPERT_DEALS[0]), stdout=out) == 0
    verdict, difficulty = out.getvalue().splitlines()
    assert verdict == "verdict won"
    word, tier, score = difficulty.split()
    assert (word, tier) == ("difficulty", "expert") and float(score) == rate(Game.from_code(EXPERT_DEALS[0])).score
    out = io.StringIO()
    rate_command(Game.from_code("PY1-P0-AAAAAAK"), stdout=out)
    assert out.getvalue().splitlines()[0] in ("verdict won", "verdict impossible")


async def test_new_with_a_difficulty_deals_a_winnable_deal_of_that_tier_and_the_board_names_it(harness):
    sent = await harness.command("new", difficulty="hard")
    record = await harness.storage.live_game(CHANNEL_ID)
    game = Game.from_code(record.code)
    board = next(s for s in sent if s.png)
    assert solve(game).won
    if rate(game).tier is not Tier.HARD:  # none found within the search's seconds (a busy machine): said so
        assert t("en", "error.difficulty_not_found") in board.content
        return
    assert "Difficulty: hard" in board.content.splitlines()[0]


async def test_a_board_names_no_tier_for_a_deal_nobody_rated(harness):
    sent = await harness.command("new", code="PY1-N-AAAAAAS")
    assert "Difficulty" not in next(s for s in sent if s.png).content


async def test_a_deal_rated_elsewhere_in_the_process_gives_the_board_no_tier(harness):
    # Ratings belong to the bot's solver service: rating a deal outside it (another bot, a test, the
    # command line) tells this bot's boards nothing, so what a board says never depends on what ran before.
    assert rate(Game.from_code(EASY_DEALS[0])).tier is Tier.EASY
    sent = await harness.command("new", code=EASY_DEALS[0])
    assert "Difficulty" not in next(s for s in sent if s.png).content
    assert harness.bot.solver.known_rating(EASY_DEALS[0]) is None


async def test_a_difficulty_refuses_a_code_or_other_rules(harness):
    sent = await harness.command("new", difficulty="easy", code="PY1-N-AAAAAAS")
    assert "code already fixes the deal" in sent[-1].content and sent[-1].ephemeral
    sent = await harness.command("new", difficulty="easy", passes=0)
    assert "default rules only" in sent[-1].content and sent[-1].ephemeral
    assert await harness.storage.live_game(CHANNEL_ID) is None


async def test_the_board_speaks_the_players_language(harness):
    harness.locale = "ru"
    sent = await harness.command("new", difficulty="easy")
    assert "Сложность: лёгкая" in next(s for s in sent if s.png).content


async def test_a_difficulty_in_a_busy_channel_asks_first_and_deals_that_tier(harness):
    await harness.command("new", code="PY1-N-AAAAAAS")
    prompt = (await harness.command("new", difficulty="expert"))[-1]
    assert prompt.ephemeral and "already running" in prompt.content
    await harness.press(prompt.button("End it and deal a new one"))
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record.code != "PY1-N-AAAAAAS" and rate(Game.from_code(record.code)).tier is Tier.EXPERT
    assert "Difficulty: expert" in harness.board()["content"]


def test_the_quick_tier_check_agrees_with_the_full_rating():
    for number in range(40):
        game = Game.from_number(number)
        if solve(game).won:
            tier = rate(game).tier
            assert [is_of_tier(game, other) for other in Tier] == [other is tier for other in Tier], number
