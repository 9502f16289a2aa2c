"""A server event against the real ``bot.py`` process and the Discord-like server, on both databases: a
moderator starts it (its deals found by the solver), three players play its three deals from the
announcement's Play button, the codes stay hidden while it runs, and the deadline, passed while the bot
was stopped, is announced once by two processes holding the server's shard after the restart."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from pyramide_service.events import deal_key
from tests.support.bot_process import (
    CHANNEL_A,
    GUILD_A,
    answered_words,
    connected,
    launch,
    plan,
    rows,
    serving,
    stop,
    until,
)
from tests.support.deals import kings_and_pairs, stuck_game, two_pass
from tests.support.fake_discord import FakeDiscord, Guild
from tests.support.harness import MANAGE_GUILD, PLAIN
from tests.support.throwaway_postgres import fetch

pytestmark = pytest.mark.backends("sqlite", "postgresql")

PLAYERS = (600_000_000_000_000_011, 600_000_000_000_000_012, 600_000_000_000_000_013)
DEALS = (kings_and_pairs(), stuck_game(), two_pass())


@pytest.fixture
async def fake():
    async with serving(FakeDiscord([Guild(GUILD_A, (CHANNEL_A,))])) as server:
        yield server


def write(db: Path | str, *statements: str) -> None:
    """Change the test's database straight (as an operator's SQL would)."""
    if isinstance(db, str) and db.startswith("postgresql://"):
        for statement in statements:
            fetch(db, statement)
        return
    with sqlite3.connect(db, timeout=10) as connection:
        for statement in statements:
            connection.execute(statement)


def admin_command(fake: FakeDiscord, sub: str, **options) -> dict:
    """``/pyramide-admin event <sub>`` by a member with Manage Server."""
    kinds = {bool: 5, int: 4, str: 3}
    leaf = [{"name": k, "type": kinds[type(v)], "value": v} for k, v in options.items()]
    data = {
        "id": "1",
        "name": "pyramide-admin",
        "type": 1,
        "options": [{"name": "event", "type": 2, "options": [{"name": sub, "type": 1, "options": leaf}]}],
        "resolved": {},
        "guild_id": None,
    }
    payload = fake.interaction(GUILD_A, CHANNEL_A, PLAYERS[0], 2, data)
    payload["member"]["permissions"] = str(PLAIN | MANAGE_GUILD)
    return payload


def event_command(fake: FakeDiscord, player: int, sub: str, channel: int = CHANNEL_A, **options) -> dict:
    payload = fake.command(GUILD_A, channel, player, "event", **options)
    payload["data"]["options"] = [{"name": "event", "type": 2, "options": [{"name": sub, "type": 1, "options": []}]}]
    return payload


def with_play(fake: FakeDiscord) -> dict:
    return next(
        m
        for m in fake.messages.values()
        if any(c.get("custom_id", "").startswith("pye:play:") for r in m.get("components", []) for c in r["components"])
    )


def results(fake: FakeDiscord) -> list[dict]:
    return [m for m in fake.messages.values() if m.get("embeds") and "Final standings" in m["embeds"][0]["title"]]


async def play_deal(fake: FakeDiscord, player: int, *, clear: bool) -> int:
    """Press Play on the announcement; clear the pyramid (the first deal) or end the game at once."""
    announcement = with_play(fake)
    custom_id = announcement["components"][0]["components"][0]["custom_id"]
    payload = fake.press(GUILD_A, player, announcement, custom_id)
    await fake.answered_after(payload)
    await until(lambda: "is ready in <#" in answered_words(fake, payload))
    thread = int(re.search(r"<#(\d+)>", answered_words(fake, payload))[1])
    board = next(m for m in fake.messages.values() if m["channel_id"] == str(thread) and m.get("components"))
    assert "Event deal" in board["content"] and "PY1-" not in board["content"]  # its code hidden
    if clear:
        for label in plan():
            custom = next(b["custom_id"] for r in board["components"] for b in r["components"] if b["label"] == label)
            press = fake.press(GUILD_A, player, board, custom)
            await fake.answered_after(press)
            board = fake.messages[int(board["id"])]
        assert "You won!" in board["content"]
    else:
        ended = fake.command(GUILD_A, thread, player, "end")
        await fake.answered_after(ended)
    return thread


async def test_an_event_of_three_deals_and_three_players_against_the_process(fake, tmp_path, database_url):
    db = database_url if database_url.startswith("postgresql://") else tmp_path / "pyramide.db"
    bot = launch(fake, db, folder=tmp_path)
    first = second = None
    try:
        await connected(fake, 1)
        start = admin_command(fake, "start", name="December Cup", deals=3, duration="1d")
        await fake.answered_after(start)
        await until(lambda: "has started with 3 deals" in answered_words(fake, start), timeout=60)
        found = rows(db, "SELECT code FROM event_deals ORDER BY position")
        assert len({code for (code,) in found}) == 3  # three winnable deals, found by the solver
        # The test's own deals from here on, so that a player can clear the first by its labels.
        write(
            db,
            *(
                f"UPDATE event_deals SET code = '{g.code}', deal = '{deal_key(g)}' WHERE position = {i}"
                for i, g in enumerate(DEALS)
            ),
        )
        peek = fake.command(GUILD_A, CHANNEL_A, PLAYERS[1], "new", code=DEALS[0].code)
        await fake.answered_after(peek)
        await until(lambda: "running server event" in answered_words(fake, peek))  # hidden while it runs
        for n, player in enumerate(PLAYERS):
            for deal in range(3):
                await play_deal(fake, player, clear=deal == 0 and n != 1)
        again = event_command(fake, PLAYERS[0], "play")
        await fake.answered_after(again)
        await until(lambda: "every deal of **December Cup**" in answered_words(fake, again))
        assert "#1 of 3" in answered_words(fake, again) or "#2 of 3" in answered_words(fake, again)
        places = rows(
            db,
            "SELECT player_id, SUM(removed) FROM event_entries GROUP BY player_id"
            " ORDER BY SUM(removed) DESC, player_id",
        )
        assert [(int(p), int(r)) for p, r in places][2] == (PLAYERS[1], 0)  # two cleared, one did not
        log = await stop(bot)
        assert "Traceback" not in log, log[-3000:]
        # Stopped past the deadline; two processes hold the server's shard when it comes back.
        write(db, "UPDATE events SET ends_at = 0")
        first, second = launch(fake, db, folder=tmp_path), launch(fake, db, folder=tmp_path)
        await connected(fake, 2)
        await until(lambda: len(results(fake)) == 1, timeout=60)
        await until(lambda: all("events checked" in p.log_path.read_text() for p in (first, second)), timeout=60)
        final = results(fake)
        assert len(final) == 1 and all(g.code in str(final[0]) for g in DEALS)  # announced once, codes revealed
        assert final[0]["attachments"][0]["filename"] == "podium.png"
        assert with_play_gone(fake)
    finally:
        for process in (first, second):
            if process is not None:
                await stop(process)
        if bot.poll() is None:
            await stop(bot)


def with_play_gone(fake: FakeDiscord) -> bool:
    return all(
        not c.get("custom_id", "").startswith("pye:play:")
        for m in fake.messages.values()
        if m.get("embeds") and m["embeds"][0].get("title", "").startswith("🏆")
        for r in m.get("components", [])
        for c in r["components"]
    )


def event_ids(db: Path | str) -> list[tuple[int, bool, bool]]:
    found = rows(db, "SELECT id, ended_at IS NOT NULL, cancelled FROM events ORDER BY id")
    return [(int(i), bool(e), bool(c)) for i, e, c in found]


async def test_one_attempt_a_deleted_announcement_forget_me_end_early_and_cancel_against_the_process(
    fake, tmp_path, database_url
):
    db = database_url if database_url.startswith("postgresql://") else tmp_path / "pyramide.db"
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        start = admin_command(fake, "start", name="Quick Cup", deals=2, duration="2h")
        await fake.answered_after(start)
        await until(lambda: "has started with 2 deals" in answered_words(fake, start), timeout=60)
        announcement = with_play(fake)
        custom_id = announcement["components"][0]["components"][0]["custom_id"]
        first = fake.press(GUILD_A, PLAYERS[0], announcement, custom_id)
        await fake.answered_after(first)
        await until(lambda: "is ready in <#" in answered_words(fake, first))
        again = fake.press(GUILD_A, PLAYERS[0], announcement, custom_id)  # while deal 1 is in play
        await fake.answered_after(again)
        await until(lambda: "deal 1 is still waiting for you" in answered_words(fake, again))
        assert rows(db, "SELECT COUNT(*) FROM event_entries") == [(1,)]  # one attempt, no second thread
        thread = int(re.search(r"<#(\d+)>", answered_words(fake, first))[1])
        ended = fake.command(GUILD_A, thread, PLAYERS[0], "end")
        await fake.answered_after(ended)
        fake.deleted_messages.add(int(announcement["id"]))  # a moderator deletes the announcement
        await play_deal(fake, PLAYERS[1], clear=False)  # the event goes on without it
        await until(lambda: rows(db, "SELECT COUNT(*) FROM event_entries WHERE status IS NOT NULL") == [(2,)])
        forget = fake.command(GUILD_A, CHANNEL_A, PLAYERS[1], "forget-me")
        await fake.answered_after(forget)
        prompt = fake.messages[fake.original[forget["token"]]]
        yes = next(b["custom_id"] for r in prompt["components"] for b in r["components"] if "Yes" in b["label"])
        confirm = fake.press(GUILD_A, PLAYERS[1], prompt, yes)
        await fake.answered_after(confirm)
        await until(lambda: rows(db, f"SELECT COUNT(*) FROM event_entries WHERE player_id = {PLAYERS[1]}") == [(0,)])
        end = admin_command(fake, "end")
        await fake.answered_after(end)
        await until(lambda: len(results(fake)) == 1)
        final = results(fake)[0]["embeds"][0]["description"]
        assert final.count("\n") == 0 and "Player 11" in final  # the forgotten player left the standings
        again = admin_command(fake, "end")
        await fake.answered_after(again)
        await until(lambda: "No event is running" in answered_words(fake, again))
        second = admin_command(fake, "start", name="Cancelled Cup", deals=1, duration="1d")
        await fake.answered_after(second)
        await until(lambda: "has started with 1 deal;" in answered_words(fake, second), timeout=60)
        cancel = admin_command(fake, "cancel")
        await fake.answered_after(cancel)
        await until(lambda: "has been cancelled" in answered_words(fake, cancel))
        assert len(results(fake)) == 1  # a cancelled event posts no results
        assert [(e, c) for _, e, c in event_ids(db)] == [(True, False), (True, True)]
    finally:
        log = await stop(bot)
    assert "Traceback" not in log, log[-3000:]
