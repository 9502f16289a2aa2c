"""The daily challenge as players meet it, through the real discord.py objects and an injected clock:
one counted attempt, no peeking, hints in the result, a spoiler-free share line, threads done right."""

import io
import re
from datetime import date

import pytest
from PIL import Image

from pyramide import Game, Rules
from pyramide.daily import daily_game
from pyramide.difficulty import rate
from pyramide.solver import solve
from pyramide_service.changes import Change, GameChanged
from pyramide_service.storage import ENDED, WON
from tests.support.harness import CHANNEL_ID, GUILD_ID, MANAGE_GUILD, OWNER, PLAIN, STRANGER, Harness, labels
from tests.support.manager_turns import play

pytestmark = pytest.mark.backends("sqlite", "postgresql")

T0 = 1_764_460_800 + 365 * 86_400  # 2026-11-30 00:00 UTC
DAY = 86_400
CARD_NAME = re.compile(r"(10|[2-9AJQK])[♠♥♦♣]")


@pytest.fixture
def harness(harness):
    """The shared harness (conftest.py), its clock at 2026-11-30 01:00 UTC."""
    harness.now[0] = T0 + 3600
    return harness


async def open_daily(h, user=OWNER, channel_id=CHANNEL_ID):
    sent = await h.command("daily play", user=user, channel_id=channel_id)
    thread_id = int(h.hub.threads[-1]["id"]) if channel_id == CHANNEL_ID else channel_id
    return sent, thread_id


async def win(h, thread_id, *, hints=0, user=OWNER):
    live = await h.bot.manager.live(thread_id)
    for _ in range(hints):
        await h.command("hint", user=user, channel_id=thread_id)
    line = solve(live.game).line
    for move in line:
        await play(h.bot.manager, thread_id, lambda game, move=move: game.play(move))


async def test_the_second_daily_play_of_a_day_points_to_the_first_thread(harness):
    _, thread_id = await open_daily(harness)
    threads = len(harness.hub.threads)
    sent = await harness.command("daily play")
    assert f"waiting for you in <#{thread_id}>" in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64
    assert len(harness.hub.threads) == threads  # no second thread
    assert harness.bot.manager.live_count == 1  # no second engine


async def test_two_servers_one_day_one_counted_attempt_per_player(harness, tmp_path):
    _, thread_id = await open_daily(harness)
    first = (await harness.bot.manager.live(thread_id)).game.code
    other = Harness(harness.db_path)
    other.guild_id = GUILD_ID + 1
    other.now = harness.now
    await other.start()
    try:
        other.bot.dailies.secret = harness.bot.dailies.secret  # one deployment, one secret (kept in the database)
        sent = await other.command("daily play")
        assert "waiting for you" in sent[-1].content  # the same player: the attempt is already open
        sent, stranger_thread = await open_daily(other, user=STRANGER)
        assert (await other.bot.manager.live(stranger_thread)).game.code == first  # the same deal everywhere
    finally:
        await other.stop()


async def test_the_next_day_is_a_new_attempt_and_an_unfinished_one_ends_at_midnight(harness):
    _, thread_id = await open_daily(harness)
    first = (await harness.bot.manager.live(thread_id)).game.code
    heard: list[Change] = []

    async def hear(change: Change) -> None:
        heard.append(change)

    harness.bot.changes.subscribe(hear, thread_id)  # a page showing that daily
    harness.now[0] += DAY
    assert await harness.bot.plays.expire_dailies(date(2026, 12, 1).isoformat()) == 1
    attempt = await harness.storage.daily_attempt("2026-11-30", OWNER)
    assert attempt.status == ENDED  # never finished: a finished attempt at midnight UTC
    assert [(c.game_id, c.finished, c.status) for c in heard if isinstance(c, GameChanged)] == [
        (attempt.game_id, True, ENDED)
    ]  # the page stops showing it in play
    _, second = await open_daily(harness)
    assert second != thread_id and (await harness.bot.manager.live(second)).game.code != first
    assert await harness.storage.daily_days(OWNER) == ["2026-11-30"]


async def test_no_peeking_the_daily_deal_is_not_dealt_elsewhere_before_the_attempt_is_over(harness):
    day_game = daily_game(date(2026, 11, 30), harness.bot.dailies.secret)
    for code in (day_game.code, Game(day_game.deal, Rules(pass_limit=2)).code):  # other rules, the same cards
        sent = await harness.command("new", code=code, channel_id=700_000_000_000_000_002)
        assert "today's daily deal" in sent[-1].content and sent[-1].ephemeral
    assert await harness.storage.live_game(700_000_000_000_000_002) is None
    sent, thread_id = await open_daily(harness)
    board = next(s for s in sent if s.path == "/channels/{channel_id}/messages")
    assert day_game.code not in board.content and "Daily #334" in board.content  # the board hides its code
    sent = await harness.command("code", channel_id=thread_id)
    assert "shown once your attempt is finished" in sent[-1].content
    await win(harness, thread_id)
    sent = await harness.command("new", code=day_game.code, channel_id=700_000_000_000_000_002)
    assert sent[0].png is not None and day_game.code in sent[0].content  # once finished, it is an ordinary deal


async def test_a_stats_reset_never_opens_a_second_counted_attempt(harness):
    _, thread_id = await open_daily(harness)
    await harness.command("draw", channel_id=thread_id)
    await harness.command("end", channel_id=thread_id)
    prompt = (await harness.command("/pyramide-admin reset-stats", permissions=PLAIN | MANAGE_GUILD))[-1]
    await harness.press(prompt.button("Yes, delete"), permissions=PLAIN | MANAGE_GUILD)
    assert await harness.storage.results(GUILD_ID, OWNER) == []
    sent = await harness.command("daily play")
    assert "already" in sent[-1].content
    assert await harness.storage.daily_totals("2026-11-30") == (1, 0)
    assert await harness.storage.daily_days(OWNER) == ["2026-11-30"]


async def test_same_deal_again_on_an_old_daily_is_an_ordinary_uncounted_game(harness):
    _, thread_id = await open_daily(harness)
    await harness.command("end", channel_id=thread_id)
    harness.now[0] += 2 * DAY
    sent = await harness.press(harness.board_button("Same deal again"))
    assert any(s.png for s in sent)
    record = await harness.storage.live_game(thread_id)
    assert record.daily is None and not record.counted
    await harness.command("end", channel_id=thread_id)
    assert await harness.storage.daily_days(OWNER) == ["2026-11-30"]  # the old day was not filled in again


async def test_hints_are_counted_shown_and_ranked(harness):
    _, owner_thread = await open_daily(harness)
    await win(harness, owner_thread, hints=2)
    _, stranger_thread = await open_daily(harness, user=STRANGER)
    harness.now[0] += 600  # slower, but without hints
    await win(harness, stranger_thread, user=STRANGER)
    rows = await harness.storage.daily_rows("2026-11-30", GUILD_ID)
    assert [(r.player_id, r.hints) for r in rows] == [(STRANGER, 0), (OWNER, 2)]  # an unaided win ranks first
    sent = await harness.command("daily leaderboard")
    lines = sent[-1].body["embeds"][0]["description"].splitlines()
    assert lines[0].startswith(f"**1.** <@{STRANGER}>") and lines[1].endswith("💡 2")
    sent = await harness.command("daily play")  # the player's own result shows the hints too
    assert "👣" in sent[-1].content and "💡 2" in sent[-1].content
    sent = await harness.command("stats")
    fields = {f["name"]: f["value"] for f in sent[-1].body["embeds"][0]["fields"]}
    assert fields["Hints used"] == "2"
    sent = await harness.command("leaderboard")
    board = sent[-1].body["embeds"][0]["description"].splitlines()  # the hint count beside each player
    rows = {line.split(":")[0].split("** ")[1]: line.rsplit(" ", 1)[1] for line in board if line.startswith("**")}
    assert rows == {"Player 1": "2", "Player 2": "0"}  # by the names they go by, not mentions


async def test_the_share_line_gives_nothing_away_and_the_share_button_posts_it(harness):
    _, thread_id = await open_daily(harness)
    await harness.command("draw", channel_id=thread_id)
    sent = await harness.command("end", channel_id=thread_id)
    board = next(s for s in sent if s.png)
    text = board.content.split("Pyramide daily")[1]
    assert not CARD_NAME.search(text)
    share = board.button("Share")
    sent = await harness.press(share)
    posted = next(s for s in sent if s.path == "/channels/{channel_id}/messages")
    assert f"/channels/{CHANNEL_ID}/messages" in posted.url  # in the channel the thread belongs to
    tier = rate(daily_game(date(2026, 11, 30), harness.bot.dailies.secret)).tier  # before the schedule: as measured
    assert f"Pyramide daily #334 · {tier} · gave up" in posted.content and not CARD_NAME.search(posted.content)
    assert "Shared in" in sent[-1].content and sent[-1].ephemeral
    sent = await harness.press(share, user=STRANGER)
    assert "This is <@" in sent[-1].content  # only the player shares their result


def test_the_deployment_secret_changes_the_deal_and_no_secret_is_the_documented_scheme():
    day = date(2026, 11, 30)
    plain, one, two = daily_game(day), daily_game(day, b"one"), daily_game(day, b"two")
    assert plain.code == "PY1-N-AADO7ZG"
    assert len({plain.code, one.code, two.code}) == 3
    assert all(solve(g).won for g in (one, two))
    assert daily_game(day, b"one").code == one.code  # the same for every server of a deployment


async def test_a_thread_that_cannot_be_posted_to_is_cleaned_up(harness):
    harness.hub.refuse("POST", "/channels/{channel_id}/messages")
    sent = await harness.command("daily play")
    assert "could not post your board" in sent[-1].content
    thread_id = int(harness.hub.threads[-1]["id"])
    assert any(s.method == "DELETE" and s.url.endswith(f"/channels/{thread_id}") for s in harness.hub.sent)
    assert await harness.storage.live_game(thread_id) is None
    assert await harness.storage.daily_attempt("2026-11-30", OWNER) is None  # nothing counted
    sent, thread_id = await open_daily(harness)  # and the next try works
    assert (await harness.bot.manager.live(thread_id)) is not None


async def test_a_counted_attempt_that_cannot_be_taken_back_is_logged(harness, caplog):
    storage = harness.storage

    async def fails(*args):
        raise OSError("disk I/O error")

    storage.remember_name = fails  # a step after the attempt was stored fails...
    storage.discard_game = fails  # ...and so does taking the attempt back
    try:
        sent = await harness.command("daily play")
    finally:
        del storage.remember_name, storage.discard_game
    assert "Something went wrong" in sent[-1].content
    left = [r for r in caplog.records if "counted attempt was left with no board" in r.getMessage()]
    assert left and left[0].exc_info is not None  # visible, with its traceback, not swallowed


async def test_missing_thread_permissions_are_named(harness):
    harness.app_permissions = PLAIN | (1 << 35) | (1 << 36) | (1 << 38)  # no Attach Files, no Embed Links
    sent = await harness.command("daily play")
    assert "I need the Attach Files permission" in sent[-1].content and not harness.hub.threads


async def test_in_a_thread_the_daily_is_played_in_place(harness):
    thread_id = 700_000_000_000_000_077  # the harness makes any other channel a thread
    sent = await harness.command("daily play", channel_id=thread_id)
    assert not harness.hub.threads
    live = await harness.bot.manager.live(thread_id)
    assert live is not None and live.record.counted and f"<#{thread_id}>" in sent[-1].content
    await win(harness, thread_id)
    assert (await harness.storage.daily_attempt("2026-11-30", OWNER)).status == WON
    await harness.press(harness.board_button("Hint"))  # the board's message catches up with the won game
    assert labels(harness.board())[0] == "Share"


async def test_the_daily_board_names_the_days_tier(harness):
    harness.now[0] += 7 * DAY  # Monday 7 December 2026, the first day of the week's schedule: easy
    sent, _ = await open_daily(harness)
    board = next(s for s in sent if s.path == "/channels/{channel_id}/messages")
    assert "Daily #341" in board.content and "Difficulty: easy" in board.content.splitlines()[0]
    harness.now[0] += 4 * DAY  # Friday: hard
    sent, _ = await open_daily(harness, user=STRANGER)
    board = next(s for s in sent if s.path == "/channels/{channel_id}/messages")
    assert "Daily #345" in board.content and "Difficulty: hard" in board.content


async def test_the_month_calendar_counts_the_players_days(harness):
    _, thread_id = await open_daily(harness)  # 30 November, won with a hint
    await win(harness, thread_id, hints=1)
    sent = await harness.command("daily month")
    picture = next(s for s in sent if s.png)
    alt = picture.body["attachments"][0]["description"]
    assert alt.startswith("Calendar of November 2026: 0 won without hints, 1 won with hints, 0 given up, 29 missed")
    assert "Streak: 1 day · best: 1 day" in alt and not picture.ephemeral
    image = Image.open(io.BytesIO(picture.png))
    assert image.width == 690
    harness.now[0] += DAY  # 1 December: last month is November, this one is empty so far
    sent = await harness.command("daily month", month="last")
    assert "1 won with hints" in next(s for s in sent if s.png).body["attachments"][0]["description"]
    sent = await harness.command("daily month")
    alt = next(s for s in sent if s.png).body["attachments"][0]["description"]
    assert alt.startswith("Calendar of December 2026: 0 won without hints, 0 won with hints, 0 given up, 0 missed")


async def test_daily_month_reads_one_players_attempts_of_the_month(harness):
    _, thread_id = await open_daily(harness)
    await harness.command("end", channel_id=thread_id)
    await open_daily(harness, user=STRANGER)
    got = await harness.storage.daily_month(OWNER, "2026-11-01", "2026-11-30")
    assert [(a.day, a.player_id, a.status) for a in got] == [("2026-11-30", OWNER, ENDED)]
    assert await harness.storage.daily_month(OWNER, "2026-12-01", "2026-12-31") == []
    assert [a.status for a in await harness.storage.daily_month(STRANGER, "2026-11-30", "2026-11-30")] == [None]
