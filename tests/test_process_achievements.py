"""Achievements against the real ``bot.py`` process (tests/fake_discord.py, helpers of test_process): an
achievement is announced once across a ``kill -9`` and a restart, and once when the winning press is
delivered to two processes holding the same shard (on the game's own board: if the winner's answer lost
to the other process's, the board's next drawing shows it). On SQLite and on PostgreSQL."""

from __future__ import annotations

from tests.deals import kings_and_pairs
from tests.fake_discord import FakeDiscord
from tests.test_process import (
    CHANNEL_A,
    GUILD_A,
    PLAYER,
    connected,
    deal,
    fake,  # noqa: F401 (the fixture)
    launch,
    plan,
    rows,
    stop,
    tap,
)

FIRST_WIN = "Achievement unlocked: First win"


def announced(server: FakeDiscord, words: str) -> int:
    """How many of the answers the bot sent (callbacks, follow-ups, edits) say ``words``."""
    count = 0
    for answer in server.answers.values():
        for request in answer.requests:
            body = request.get("body") or {}
            content = (body.get("data", body) or {}).get("content") or ""
            count += words in content
    return count


def unlocked(db, key: str) -> list[tuple]:
    return rows(db, f"SELECT player_id, game_id FROM achievements WHERE key = '{key}'")


async def test_an_achievement_is_announced_once_across_a_kill_9_and_a_restart(fake, tmp_path, database_url):  # noqa: F811
    db = database_url if database_url.startswith("postgresql://") else tmp_path / "pyramide.db"
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        for label in plan():
            board = await tap(fake, GUILD_A, board, label)
        assert FIRST_WIN in board["content"]
    finally:
        await stop(bot, kill=True)  # no goodbye, right after the winning answer
    await fake.wait_for_shards(0)
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)  # the same deal won again
        for label in plan():
            board = await tap(fake, GUILD_A, board, label)
        assert "You won!" in board["content"] and FIRST_WIN not in board["content"]
    finally:
        await stop(bot)
    assert announced(fake, FIRST_WIN) == 1
    assert len(unlocked(db, "first_win")) == 1 and unlocked(db, "first_win")[0][0] == PLAYER


async def test_a_winning_press_delivered_to_two_processes_announces_once(fake, tmp_path, database_url):  # noqa: F811
    db = database_url if database_url.startswith("postgresql://") else tmp_path / "pyramide.db"
    labels = plan()
    first = launch(fake, db, folder=tmp_path)
    second = None
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        for label in labels[:-1]:
            board = await tap(fake, GUILD_A, board, label)
        second = launch(fake, db, folder=tmp_path)  # a rolling restart: both hold the shard a while
        await connected(fake, 2)
        custom_id = next(
            b["custom_id"] for row in board["components"] for b in row["components"] if b["label"] == labels[-1]
        )
        payload = fake.press(GUILD_A, PLAYER, board, custom_id)
        await fake.send(payload, shards=list(fake.shards))  # the winning press, delivered to both
        await fake.tried(payload, 2)
        if FIRST_WIN not in fake.messages[int(board["id"])]["content"]:
            # The winner's answer lost to the other process's (40060): the next press redraws the board.
            redraw = fake.press(GUILD_A, PLAYER, board, custom_id)
            await fake.answered_after(redraw)
    finally:
        await stop(first)
        if second is not None:
            await stop(second)
    assert rows(db, "SELECT status FROM games") == [("won",)]
    assert len(unlocked(db, "first_win")) == 1
    showing = [m for m in fake.messages.values() if FIRST_WIN in (m.get("content") or "")]
    assert [int(m["id"]) for m in showing] == [int(board["id"])]  # on the game's own board, nowhere else
    assert showing[0]["content"].count(FIRST_WIN) == 1
