"""The real ``bot.py`` process against a Discord-like server on 127.0.0.1 (tests/support/fake_discord.py): what
only a whole process shows. A game played to its end; ``kill -9`` mid-game and a restart that loses no
answered move; two processes with a shard each on one database; two processes holding the same shard
(a rolling restart) and a press delivered to both, applied once; the card emojis uploaded once and on
the boards. Those run on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest

from tests.support.bot_process import (
    CHANNEL_A,
    CHANNEL_B,
    GUILD_A,
    GUILD_B,
    PLAYER,
    alive_in_session,
    answered_words,
    connected,
    deal,
    launch,
    moves_after,
    plan,
    rows,
    shown,
    stop,
    stored,
    tap,
    until,
)
from tests.support.deals import kings_and_pairs
from tests.support.fake_discord import Answer, FakeDiscord, Guild
from tests.support.throwaway_postgres import Frozen, fetch, server_processes

pytestmark = pytest.mark.backends("sqlite", "postgresql")

ROOT = Path(__file__).resolve().parent.parent


async def test_a_game_is_played_to_its_end_against_the_process(fake, tmp_path):
    db = tmp_path / "pyramide.db"
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        for label in plan():
            board = await tap(fake, GUILD_A, board, label)
        assert "You won!" in board["content"]
        assert [b["label"] for row in board["components"] for b in row["components"]][:2] == [
            "New game",
            "Same deal again",
        ]
    finally:
        log = await stop(bot)
    assert "fake-token" not in log  # the token is never logged
    assert fake.unknown == [], fake.unknown
    assert stored(db)[0][0] == "won"


async def test_kill_9_mid_game_and_a_restart_lose_no_answered_move(fake, tmp_path, database_url):
    db = database_url  # a SQLite file, or (the same test again) a PostgreSQL database
    labels = plan()
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        for label in labels[:11]:
            board = await tap(fake, GUILD_A, board, label)
    finally:
        await stop(bot, kill=True)  # no goodbye: SIGKILL right after the 11th answer
    assert stored(db) == [("playing", moves_after(11), 11)]  # every answered move is on disk
    await fake.wait_for_shards(0)
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        for label in labels[11:]:  # the same message goes on where it stopped
            board = await tap(fake, GUILD_A, board, label)
        assert "You won!" in board["content"]
    finally:
        await stop(bot)
    assert [row[:2] for row in stored(db)] == [("won", moves_after(len(labels)))]  # (its actions now packed)


def read_to_end(stream: IO[bytes], done: threading.Event) -> None:
    while stream.read(65536):
        pass
    done.set()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_after_kill_9_no_worker_of_the_bot_is_left_and_its_output_ends(fake, tmp_path):
    """A supervisor that kills the bot (``kill -9``, the bot alone, not its process group) finds none of
    its processes left 10 s later (solver workers, multiprocessing's resource tracker), and a reader of
    the bot's stdout and stderr gets to their end instead of hanging."""
    bot = launch(fake, tmp_path / "pyramide.db", folder=tmp_path, piped=True)
    ended = [threading.Event(), threading.Event()]
    assert bot.stdout is not None and bot.stderr is not None
    for stream, done in zip((bot.stdout, bot.stderr), ended, strict=True):
        threading.Thread(target=read_to_end, args=(stream, done), daemon=True).start()
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        hint = next(b["custom_id"] for row in board["components"] for b in row["components"] if b["label"] == "Hint")
        await fake.answered_after(fake.press(GUILD_A, PLAYER, board, hint))
        await fake.answered_after(fake.command(GUILD_B, CHANNEL_B, PLAYER, "new", winnable=True))
        for _ in range(200):  # the bot, the resource tracker, the hint, verdict and deals workers
            if len(alive_in_session(bot.pid)) >= 5:
                break
            await asyncio.sleep(0.05)
        started = alive_in_session(bot.pid)
        assert len(started) >= 4, started  # the bot, the tracker and at least two workers
        os.kill(bot.pid, signal.SIGKILL)
        bot.wait(timeout=10)
        left = started
        for _ in range(200):
            left = alive_in_session(bot.pid)
            if not left and all(done.is_set() for done in ended):
                break
            await asyncio.sleep(0.05)
        assert left == [], left
        assert all(done.is_set() for done in ended)  # stdout and stderr reached their end
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bot.pid, signal.SIGKILL)  # whatever is left of the group
        bot.wait(timeout=10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_a_clean_stop_closes_the_workers_of_the_bot(fake, tmp_path):
    bot = launch(fake, tmp_path / "pyramide.db", folder=tmp_path)
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        hint = next(b["custom_id"] for row in board["components"] for b in row["components"] if b["label"] == "Hint")
        await fake.answered_after(fake.press(GUILD_A, PLAYER, board, hint))
        assert len(alive_in_session(bot.pid)) >= 4  # the bot, the resource tracker, two workers at least
        bot.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(bot.wait, 20) == 0
        left: list[str] = []
        for _ in range(100):  # the tracker ends once the workers have
            left = alive_in_session(bot.pid)
            if not left:
                break
            await asyncio.sleep(0.05)
        assert left == [], left
    finally:
        await stop(bot)


async def test_two_processes_serve_their_own_shards_and_one_survives_the_other(fake, tmp_path, database_url):
    db = database_url  # a SQLite file, or (the same test again) a PostgreSQL database
    first, second = launch(fake, db, "2", "0", folder=tmp_path), launch(fake, db, "2", "1", folder=tmp_path)
    try:
        await connected(fake, 2)
        assert {(s.shard_id, s.shard_count) for s in fake.shards} == {(0, 2), (1, 2)}
        board_a = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        board_b = await deal(fake, GUILD_B, CHANNEL_B, kings_and_pairs().code)
        labels = plan()
        board_a = await tap(fake, GUILD_A, board_a, labels[0])
        board_b = await tap(fake, GUILD_B, board_b, labels[0])
        await stop(first, kill=True)
        await fake.wait_for_shards(1)
        assert fake.shard_for(GUILD_A) == []  # nobody holds shard 0 now
        for label in labels[1:4]:  # the other process goes on answering its server
            board_b = await tap(fake, GUILD_B, board_b, label)
    finally:
        await stop(first, kill=True)
        await stop(second)
    assert sorted(stored(db)) == [("playing", moves_after(1), 1), ("playing", moves_after(4), 4)]


async def test_two_processes_holding_one_shard_apply_a_doubly_delivered_press_once(fake, tmp_path, database_url):
    db = database_url  # a SQLite file, or (the same test again) a PostgreSQL database
    first = launch(fake, db, folder=tmp_path)
    second = None
    try:
        await connected(fake, 1)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        board = await tap(fake, GUILD_A, board, plan()[0])
        second = launch(fake, db, folder=tmp_path)  # a rolling restart: a new process holds the same shard a while
        await connected(fake, 2)
        custom_id = next(
            b["custom_id"] for row in board["components"] for b in row["components"] if b["label"] == plan()[1]
        )
        payload = fake.press(GUILD_A, PLAYER, board, custom_id)
        await fake.send(payload, shards=list(fake.shards))  # delivered to both processes
        await fake.tried(payload, 2)  # both processes answered it (one of them refused with 40060)
    finally:
        await stop(first)
        if second is not None:
            await stop(second)
    assert stored(db) == [("playing", moves_after(2), 2)]  # the press was applied once, not twice
    assert len(fake.answers[payload["token"]].requests) >= 1


async def test_the_cluster_script_starts_a_process_per_shard_range_and_stops_them_all(fake, tmp_path):
    env = {
        **os.environ,
        "DISCORD_TOKEN": "fake-token-for-the-local-test-server",
        "DISCORD_API_BASE": fake.api_base,
        "PYRAMIDE_DB": str(tmp_path / "pyramide.db"),
        "DATABASE_URL": "",
        "METRICS_PORT": "",
        "LOG_FILE": "",
        "CLUSTER_LOG_DIR": str(tmp_path / "logs"),
    }
    script = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "cluster.sh"), "2", "4"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        await connected(fake, 4)
        assert sorted((s.shard_id, s.shard_count) for s in fake.shards) == [(0, 4), (1, 4), (2, 4), (3, 4)]
        script.send_signal(signal.SIGTERM)
        out, _ = await asyncio.to_thread(script.communicate, timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(script.pid, signal.SIGKILL)
    assert script.returncode == 0
    assert "shards 0,1 of 4" in out.decode() and "shards 2,3 of 4" in out.decode()
    await fake.wait_for_shards(0)
    assert "stopped" in (tmp_path / "logs" / "shard-2.log").read_text()  # a clean stop, not a kill


def test_a_wrong_setting_stops_the_bot_with_one_line_naming_it(tmp_path):
    """bot.py prints a wrong setting's refusal as one line and exits 2, before anything is opened, without the
    password of the URL it names (the refusal of each variable's wrong values: test_settings.py)."""
    env = {
        **os.environ,
        "DISCORD_TOKEN": "fake",
        "PYRAMIDE_DB": str(tmp_path / "p.db"),
        "DATABASE_URL": "postgresql://bot:hunter2@127.0.0.1:port/db",
        "SHARD_COUNT": "",
        "SHARD_IDS": "",
        "DISCORD_API_BASE": "",
        "METRICS_PORT": "",
        "METRICS_HOST": "",
        "DEV_GUILD_ID": "",
        "GUILD_DATA_GRACE_DAYS": "",
        "LOG_LEVEL": "",
        "LOG_FILE": "",
        "DAILY_SECRET": "",
        "PYRAMIDE_PURE_SOLVER": "",
        "ACTIVITY_PORT": "",
        "ACTIVITY_HOST": "",
        "DISCORD_CLIENT_SECRET": "",
    }
    result = subprocess.run(
        [sys.executable, str(ROOT / "bot.py")], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and result.stderr.startswith("Cannot start: DATABASE_URL")
    assert "not a valid PostgreSQL URL" in result.stderr and not (tmp_path / "p.db").exists()
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr  # one line
    assert "hunter2" not in result.stderr  # a password is never repeated


def test_the_start_script_refuses_a_bad_metrics_port_naming_it(tmp_path):
    """``METRICS_PORT=abc bash scripts/bot.sh`` with a token set: exit 2 and one line naming the variable,
    before anything is opened or connected."""
    env = {**os.environ, "DISCORD_TOKEN": "fake", "PYRAMIDE_DB": str(tmp_path / "p.db"), "METRICS_PORT": "abc"}
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "bot.sh")], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "Cannot start: METRICS_PORT must be a port number from 1 to 65535 (or empty), not 'abc'"
    ]
    assert not (tmp_path / "p.db").exists()  # nothing was opened


@pytest.mark.new_application
async def test_the_process_uploads_the_card_emojis_once_and_its_boards_show_them(fake, tmp_path):
    """A first start uploads the whole set, the boards' buttons carry emojis the application has (the fake
    refuses any other), and a restart uploads nothing. On SQLite alone: a restart uploads nothing because
    the application's listing has the set's names (an emoji's name carries its image's hash), not because
    of what the database kept (what a restart reads from the database's notes is tested on both in
    test_command_sync)."""
    from pyramide_discord.emojis import emoji_images

    expected = len(emoji_images())
    db = tmp_path / "pyramide.db"
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        await until(lambda: len(fake.app_emojis.emojis) == expected, timeout=30)  # uploaded in the background
        assert sorted(fake.app_emojis.uploads) == sorted(emoji_images())
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        board = await tap(fake, GUILD_A, board, plan()[0])
        cards = [b for row in board["components"] for b in row["components"] if "emoji" in b]
        assert len(cards) >= 3 and all(int(b["emoji"]["id"]) in fake.app_emojis.emojis for b in cards)
    finally:
        await stop(bot)
    await fake.wait_for_shards(0)
    bot = launch(fake, db, folder=tmp_path)
    try:
        await connected(fake, 1)
        board = await tap(fake, GUILD_A, board, plan()[1])
        cards = [b for row in board["components"] for b in row["components"] if "emoji" in b]
        assert cards and all(int(b["emoji"]["id"]) in fake.app_emojis.emojis for b in cards)
    finally:
        log = await stop(bot)
    assert len(fake.app_emojis.uploads) == expected and not fake.app_emojis.deletions
    assert f"card emojis: all {expected} unchanged" in log
    assert fake.unknown == [], fake.unknown


BOT_DM, GROUP_DM, FOREIGN = 710_000_000_000_000_101, 710_000_000_000_000_102, 710_000_000_000_000_103
GUILD_WITHOUT_BOT = (1 << 40) + (2 << 22)


def outside(fake: FakeDiscord) -> None:
    """The places reached through the player's own install: the bot's DM, a group DM, a server without it."""
    fake.dms.add(BOT_DM)
    fake.group_dms.add(GROUP_DM)
    fake.foreign[FOREIGN] = GUILD_WITHOUT_BOT


PLACES = {BOT_DM: 0, GROUP_DM: 0, FOREIGN: GUILD_WITHOUT_BOT}  # each place's channel: the server its games count for


async def test_a_game_is_won_in_each_place_outside_the_bots_servers_against_the_process(fake, tmp_path):
    """Through a player's own install, in the bot's DM, a group DM and a server without the bot, one after the
    other in one process: every answer is the interaction's own, and the bot token never reaches a channel the
    bot is not in (the fake refuses and counts such requests); each place's game is stored with the server it
    counts for (none outside servers), which the in-process tests of the places (test_places) check on both
    databases."""
    place_db = tmp_path / "pyramide.db"
    outside(fake)
    bot = launch(fake, place_db, folder=tmp_path)
    try:
        await connected(fake, 1)
        for channel in PLACES:
            board = await deal(fake, 0, channel, kings_and_pairs().code)
            for label in plan():
                board = await tap(fake, 0, board, label)
            assert "You won!" in board["content"], channel
    finally:
        await stop(bot)
    assert fake.unreachable == [] and fake.unknown == [], (fake.unreachable, fake.unknown)
    won = rows(place_db, "SELECT channel_id, status, guild_id FROM games")
    assert sorted((int(c), s, int(g)) for c, s, g in won) == sorted((c, "won", g) for c, g in PLACES.items())


def daily_play(fake: FakeDiscord, channel: int) -> dict:
    """``/pyramide daily play`` in ``channel`` (a subcommand of a group)."""
    payload = fake.command(0, channel, PLAYER, "play")
    payload["data"]["options"] = [{"name": "daily", "type": 2, "options": payload["data"]["options"]}]
    return payload


async def test_the_daily_is_played_in_place_and_counted_once_across_places_against_the_process(fake, tmp_path):
    """The daily dealt as the answer in the bot's DM (its code hidden), refused in the other places while it
    waits, counted once when given up (on both databases in test_places), and the player's own figures outside
    servers read in a group DM."""
    place_db = tmp_path / "pyramide.db"
    outside(fake)
    bot = launch(fake, place_db, folder=tmp_path)
    try:
        await connected(fake, 1)
        payload = daily_play(fake, BOT_DM)
        await fake.answered_after(payload)
        requests = fake.answers[payload["token"]].requests
        await until(lambda: any(r["method"] == "POST" and "/webhooks/" in r["path"] for r in requests))  # the board
        board = next(m for m in reversed(fake.messages.values()) if m["channel_id"] == str(BOT_DM) and m["components"])
        assert "Daily #" in board["content"] and "PY1-" not in board["content"]
        for channel in (GROUP_DM, FOREIGN):
            again = daily_play(fake, channel)
            await fake.answered_after(again)
            await until(lambda again=again: "waiting for you" in answered_words(fake, again))
            assert "<#" not in answered_words(fake, again) and shown(fake, again)["flags"] & 64
        ended = fake.command(0, BOT_DM, PLAYER, "end")
        await fake.answered_after(ended)
        await until(lambda: bool(rows(place_db, "SELECT status FROM daily_attempts WHERE status IS NOT NULL")))
        stats = fake.command(0, GROUP_DM, PLAYER, "stats")
        await fake.answered_after(stats)
        await until(lambda: bool(shown(fake, stats)["embeds"]))
        embed = shown(fake, stats)["embeds"][0]
        assert "outside servers" in embed["title"]
        assert next(f["value"] for f in embed["fields"] if f["name"] == "Played") == "1"
        last = daily_play(fake, FOREIGN)  # finished: never dealt again, in any place
        await fake.answered_after(last)
        await until(lambda: "played daily" in answered_words(fake, last))
    finally:
        await stop(bot)
    attempts = rows(place_db, "SELECT player_id, guild_id, status FROM daily_attempts")
    assert [(p, g) for p, g, _ in attempts] == [(PLAYER, 0)] and attempts[0][2] is not None  # one, finished
    assert rows(place_db, "SELECT COUNT(*) FROM games WHERE daily IS NOT NULL") == [(1,)]
    assert fake.unreachable == [] and fake.unknown == [], (fake.unreachable, fake.unknown)


async def test_an_old_board_and_forced_private_answers_outside_servers_against_the_process(fake, tmp_path):
    """In a group DM a press on a board the bot could not take the buttons off is answered privately as out of
    date; in a server without the bot, a member without Use External Apps gets private boards that still play.
    On SQLite alone: what it proves is how Discord is answered; the games of these places are stored on both
    databases by the test above."""
    place_db = tmp_path / "pyramide.db"
    outside(fake)
    fake.without_external_apps.add(PLAYER)
    bot = launch(fake, place_db, folder=tmp_path)
    try:
        await connected(fake, 1)
        old = await deal(fake, 0, GROUP_DM, kings_and_pairs().code)
        draw = fake.command(0, GROUP_DM, PLAYER, "draw")
        await fake.answered_after(draw)
        await until(lambda: bool(shown(fake, draw)["components"]))  # a fresh board, the command's answer
        assert shown(fake, draw)["id"] != old["id"]
        custom_id = next(b["custom_id"] for row in old["components"] for b in row["components"] if "Draw" in b["label"])
        press = fake.press(0, PLAYER, old, custom_id)
        await fake.answered_after(press)
        assert "out of date" in answered_words(fake, press) and shown(fake, press)["flags"] & 64
        board = await deal(fake, 0, FOREIGN, kings_and_pairs().code)
        assert board["flags"] & 64  # Discord made the board ephemeral
        board = await tap(fake, 0, board, plan()[0])  # and its buttons still play
        assert "removed" in board["content"] and board["flags"] & 64
    finally:
        await stop(bot)
    assert sorted(rows(place_db, "SELECT guild_id, moves FROM games")) == [(0, 1), (GUILD_WITHOUT_BOT, 1)]
    assert fake.unreachable == [] and fake.unknown == [], (fake.unreachable, fake.unknown)


# ------------------------------------------------------------------------- a stalled PostgreSQL
STALLED_CHANNELS = tuple(720_000_000_000_000_000 + n for n in range(8))
STALL_SECONDS = 5.0


def final_words(fake: FakeDiscord, payload: dict) -> tuple[bool, str] | None:
    """A press's last answer, once it came: whether it drew a board, and all its words (None: only a
    deferral so far)."""
    requests = fake.answers.get(payload["token"], Answer()).requests
    if not requests or all(r["body"].get("type") == 6 for r in requests):
        return None
    board = any(r["files"] or "components" in (r["body"].get("data") or r["body"]) for r in requests)
    return board, answered_words(fake, payload)


async def test_presses_while_postgresql_stalls_are_never_answered_against_what_is_stored(postgres_url, tmp_path):
    """The PostgreSQL server frozen (SIGSTOP of all its processes, as a network stall would) while eight
    players press, thawed a few seconds later. A press answered "nothing was played" really stored
    nothing; a press whose board shows its move has it stored; one told "not sure it was saved" is
    shown the truth by its next press; and play goes on."""
    fake = await FakeDiscord([Guild(GUILD_A, STALLED_CHANNELS)]).start()
    bot = launch(fake, postgres_url, folder=tmp_path)
    frozen: Frozen | None = None
    try:
        await connected(fake, 1)
        labels = plan()
        boards = {}
        for n, channel in enumerate(STALLED_CHANNELS):
            payload = fake.command(GUILD_A, channel, PLAYER + n, "new", code=kings_and_pairs().code)
            await fake.answered_after(payload)
            boards[channel] = fake.messages[fake.original[payload["token"]]]
            board = boards[channel]
            custom_id = next(
                b["custom_id"] for r in board["components"] for b in r["components"] if b["label"] == labels[0]
            )
            await fake.answered_after(fake.press(GUILD_A, PLAYER + n, board, custom_id))
            boards[channel] = fake.messages[int(board["id"])]

        def press(n: int, label: str) -> dict:
            board = boards[STALLED_CHANNELS[n]]
            custom_id = next(
                b["custom_id"] for r in board["components"] for b in r["components"] if b["label"] == label
            )
            return fake.press(GUILD_A, PLAYER + n, board, custom_id)

        pids = server_processes(postgres_url)
        if not pids:
            pytest.skip("the PostgreSQL server is not one this test can signal")
        frozen = Frozen(pids)
        presses = []
        for n in range(len(STALLED_CHANNELS)):  # spread over the stall: some find a connection, some wait for one
            presses.append((n, press(n, labels[1])))
            await fake.send(presses[-1][1])
            await asyncio.sleep(STALL_SECONDS / len(STALLED_CHANNELS) / 2)
        await asyncio.sleep(STALL_SECONDS / 2)
        frozen.thaw()
        await until(lambda: all(final_words(fake, p) is not None for _, p in presses), timeout=40)

        stored_requests = {
            int(r[0]) for r in fetch(postgres_url, "SELECT request FROM actions WHERE request IS NOT NULL")
        }
        contradictions, unsure = [], []
        for n, payload in presses:
            board, words = final_words(fake, payload)
            played = int(payload["id"]) in stored_requests
            if "nothing was played" in words and played:
                contradictions.append(f"player {n}: told nothing was played, yet it is stored")
            elif "Not sure" in words:
                unsure.append((n, played))
            elif "nothing was played" not in words and (not board or not played):
                contradictions.append(f"player {n}: {board=}, {played=}: {words[:120]}")
            if board and played:  # the board shows the move
                assert labels[1] in fake.messages[int(boards[STALLED_CHANNELS[n]]["id"])]["content"]
        assert contradictions == []
        for n, played in unsure:  # the next press shows the truth
            payload = press(n, labels[1])
            await fake.send(payload)
            await until(lambda p=payload: final_words(fake, p) is not None)
            _, words = final_words(fake, payload)
            assert ("brought up to date" in words) == played, words
        told_nothing = {n for n, p in presses if "nothing was played" in final_words(fake, p)[1]}
        actions = fetch(
            postgres_url,
            "SELECT g.channel_id, COUNT(a.seq) FROM games g LEFT JOIN actions a ON a.game_id = g.id"
            " WHERE g.status = 'playing' GROUP BY g.channel_id",
        )
        expected = {channel: 1 if n in told_nothing else 2 for n, channel in enumerate(STALLED_CHANNELS)}
        assert {int(c): int(k) for c, k in actions} == expected
    finally:
        if frozen is not None:
            frozen.thaw()
        log = await stop(bot)
        await fake.stop()
    assert "Traceback" not in log, log[-3000:]
    assert log.count("did not answer for") <= 2, log[-3000:]  # one warning per outage, with its length
