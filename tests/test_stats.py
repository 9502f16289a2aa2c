"""Statistics, leaderboards and the daily challenge on a real database (SQLite, and PostgreSQL where both run)."""

import asyncio
import sqlite3
from dataclasses import replace
from datetime import UTC, date, datetime

import asyncpg
import discord
import pytest

from pyramide import Game
from pyramide.daily import daily_deal_number, daily_game, daily_number, daily_start, time_to_next
from pyramide.difficulty import rate
from pyramide.solver import solve
from pyramide_service.stats import day_streaks, player_stats
from pyramide_service.storage import ENDED, STUCK, WON, DailyTaken, GameRecord, Storage, from_url, schema
from pyramide_service.storage.sqlite import SCHEMA_VERSION, SQLiteStorage
from tests.support import discord_internals as internals
from tests.support.deals import kings_and_pairs
from tests.support.finished_games import T0, add_game
from tests.support.harness import CHANNEL_ID, GUILD_ID, MANAGE_GUILD, OWNER, PLAIN, STRANGER
from tests.support.manager_turns import play

pytestmark = pytest.mark.backends("sqlite", "postgresql")

DAY = 86_400.0


async def test_stats_match_a_hand_computed_fixture(storage):
    # won 200 s / 90 moves, won 150 s / 120 moves, stuck 150 pts, won 300 s / 80 moves, ended 40 pts
    results = [
        (WON, 280, 90, 200.0),
        (WON, 280, 120, 150.0),
        (STUCK, 150, 60, 99.0),
        (WON, 280, 80, 300.0),
        (ENDED, 40, 5, 10.0),
    ]
    for i, (status, score, moves, seconds) in enumerate(results):
        await add_game(storage, status=status, score=score, moves=moves, seconds=seconds, finished=T0 + i * 60)
    await add_game(storage, player=STRANGER)  # someone else
    await add_game(storage, guild=GUILD_ID + 1)  # another server
    stats = player_stats(await storage.results(GUILD_ID, OWNER))
    assert (stats.played, stats.won) == (5, 3)
    assert stats.win_rate == pytest.approx(0.6)
    assert stats.best_seconds == 150.0 and stats.fewest_moves == 80
    assert stats.average_score == pytest.approx((280 * 3 + 150 + 40) / 5)
    assert (stats.current_streak, stats.best_streak) == (0, 2)
    assert stats.recent == (WON, WON, STUCK, WON, ENDED)


async def test_leaderboard_ranks_wins_then_time_then_moves_with_ties(storage):
    a, b, c, d = 11, 12, 13, 14
    for player, wins, best, moves in [(a, 2, 100.0, 90), (b, 2, 100.0, 80), (c, 3, 500.0, 200), (d, 2, 90.0, 300)]:
        for i in range(wins):
            await add_game(storage, player=player, seconds=best + i * 10, moves=moves + i, finished=T0 + player + i)
        await add_game(storage, player=player, status=STUCK, finished=T0 + 50 + player)
    rows = await storage.leaderboard(GUILD_ID, None, 10, 0)
    assert [r.player_id for r in rows] == [c, d, b, a]  # c most wins; d fastest; b and a tie on time, b fewer moves
    assert rows[0].played == 4 and rows[0].wins == 3 and rows[0].best_seconds == 500.0
    assert [r.player_id for r in await storage.leaderboard(GUILD_ID, None, 2, 2)] == [b, a]
    assert await storage.leaderboard_size(GUILD_ID, None) == 4
    assert await storage.leaderboard(GUILD_ID, T0 + 1000, 10, 0) == []  # a period with nothing finished


def test_day_streaks_break_only_after_a_whole_day_without_a_daily():
    days = ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-25", "2026-11-26"]
    assert day_streaks(days, date(2026, 11, 26)) == (2, 3)
    assert day_streaks(days, date(2026, 11, 27)) == (2, 3)  # today not played yet: still alive
    assert day_streaks(days, date(2026, 11, 28)) == (0, 3)  # a whole day passed
    assert day_streaks([], date(2026, 11, 28)) == (0, 0)


def test_daily_deals_of_fixed_dates_are_pinned_and_winnable():
    assert daily_number(date(2026, 1, 1)) == 1
    assert daily_start(date(2026, 1, 1)) == 1_000_003
    pinned = {date(2026, 1, 1): None, date(2026, 11, 30): None, date(2027, 2, 28): None}
    for day in pinned:
        pinned[day] = daily_deal_number(day)
        assert pinned[day] >= daily_start(day)
        assert solve(Game.from_number(pinned[day])).won
    assert pinned[date(2026, 11, 30)] == 3_637_030
    assert Game.from_number(pinned[date(2026, 11, 30)]).code == "PY1-N-AADO7ZG"
    assert time_to_next(datetime(2026, 11, 30, 23, 0, tzinfo=UTC)).total_seconds() == 3600


async def test_one_counted_daily_per_player_even_when_two_processes_open_it_at_once(database_url):
    first, second = from_url(database_url), from_url(database_url)
    await first.open()
    await second.open()
    try:

        def attempt(channel):
            return GameRecord(
                id=0,
                guild_id=GUILD_ID,
                channel_id=channel,
                owner_id=OWNER,
                code="PY1-N-AAAAAAS",
                rules="N",
                daily="2026-11-30",
                counted=True,
                created_at=T0,
            )

        results = await asyncio.gather(
            first.create_game(attempt(1)), second.create_game(attempt(2)), return_exceptions=True
        )
        taken = [r for r in results if isinstance(r, DailyTaken)]
        opened = [r for r in results if isinstance(r, GameRecord)]
        assert len(taken) == 1 and len(opened) == 1
        assert taken[0].attempt.game_id == opened[0].id
        assert await first.live_game(1 if opened[0].channel_id == 2 else 2) is None  # nothing of the loser stored
        opened[0] = replace(opened[0], status=WON, finished_at=T0 + 100, seconds=100.0)
        await first.finish_game(opened[0])
        assert await first.daily_totals("2026-11-30") == (1, 1)
    finally:
        await first.close()
        await second.close()


async def test_migrations_from_an_empty_file_and_from_the_previous_version(tmp_path):
    fresh = SQLiteStorage(tmp_path / "fresh.db")
    await fresh.open()
    assert await fresh.migrate() == SCHEMA_VERSION
    await fresh.close()
    # a database left by the previous release (schema 1) with a game in it
    old = tmp_path / "old.db"
    with sqlite3.connect(old) as db:
        db.executescript(";\n".join(schema.migration(1, "sqlite")) + ";\nPRAGMA user_version = 1;")
        db.execute(
            "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, status, score, moves, created_at,"
            " finished_at, seconds) VALUES (?, 5, ?, 'PY1-N-AAAAAAS', 'N', 'won', 280, 90, 1, 2, 1)",
            (GUILD_ID, OWNER),
        )
        db.execute(
            "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, created_at)"
            " VALUES (?, 6, ?, 'PY1-N-AAAAAAA', 'N', 1)",
            (GUILD_ID, OWNER),
        )
        db.execute("INSERT INTO actions (game_id, seq, action, at) VALUES (2, 0, '\"stock\"', 1)")
    await opens_migrated_from_version_1(SQLiteStorage(old))


async def opens_migrated_from_version_1(store: Storage) -> None:
    """A storage on a database of schema 1 holding a won game (5) and a live one (6) with a draw: opened,
    it is at the newest schema with both games as they were, and numbers a new game after them."""
    await store.open()
    try:
        assert await store.migrate() == SCHEMA_VERSION
        rows = await store.results(GUILD_ID, OWNER)
        assert [(r.status, r.score, r.counted) for r in rows] == [(WON, 280, False)]
        live = await store.live_game(6)
        assert live.actions == ("stock",) and live.hints == 0
        assert (await store.create_game(GameRecord(0, GUILD_ID, 7, OWNER, "PY1-N-AAAAAAB", "N", created_at=3))).id == 3
    finally:
        await store.close()


async def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.db"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    store = SQLiteStorage(path)
    with pytest.raises(RuntimeError, match="newer"):
        await store.open()
    await store.close()


async def test_postgresql_has_the_same_schema_versions_and_migrates_a_previous_one(postgres_url):
    from pyramide_service.storage import postgres

    assert postgres.SCHEMA_VERSION == SCHEMA_VERSION  # one version number means one schema on both
    old = postgres.PostgresStorage(postgres_url)
    await old.open()  # at the newest version; then taken back to version 1 by hand, with a game in it
    await old.close()
    connection = await asyncpg.connect(postgres_url)
    try:
        await connection.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        await connection.execute(";\n".join(schema.migration(1, "postgresql")))
        await connection.execute("CREATE TABLE pyramide_schema (version INTEGER NOT NULL)")
        await connection.execute("INSERT INTO pyramide_schema VALUES (1)")
        await connection.execute(
            "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, status, score, moves, created_at,"
            " finished_at, seconds) VALUES ($1, 5, $2, 'PY1-N-AAAAAAS', 'N', 'won', 280, 90, 1, 2, 1)",
            GUILD_ID,
            OWNER,
        )
        await connection.execute(
            "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, created_at)"
            " VALUES ($1, 6, $2, 'PY1-N-AAAAAAA', 'N', 1)",
            GUILD_ID,
            OWNER,
        )
        await connection.execute("INSERT INTO actions (game_id, seq, action, at) VALUES (2, 0, '\"stock\"', 1)")
    finally:
        await connection.close()
    await opens_migrated_from_version_1(postgres.PostgresStorage(postgres_url))
    connection = await asyncpg.connect(postgres_url)
    try:
        await connection.execute("UPDATE pyramide_schema SET version = $1", SCHEMA_VERSION + 1)
    finally:
        await connection.close()
    newer = postgres.PostgresStorage(postgres_url)
    with pytest.raises(RuntimeError, match="newer"):
        await newer.open()


# ---------------------------------------------------------------------------- commands
@pytest.fixture
def harness(harness):
    """The shared harness (conftest.py), its clock at 2026-11-30 01:00 UTC."""
    harness.now[0] = T0 + 3600
    return harness


async def play_daily_to_the_end(h, *, user=OWNER, win=True):
    sent = await h.command("daily play", user=user)
    thread = h.hub.threads[-1]
    assert thread["type"] == 12 and thread["parent_id"] is not None  # a private thread of the player's
    board = next(s for s in sent if s.path == "/channels/{channel_id}/messages")
    number = daily_number(datetime.fromtimestamp(h.now[0], UTC).date())
    assert f"Daily #{number}" in board.content and board.png is not None
    thread_id = int(thread["id"])
    live = await h.bot.manager.live(thread_id)
    assert live.record.daily == datetime.fromtimestamp(h.now[0], UTC).date().isoformat()
    if win:
        line = solve(live.game).line
        h.now[0] += 200
        for move in line[:-1]:
            await play(h.bot.manager, thread_id, lambda game, move=move: game.play(move))
        last = line[-1]
        await play(h.bot.manager, thread_id, lambda game: game.play(last))
    else:
        h.now[0] += 100
        await h.command("draw", user=user, channel_id=thread_id)
        await h.command("end", user=user, channel_id=thread_id)
    return sent, thread_id


async def test_daily_in_a_thread_counted_once(harness):
    sent, thread_id = await play_daily_to_the_end(harness)
    ready = sent[-1]
    assert harness.hub.visible_flags(ready) & 64
    assert f"<#{thread_id}>" in ready.content and "Next daily in 23 h" in ready.content
    rows = await harness.storage.daily_rows("2026-11-30", GUILD_ID)
    assert [(r.player_id, r.status) for r in rows] == [(OWNER, WON)]
    # the same day again: the result, no second thread, no second attempt
    threads = len(harness.hub.threads)
    sent = await harness.command("daily play")
    assert "You have played daily #334 already" in sent[-1].content and "🃏 28/28" in sent[-1].content
    assert len(harness.hub.threads) == threads
    assert await harness.storage.daily_totals("2026-11-30") == (1, 1)
    stats = player_stats(await harness.storage.results(GUILD_ID, OWNER))
    assert (stats.daily_played, stats.daily_won) == (1, 1)


async def test_share_line_after_a_counted_daily(harness):
    await harness.command("daily play")
    thread_id = int(harness.hub.threads[-1]["id"])
    await harness.command("draw", channel_id=thread_id)
    harness.now[0] += 221  # the clock runs from the opening of the attempt, not from the first move
    sent = await harness.command("end", channel_id=thread_id)
    text = "\n".join(s.content for s in sent)
    tier = rate(daily_game(date(2026, 11, 30), harness.bot.dailies.secret)).tier  # before the schedule: as measured
    assert f"Pyramide daily #334 · {tier} · gave up\n🃏 0/28 · ⏱️ 3:41 · 👣 1 · 💡 0\n⬛\n⬛⬛\n" in text


async def test_daily_leaderboard_ranks_today_on_this_server(harness):
    await play_daily_to_the_end(harness, user=OWNER)
    await play_daily_to_the_end(harness, user=STRANGER, win=False)
    sent = await harness.command("daily leaderboard")
    embed = sent[-1].body["embeds"][0]
    lines = embed["description"].splitlines()
    assert lines[0].startswith(f"**1.** <@{OWNER}>: won") and lines[1].startswith(f"**2.** <@{STRANGER}>: gave up")
    assert "All servers: 2 players, 1 winner." in embed["fields"][0]["value"]


async def test_day_streak_across_midnight(harness):
    await play_daily_to_the_end(harness)
    harness.now[0] += DAY
    await play_daily_to_the_end(harness, win=False)
    sent = await harness.command("stats")
    fields = {f["name"]: f["value"] for f in sent[-1].body["embeds"][0]["fields"]}
    assert fields["Day streak"] == "2 (best 2)"
    harness.now[0] += 2 * DAY
    sent = await harness.command("stats")
    fields = {f["name"]: f["value"] for f in sent[-1].body["embeds"][0]["fields"]}
    assert fields["Day streak"] == "0 (best 2)"


async def test_stats_command_shows_the_figures(harness):
    await harness.command("new", code=kings_and_pairs().code)
    harness.now[0] += 10
    live = await harness.bot.manager.live(700_000_000_000_000_001)
    from tests.support.deals import clear_kings_and_pairs

    harness.now[0] += 65
    await play(harness.bot.manager, live.record.channel_id, lambda g: (clear_kings_and_pairs(g), g.undo())[1])
    sent = await harness.command("stats")
    fields = {f["name"]: f["value"] for f in sent[-1].body["embeds"][0]["fields"]}
    assert fields["Played"] == "1" and fields["Won"] == "1" and fields["Win rate"] == "100%"
    assert fields["Fewest moves"] == "16" and fields["Recent games"] == "🟩"
    sent = await harness.command("stats", user=STRANGER)
    assert "has not finished a game" in sent[-1].content


async def test_leaderboard_command_pages(harness):
    for player in range(25):
        await add_game(harness.storage, player=1000 + player, seconds=100.0 + player, finished=T0 + player)
    sent = await harness.command("leaderboard", period="all")
    embed = sent[-1].body["embeds"][0]
    assert embed["description"].splitlines()[0].startswith("**1.** <@1000>: 1 win of 1, best time 1:40")
    assert embed["footer"]["text"] == "Page 1 of 3"
    sent = await harness.press(sent[-1].button("Next"))
    assert sent[-1].body["embeds"][0]["description"].splitlines()[0].startswith("**11.** <@1010>")
    sent = await harness.command("leaderboard", period="today")
    assert sent[-1].body["embeds"][0]["footer"]["text"] == "Page 1 of 3"  # all 25 finished today
    harness.now[0] += DAY
    sent = await harness.command("leaderboard", period="today")
    assert sent[-1].body["embeds"][0]["description"] == "No finished games in this period yet."
    sent = await harness.command("leaderboard", period="week")
    assert sent[-1].body["embeds"][0]["footer"]["text"] == "Page 1 of 3"  # Monday 30 Nov starts the week


async def test_stats_reset_needs_manage_server_and_a_confirmation(harness):
    await add_game(harness.storage, player=OWNER)
    await add_game(harness.storage, player=STRANGER)
    sent = await harness.command("/pyramide-admin reset-stats", user=STRANGER)
    assert "Manage Server" in sent[-1].content
    sent = await harness.command("/pyramide-admin reset-stats", user=STRANGER, permissions=PLAIN | MANAGE_GUILD)
    prompt = sent[-1]
    await harness.press(prompt.button("Cancel"), user=STRANGER, permissions=PLAIN | MANAGE_GUILD)
    assert len(await harness.storage.results(GUILD_ID, OWNER)) == 1
    sent = await harness.press(prompt.button("Yes, delete"), user=STRANGER, permissions=PLAIN | MANAGE_GUILD)
    assert "2 games deleted" in sent[-1].content
    assert await harness.storage.results(GUILD_ID, OWNER) == []


async def test_a_servers_data_goes_a_grace_period_after_the_bot_left_unless_it_came_back(harness):
    await add_game(harness.storage, player=OWNER)
    await harness.command("/pyramide-admin settings", permissions=PLAIN | MANAGE_GUILD, error_help=False)
    admin = harness.bot.get_cog("Admin")
    known = asyncio.all_tasks()
    internals.remove_guild(harness.bot, GUILD_ID)  # the gateway: removed from the server
    await harness.settle(known)
    harness.now[0] += 29 * DAY
    await admin.housekeeping()
    assert len(await harness.storage.results(GUILD_ID, OWNER)) == 1  # still within the grace period
    harness.now[0] += 2 * DAY
    await admin.housekeeping()
    assert await harness.storage.results(GUILD_ID, OWNER) == []
    assert (await harness.storage.settings(GUILD_ID)).error_help  # the defaults again: the row is gone


async def test_coming_back_within_the_grace_period_keeps_everything(harness):
    await add_game(harness.storage, player=OWNER)
    admin = harness.bot.get_cog("Admin")
    known = asyncio.all_tasks()
    internals.remove_guild(harness.bot, GUILD_ID)
    await harness.settle(known)
    harness.now[0] += 10 * DAY
    await admin.on_guild_join(discord.Object(GUILD_ID))
    harness.now[0] += 60 * DAY
    await admin.housekeeping()
    assert len(await harness.storage.results(GUILD_ID, OWNER)) == 1


async def test_forget_me_deletes_a_players_games_everywhere_after_a_confirmation(harness):
    await add_game(harness.storage, player=OWNER)
    await add_game(harness.storage, player=OWNER, guild=GUILD_ID + 1)
    await add_game(harness.storage, player=STRANGER)
    await harness.command("new", code="PY1-N-AAAAAAS")  # a game in play too
    sent = await harness.command("forget-me")
    prompt = sent[-1]
    assert prompt.ephemeral and "cannot be undone" in prompt.content
    sent = await harness.press(prompt.button("Yes, delete my data"), user=STRANGER)
    assert len(await harness.storage.results(GUILD_ID, OWNER)) == 1  # nobody else can confirm it
    sent = await harness.press(prompt.button("Yes, delete my data"))
    assert "3 games deleted" in sent[-1].content
    assert await harness.storage.results(GUILD_ID, OWNER) == []
    assert await harness.storage.results(GUILD_ID + 1, OWNER) == []
    assert len(await harness.storage.results(GUILD_ID, STRANGER)) == 1
    assert await harness.bot.manager.live(CHANNEL_ID) is None  # the game in play went with it


async def test_the_leaderboard_shows_the_askers_rank_names_and_filters_by_rules(harness):
    for player in range(25):
        await add_game(harness.storage, player=1000 + player, seconds=100.0 + player, finished=T0 + player)
    await add_game(harness.storage, player=OWNER, seconds=500.0, finished=T0 + 99, rules="P2")
    await harness.storage.remember_name(1000, "Ana *the* Great")
    sent = await harness.command("leaderboard")
    embed = sent[-1].body["embeds"][0]
    lines = embed["description"].splitlines()
    assert lines[0].startswith("**1.** Ana \\*the\\* Great: 1 win of 1")  # the name, markdown escaped
    assert lines[1].startswith("**2.** <@1001>")  # never seen by the bot: a mention
    assert lines[-1] == "Your rank: 26 of 26"  # on page 1, though the asker is on page 3
    sent = await harness.command("leaderboard", rules="P2")
    embed = sent[-1].body["embeds"][0]
    assert embed["title"].endswith("· 3 passes")
    assert embed["description"].splitlines()[0].startswith(f"**1.** <@{OWNER}>")
    assert embed["description"].splitlines()[-1] == "Your rank: 1 of 1"
    sent = await harness.command("leaderboard", user=STRANGER)
    assert "Your rank" not in sent[-1].body["embeds"][0]["description"]  # not on it: no line
