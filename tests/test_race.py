"""Races between friends through the real discord.py objects: one deal, a private thread each, a
scoreboard in the channel kept up to date within Discord's limits, a winner, a give-up, the stats."""

import asyncio
import sys
import time

import discord
import pytest

from cogs.pyramide import race as race_module
from pyramide_service.changes import Change, GameChanged
from tests.support.deals import clear_kings_and_pairs, kings_and_pairs
from tests.support.harness import ADMIN, CHANNEL_ID, GUILD_ID, OWNER, STRANGER

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture
def quick_edits(monkeypatch):
    monkeypatch.setattr(race_module, "EDIT_SECONDS", 0.05)


async def open_race(h, code: str) -> tuple[list, int, int, int]:
    """``/pyramide race`` against STRANGER; what it sent, the race's id, and the two players' threads."""
    threads_before = len(h.hub.threads)
    sent = await h.command("race", opponent=discord.Object(STRANGER), code=code)
    threads = h.hub.threads[threads_before:]
    assert len(threads) == 2
    race = await h.storage.race_of_game((await h.bot.manager.live(int(threads[0]["id"]))).record.id)
    return sent, race.id, int(threads[0]["id"]), int(threads[1]["id"])


def scoreboards_of(h) -> race_module.Scoreboards:
    """The game cog's race scoreboards (the cog's own, following the application's changes)."""
    return h.bot.get_cog("Pyramide").scoreboards


def scoreboard_text(h, race) -> str:
    return h.hub.messages[race.message_id]["content"]


async def test_two_players_race_on_one_deal_and_the_first_to_clear_it_wins(harness, quick_edits):
    deal = kings_and_pairs()
    sent, race_id, mine, theirs = await open_race(harness, deal.code)
    mine_live, their_live = await harness.bot.manager.live(mine), await harness.bot.manager.live(theirs)
    assert mine_live.record.owner_id == OWNER and their_live.record.owner_id == STRANGER
    assert mine_live.game.deal == their_live.game.deal == deal.deal  # the same cards for both
    boards = [s for s in sent if s.png]
    assert {int(s.url.split("/channels/")[1].split("/")[0]) for s in boards} == {mine, theirs}  # one board each
    assert all(thread["type"] == 12 for thread in harness.hub.threads[-2:])  # private threads
    race = await harness.storage.race(race_id)
    board = scoreboard_text(harness, race)
    assert f"<@{OWNER}>" in board and f"<@{STRANGER}>" in board and "0/28" in board

    await harness.command("hint", user=STRANGER, channel_id=theirs)
    plan = deal.copy()
    clear_kings_and_pairs(plan)
    for action in plan.actions:
        await harness.command("tap", card=str(deal.pyramid[action]), channel_id=mine)
    await scoreboards_of(harness).flush()
    race = await harness.storage.race(race_id)
    assert race.winner_id == OWNER and race.finished_at is not None
    board = scoreboard_text(harness, race)
    assert f"🏆 <@{OWNER}> wins the race!" in board and "28/28" in board and "💡 1" in board
    assert harness.hub.messages[race.message_id]["components"] == []  # no "Give up" once it is over
    scoreboards = scoreboards_of(harness)  # nothing of an ended race stays in this process's memory
    assert race_id not in scoreboards.pending and race_id not in scoreboards.last_edit
    assert not any(game_id in scoreboards.by_game for _, game_id in race.players)

    sent = await harness.command("stats")
    races = next(f for f in sent[-1].body["embeds"][0]["fields"] if f["name"] == "Races")
    assert races["value"].startswith("1 won of 1")


async def test_a_player_gives_up_from_the_scoreboard_and_the_other_wins_later(harness, quick_edits):
    deal = kings_and_pairs()
    sent, race_id, mine, theirs = await open_race(harness, deal.code)
    race = await harness.storage.race(race_id)
    give_up = next(
        b["custom_id"] for row in harness.hub.messages[race.message_id]["components"] for b in row["components"]
    )
    told: list[Change] = []

    async def hear(change: Change) -> None:
        told.append(change)

    unsubscribe = harness.bot.changes.subscribe(hear, mine)  # as an open page of the thread's game is
    sent = await harness.press(give_up, user=OWNER)
    unsubscribe()
    answer = next(s for s in sent if s.token)
    assert answer.ephemeral and "You gave up" in answer.content
    assert await harness.bot.manager.live(mine) is None  # that game is over
    assert [(c.channel_id, c.finished, c.status) for c in told if isinstance(c, GameChanged)] == [
        (mine, True, "ended")
    ]  # told as any game's end is
    board = next(s for s in sent if s.png)  # the board in the player's thread shows it
    assert f"/channels/{mine}/" in board.url and "You gave up the race" in board.content
    sent = await harness.press(give_up, user=OWNER)
    assert "over already" in sent[-1].content
    sent = await harness.press(give_up, user=ADMIN)
    assert "Only the players of this race" in sent[-1].content
    await scoreboards_of(harness).flush()
    assert "gave up" in scoreboard_text(harness, await harness.storage.race(race_id))
    plan = deal.copy()
    clear_kings_and_pairs(plan)
    for action in plan.actions:
        await harness.command("tap", card=str(deal.pyramid[action]), user=STRANGER, channel_id=theirs)
    await scoreboards_of(harness).flush()
    race = await harness.storage.race(race_id)
    assert race.winner_id == STRANGER
    assert (await harness.storage.race_stats(GUILD_ID, OWNER)).won == 0
    assert (await harness.storage.race_stats(GUILD_ID, STRANGER)).won == 1


async def test_the_scoreboard_is_edited_no_more_often_than_allowed(harness, monkeypatch):
    monkeypatch.setattr(race_module, "EDIT_SECONDS", 0.3)
    scoreboards = scoreboards_of(harness)
    _, race_id, _, _ = await open_race(harness, kings_and_pairs().code)
    race = await harness.storage.race(race_id)

    def edits() -> list[float]:
        return [
            s.at for s in harness.hub.sent if s.method == "PATCH" and s.url.endswith(f"/messages/{race.message_id}")
        ]

    for _ in range(10):  # a burst of moves: one edit, not ten
        scoreboards.schedule(race_id, "en")
    await scoreboards.flush()
    for _ in range(10):
        scoreboards.schedule(race_id, "en")
    started = time.perf_counter()
    await scoreboards.flush()
    times = edits()
    assert len(times) == 2
    assert times[1] - times[0] >= 0.29  # the second waited for its turn
    assert time.perf_counter() - started >= 0.2


async def test_a_race_against_oneself_or_a_bot_is_refused(harness):
    sent = await harness.command("race", opponent=discord.Object(OWNER))
    assert sent[-1].ephemeral and "not yourself" in sent[-1].content
    assert harness.hub.threads == [] and await harness.bot.manager.live(CHANNEL_ID) is None


async def test_a_race_needs_threads_the_bot_may_make(harness):
    harness.app_permissions &= ~((1 << 35) | (1 << 36))  # no thread creation
    sent = await harness.command("race", opponent=discord.Object(STRANGER))
    assert sent[-1].ephemeral and "Create Private Threads" in sent[-1].content
    await asyncio.sleep(0)
    assert harness.hub.threads == []


async def test_the_scoreboard_keeps_the_language_it_was_posted_in(harness, quick_edits):
    harness.locale = "hr"
    _, race_id, _, theirs = await open_race(harness, kings_and_pairs().code)
    harness.locale = "en-US"  # the opponent plays in English
    await harness.command("draw", user=STRANGER, channel_id=theirs)
    await scoreboards_of(harness).flush()
    board = scoreboard_text(harness, await harness.storage.race(race_id))
    assert "Utrka" in board and "igra" in board and "playing" not in board


async def clear_but_the_last(h, deal, thread: int, user: int) -> str:
    """Tap the race's deal clear in a thread except for its last card; that card's name."""
    plan = deal.copy()
    clear_kings_and_pairs(plan)
    for action in plan.actions[:-1]:
        await h.command("tap", card=str(deal.pyramid[action]), user=user, channel_id=thread)
    return str(deal.pyramid[plan.actions[-1]])


@pytest.mark.parametrize("fault", ["unknown", "forbidden"])
async def test_a_clear_whose_answer_discord_loses_or_refuses_still_wins_the_race(harness, quick_edits, fault):
    """The first clear stored wins: Discord losing or refusing its answer decides nothing, and the other
    player's later clear does not take the race."""
    deal = kings_and_pairs()
    _, race_id, mine, theirs = await open_race(harness, deal.code)
    last_mine = await clear_but_the_last(harness, deal, mine, OWNER)
    last_theirs = await clear_but_the_last(harness, deal, theirs, STRANGER)
    harness.hub.fail("any", fault)  # the clearing tap's answer never reaches the player
    await harness.command("tap", card=last_mine, user=OWNER, channel_id=mine)
    await scoreboards_of(harness).flush()
    race = await harness.storage.race(race_id)
    assert race.winner_id == OWNER
    assert f"🏆 <@{OWNER}> wins the race!" in scoreboard_text(harness, race)  # the scoreboard follows the store
    await harness.command("tap", card=last_theirs, user=STRANGER, channel_id=theirs)
    await scoreboards_of(harness).flush()
    race = await harness.storage.race(race_id)
    assert race.winner_id == OWNER and race.finished_at is not None
    assert f"🏆 <@{OWNER}> wins the race!" in scoreboard_text(harness, race)


async def test_two_clears_at_the_same_moment_give_one_winner(harness, quick_edits):
    deal = kings_and_pairs()
    _, race_id, mine, theirs = await open_race(harness, deal.code)
    last_mine = await clear_but_the_last(harness, deal, mine, OWNER)
    last_theirs = await clear_but_the_last(harness, deal, theirs, STRANGER)
    await asyncio.gather(
        harness.command("tap", card=last_mine, user=OWNER, channel_id=mine),
        harness.command("tap", card=last_theirs, user=STRANGER, channel_id=theirs),
    )
    await scoreboards_of(harness).flush()
    race = await harness.storage.race(race_id)
    assert race.winner_id in (OWNER, STRANGER)
    board = scoreboard_text(harness, race)
    assert board.count("wins the race") == 1 and f"🏆 <@{race.winner_id}> wins the race!" in board
    stats = {player: (await harness.storage.race_stats(GUILD_ID, player)).won for player in (OWNER, STRANGER)}
    assert sorted(stats.values()) == [0, 1] and stats[race.winner_id] == 1


async def test_a_scoreboard_edit_that_storage_fails_is_logged_and_the_next_move_edits_it(harness, quick_edits, caplog):
    deal = kings_and_pairs()
    _, race_id, mine, _ = await open_race(harness, deal.code)
    scoreboards = scoreboards_of(harness)
    real_race = harness.storage.race

    async def broken(race_id: int):
        raise OSError("disk I/O error")

    harness.storage.race = broken
    try:
        await harness.command("draw", channel_id=mine)
        await scoreboards.flush()
    finally:
        harness.storage.race = real_race
    failed = [r for r in caplog.records if "scoreboard not brought up to date" in r.getMessage()]
    assert failed and failed[0].exc_info is not None  # with its traceback, not "exception never retrieved"
    assert not scoreboards.pending  # the failed edit is not kept
    await harness.command("draw", channel_id=mine)
    await scoreboards.flush()
    race = await harness.storage.race(race_id)
    assert f"<@{OWNER}>: 0/28 cards · 2 moves" in scoreboard_text(harness, race)  # both draws shown


async def test_unloading_the_game_cog_cancels_the_scoreboard_edits_it_owns(harness, monkeypatch):
    monkeypatch.setattr(race_module, "EDIT_SECONDS", 60.0)  # the next edit waits its turn for a minute
    _, race_id, _, _ = await open_race(harness, kings_and_pairs().code)
    scoreboards = scoreboards_of(harness)
    scoreboards.schedule(race_id, "en")  # as a move does (the harness's own presses wait for every task)
    waiting = scoreboards.pending[race_id]
    assert not waiting.done()
    await harness.bot.unload_cogs()  # as the bot's close does
    assert waiting.cancelled() and not scoreboards.pending
    # The cogs are removed, their modules kept: the next bot of the process runs the same code (an unloaded
    # extension's modules leave sys.modules, and what a test patched in them would no longer be seen).
    assert sys.modules["cogs.pyramide.race"] is race_module
    race = await harness.storage.race(race_id)
    record = await harness.storage.game(race.players[0][1])
    await harness.bot.changes.publish(GameChanged.of(record, 1, "en"))
    assert not scoreboards.pending  # the bot no longer tells a closed cog's scoreboards


async def test_a_race_that_cannot_be_stored_leaves_nothing_behind_and_a_failed_take_back_is_logged(harness, caplog):
    storage = harness.storage
    real_discard = storage.discard_game
    discarded = []

    async def fails(*args):
        raise OSError("disk I/O error")

    async def discard_one(game_id):  # the first game is taken back, the second cannot be
        if discarded:
            raise OSError("disk I/O error")
        discarded.append(game_id)
        await real_discard(game_id)

    storage.create_race = fails
    storage.discard_game = discard_one
    try:
        sent = await harness.command("race", opponent=discord.Object(STRANGER), code=kings_and_pairs().code)
    finally:
        del storage.create_race, storage.discard_game
    assert "Something went wrong" in sent[-1].content
    threads = [int(thread["id"]) for thread in harness.hub.threads]
    assert len(threads) == 2
    for thread in threads:  # both threads went, and neither engine is kept
        assert any(s.method == "DELETE" and s.url.endswith(f"/channels/{thread}") for s in harness.hub.sent)
        assert harness.bot.manager.peek(thread) is None
    assert await storage.live_game(threads[0]) is None
    left = [r for r in caplog.records if "was not taken back" in r.getMessage()]
    assert len(left) == 1 and left[0].exc_info is not None
