"""Achievements against the real ``bot.py`` process (tests/support/fake_discord.py, helpers of test_process): an
achievement is announced once across a ``kill -9`` and a restart, and once when the winning press is
delivered to two processes holding the same shard (on the game's own board: if the winner's answer lost
to the other process's, the board's next drawing shows it). On SQLite and on PostgreSQL. A perfect loss
owed by a press killed while it waited for the solver's verdict is paid after the restart, once, and shown
where the player presses next (SQLite: the owed row is the same on both databases, tests/test_play.py)."""

from __future__ import annotations

import os
import signal

import pytest

from tests.support.bot_process import (
    CHANNEL_A,
    GUILD_A,
    PLAYER,
    alive_in_session,
    connected,
    deal,
    launch,
    plan,
    rows,
    stop,
    tap,
    until,
)
from tests.support.deals import kings_and_pairs, one_king_deal
from tests.support.fake_discord import FakeDiscord

pytestmark = pytest.mark.backends("sqlite", "postgresql")

FIRST_WIN = "Achievement unlocked: First win"
PERFECT_LOSS = "Achievement unlocked: Perfect loss"


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


async def test_an_achievement_is_announced_once_across_a_kill_9_and_a_restart(fake, tmp_path, database_url):
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


async def test_a_winning_press_delivered_to_two_processes_announces_once(fake, tmp_path, database_url):
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


def button(board: dict, label: str) -> str:
    return next(b["custom_id"] for row in board["components"] for b in row["components"] if b["label"] == label)


async def test_a_perfect_loss_owed_by_a_press_killed_during_its_verdict_is_shown_once_after_a_restart(fake, tmp_path):
    db = tmp_path / "pyramide.db"
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, one_king_deal().code)
        board = await tap(fake, GUILD_A, board, "K♠")  # the one card the deal allows: End now is a perfect loss
        # The bot's other processes held (its solver workers, multiprocessing's tracker; SIGSTOP from outside,
        # nothing of the bot changed): the End's verdict cannot come, and the press waits for it.
        held = [int(line.split()[0]) for line in alive_in_session(bot.pid) if int(line.split()[0]) != bot.pid]
        assert held
        for pid in held:
            os.kill(pid, signal.SIGSTOP)
        end = fake.press(GUILD_A, PLAYER, board, button(board, "End"))
        deferred = await fake.answered_after(end)  # acknowledged once the game is closed, to wait for the verdict...
        assert deferred.requests[0]["body"]["type"] == 6, deferred.requests[0]
    finally:
        await stop(bot, kill=True)  # ...and the whole process group gone, the held workers with it
    game_id = rows(db, "SELECT id FROM games WHERE status != 'playing'")[0][0]
    assert rows(db, "SELECT game_id FROM verdicts_owed") == [(game_id,)] and unlocked(db, "perfect_loss") == []
    assert PERFECT_LOSS not in fake.messages[int(board["id"])]["content"]
    await fake.wait_for_shards(0)
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        await until(lambda: rows(db, "SELECT game_id FROM verdicts_owed") == [])  # paid after the start
        # The player's End got no answer: pressed again, the board shows the game's ending with it.
        again = fake.press(GUILD_A, PLAYER, board, button(board, "End"))
        await fake.answered_after(again)
        shown = fake.messages[int(board["id"])]["content"]
        assert "at most 1 card" in shown and shown.count(PERFECT_LOSS) == 1, shown
    finally:
        await stop(bot)
    assert announced(fake, PERFECT_LOSS) == 1
    assert unlocked(db, "perfect_loss") == [(PLAYER, game_id)]
