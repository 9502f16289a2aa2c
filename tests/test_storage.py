"""Storage and process faults on real SQLite files: bad files, locks held by another process,
unreadable game logs, failed writes, memory that must not grow, and a database that must not either."""

import asyncio
import itertools
import logging
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import asyncpg
import pytest

from pyramide import STOCK, Game
from pyramide_service.manager import GameManager, StaleBoard
from pyramide_service.solving import SolverService
from pyramide_service.storage import (
    BROKEN,
    ENDED,
    WON,
    GameRecord,
    GameStatus,
    MoveConflict,
    StorageError,
    StorageUnavailable,
    from_url,
)
from pyramide_service.storage.schema import MOVES_VERSION
from pyramide_service.storage.sqlite import SCHEMA_VERSION, SQLiteStorage
from tests.support.backends import raw, twin
from tests.support.deals import kings_and_pairs
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, Harness, labels, start
from tests.support.manager_turns import deal, end, play

pytestmark = pytest.mark.backends("sqlite", "postgresql")

ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------- opening
def garbage(path: Path) -> str:
    path.write_bytes(b"this is not a database, just some text " * 200)
    return str(path)


def newer(path: Path) -> str:
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    return str(path)


def damaged(path: Path) -> str:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x TEXT)")
        db.executemany("INSERT INTO t VALUES (?)", [("x" * 500,) for _ in range(400)])
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 5 : page * 5 + 200] = b"\xff" * 200  # a table page in the middle of the file
    path.write_bytes(bytes(data))
    return str(path)


def read_only(path: Path) -> str:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 0")
    return f"file:{path}?mode=ro"


def missing_folder(path: Path) -> str:
    return str(path.parent / "no-such-folder" / "pyramide.db")


def a_folder(path: Path) -> str:
    path.mkdir()
    return str(path)


CASES = [
    (garbage, "not a SQLite database"),
    (newer, "newer than this bot"),
    (damaged, "damaged"),
    (read_only, "read-only"),
    (missing_folder, "cannot open"),
    (a_folder, "cannot open"),
]


@pytest.mark.parametrize(("make", "words"), CASES, ids=[c[0].__name__ for c in CASES])
async def test_a_database_that_cannot_be_used_is_named_with_its_problem(tmp_path, make, words):
    path = make(tmp_path / "pyramide.db")
    store = SQLiteStorage(path)
    with pytest.raises(StorageError) as info:
        await store.open()
    assert words in str(info.value) and "pyramide.db" in str(info.value)
    assert store._db is None and store._reader is None  # nothing left running


@pytest.mark.parametrize(("make", "words"), CASES[:4], ids=[c[0].__name__ for c in CASES[:4]])
def test_the_bot_on_a_bad_database_exits_at_once_with_one_line(tmp_path, make, words):
    path = make(tmp_path / "pyramide.db")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DISCORD_TOKEN": "x.y.z", "PYRAMIDE_DB": path}
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, str(ROOT / "bot.py")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert time.monotonic() - started < 10
    assert result.returncode == 3
    assert result.stderr.count("\n") == 1 and words in result.stderr and "Traceback" not in result.stderr


# ---------------------------------------------------------------------- locks
class Holder:
    """Another process's connection holding the write lock of the database for a while."""

    def __init__(self, path: str, seconds: float) -> None:
        self.path, self.seconds = path, seconds
        self.locked = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        self.locked.set()
        time.sleep(self.seconds)
        db.execute("ROLLBACK")
        db.close()

    def __enter__(self) -> "Holder":
        self.thread.start()
        self.locked.wait()
        return self

    def __exit__(self, *exc: object) -> None:
        self.thread.join()


async def manager_waits_for_the_writer(storage) -> None:
    """Until a write is queued for the writer's thread (the group committer has work), not a fixed time."""
    for _ in range(10_000):
        if storage._committer is not None and not storage._committer.done():
            return
        await asyncio.sleep(0)
    raise AssertionError("the write never reached the writer")


@pytest.mark.backends("sqlite")
async def test_a_read_cancelled_while_it_begins_leaves_the_next_reads_working(storage):
    """A read of several statements cancelled while its BEGIN is in the reader's thread (a page closed, a
    task stopped at shutdown): its snapshot is ended all the same, and every later read still answers."""
    record = await storage.create_game(
        GameRecord(id=0, guild_id=GUILD_ID, channel_id=CHANNEL_ID, owner_id=OWNER, code="PY1-N-AAAAAAS", rules="N")
    )
    for _ in range(20):
        reading = asyncio.ensure_future(storage.game(record.id))
        await asyncio.sleep(0)  # (its BEGIN handed to the reader's thread)
        reading.cancel()
        await asyncio.gather(reading, return_exceptions=True)
        found = await storage.game(record.id)
        assert found is not None and found.id == record.id


@pytest.mark.backends("sqlite")
async def test_reads_do_not_wait_behind_a_write_waiting_for_a_lock(storage):
    manager = GameManager(storage)
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    with Holder(storage.path, 4.0):
        write = asyncio.ensure_future(play(manager, 5, lambda g: g.tap(STOCK)))
        await manager_waits_for_the_writer(storage)
        assert not write.done()  # the write waits for the other process
        record = await storage.game(live.record.id)  # a read goes by
        settings = await storage.settings(1)
        assert record.moves == 0 and settings.error_help
        assert not write.done()
        with pytest.raises(StorageUnavailable):  # and the write gives up well before Discord's 3 s
            await write
    assert (await storage.game(live.record.id)).actions == ()  # nothing half-written


@pytest.mark.backends("sqlite")
async def test_a_press_while_another_process_locks_the_database_is_told_busy_and_loses_nothing(harness):
    await start(harness, kings_and_pairs().code)
    with Holder(harness.storage.path, 3.0):
        sent = await harness.press(harness.board_button("K♠"))
    assert "storage is busy" in sent[-1].content and sent[-1].ephemeral
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 0  # the move was not answered, so it is not kept
    sent = await harness.press(harness.board_button("K♠"))
    assert "K♠ removed" in sent[-1].content


async def test_a_press_while_another_process_holds_the_games_row_in_postgresql_is_told_busy(postgres_url, tmp_path):
    """On PostgreSQL the lock is a row's: another process's transaction holding the game's row longer than
    a press may wait. The press is told the storage is busy before Discord's 3 s, nothing is half-stored,
    and the next press plays."""
    h = await Harness(postgres_url).start()
    try:
        await start(h, kings_and_pairs().code)
        record = await h.storage.live_game(CHANNEL_ID)
        other = await asyncpg.connect(postgres_url)
        try:
            holding = other.transaction()
            await holding.start()
            await other.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE", record.id)
            started = time.monotonic()
            sent = await h.press(h.board_button("K♠"))
            assert time.monotonic() - started < 3.0
            await holding.rollback()
        finally:
            await other.close()
        assert "storage is busy" in sent[-1].content and sent[-1].ephemeral
        assert await raw(h.storage, "SELECT COUNT(*) FROM actions") == [(0,)]
        sent = await h.press(h.board_button("K♠"))
        assert "K♠ removed" in sent[-1].content
        assert (await h.storage.live_game(CHANNEL_ID)).moves == 1
    finally:
        await h.stop()


async def test_postgresql_connections_cut_by_the_server_are_replaced_without_losing_a_move(postgres_url):
    """A database restart or failover cuts every connection: the next press is played on a new connection,
    neither an error nor a "busy" for the player, and every answered move is kept."""
    h = await Harness(postgres_url).start()
    try:
        await start(h, kings_and_pairs().code)
        sent = await h.press(h.board_button("K♠"))
        assert "K♠ removed" in sent[-1].content
        for _ in range(5):
            admin = await asyncpg.connect(postgres_url)
            try:
                cut = await admin.fetchval(
                    "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid != pg_backend_pid()"
                )
            finally:
                await admin.close()
            assert cut >= 1
            sent = await h.command("draw")
            assert any(one.png for one in sent), [one.content for one in sent]  # the board, redrawn
            assert not any(one.ephemeral for one in sent), [one.content for one in sent]  # no "busy", no error
        h.bot.manager.forget(CHANNEL_ID)
        live = await h.bot.manager.live(CHANNEL_ID)
        assert live.game.moves == 6  # the king and five draws
    finally:
        await h.stop()


async def test_a_read_only_postgresql_database_is_refused_at_start_not_at_the_first_move(postgres_url):
    """A standby, or a user without write rights: the write probe at start names it."""
    from pyramide_service.storage.postgres import PostgresStorage

    first = PostgresStorage(postgres_url)
    await first.open()  # the tables exist
    await first.close()
    admin = await asyncpg.connect(postgres_url)
    try:
        name = postgres_url.rpartition("/")[2]
        await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    finally:
        await admin.close()
    store = PostgresStorage(postgres_url)
    with pytest.raises(StorageError, match="read-only"):
        await store.open()
    await store.close()


def test_the_bot_names_a_missing_postgresql_database_and_never_its_password(postgres_server, tmp_path):
    missing = postgres_server.rpartition("/")[0].replace("postgres@", "postgres:hunter2@") + "/no_such_db"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DISCORD_TOKEN": "x.y.z", "DATABASE_URL": missing}
    result = subprocess.run(
        [sys.executable, str(ROOT / "bot.py")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert result.returncode == 3
    assert "no_such_db does not exist" in result.stderr and "Traceback" not in result.stderr
    assert "hunter2" not in result.stderr and "postgres:***@" in result.stderr


# ---------------------------------------------------------------- broken games
@pytest.mark.parametrize("stored", ["1.5", "null", "{", '"nowhere"', "true"])
async def test_a_game_that_cannot_be_replayed_is_closed_and_frees_its_channel(harness, stored, caplog):
    await start(harness, "PY1-N-AAAAAAS")
    record = await harness.storage.live_game(CHANNEL_ID)
    await raw(harness.storage, "INSERT INTO actions (game_id, seq, action, at) VALUES (?, 0, ?, 0)", record.id, stored)
    harness.bot.manager.forget(CHANNEL_ID)
    caplog.set_level(logging.ERROR)
    sent = await harness.command("draw")
    assert "could not be restored" in sent[-1].content and sent[-1].ephemeral
    sent = await harness.command("end")
    assert "no game in this channel" in sent[-1].content
    sent = await harness.command("new", code="PY1-N-AAAAAAA")
    assert sent[0].png is not None
    closed = await harness.storage.game(record.id)
    assert closed.status == BROKEN and closed.finished_at is not None
    rows = await harness.storage.results(GUILD_ID, OWNER)
    assert [r.status for r in rows] == [BROKEN]  # played, not won
    assert sum(f"game {record.id} " in r.getMessage() for r in caplog.records) == 1


async def test_a_failed_finish_write_leaves_the_win_to_be_recorded_on_the_next_load(storage, monkeypatch):
    manager = GameManager(storage)
    game = kings_and_pairs()
    await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=game)
    live = await manager.live(5)
    while live.game.removed < 27:
        move = next(m for m in live.game.legal_moves() if m.kind in ("pair", "king"))
        await play(manager, 5, lambda g, m=move: g.play(m))
    last = next(m for m in live.game.legal_moves() if m.kind in ("pair", "king"))

    async def full(record, **asked):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(storage, "finish_game", full)
    with pytest.raises(sqlite3.OperationalError):
        await play(manager, 5, lambda g: g.play(last))
    assert live.record.status == "playing" and manager.live_count == 0  # memory did not run ahead
    monkeypatch.undo()
    assert await manager.live(5) is None  # the stored winning move finishes the game on load
    rows = await storage.results(1, 9)
    assert [(r.status, r.score) for r in rows] == [(WON, 280)]


# ---------------------------------------------------------------------- memory
async def test_games_past_the_memory_cap_leave_no_engines_or_locks_behind(storage):
    """Games dealt side by side past the cap (the oldest engines dropped, then loaded again to be played
    and ended) leave nothing in memory. A leak is at least one engine or lock a game, so two and a half
    times a small cap shows it as surely as the 3,000 games one after another this test used to play,
    and it now goes through the dropping and reloading too."""
    manager = GameManager(storage, max_live=10)
    channels = range(25)
    for channel in channels:
        await deal(manager, guild_id=1, channel_id=channel, owner_id=9, game=Game.from_number(channel))
    assert manager.live_count == 10 and manager.peek(0) is None  # the first fifteen were dropped
    for channel in channels:
        await play(manager, channel, lambda g: g.tap(STOCK))
        await end(manager, channel)
    assert manager.live_count == 0 and manager.lock_count == 0


async def test_the_number_of_engines_in_memory_has_a_real_cap(storage):
    manager = GameManager(storage, max_live=10)
    for channel in range(50):
        await deal(manager, guild_id=1, channel_id=channel, owner_id=9, game=Game.from_number(channel))
    assert manager.live_count == 10
    assert set(manager._live) == set(range(40, 50))  # the least recently used went first
    again = await manager.live(0)  # and comes back from storage when asked
    assert again is not None and again.game.code == Game.from_number(0).code


async def test_many_spellings_of_a_card_do_not_grow_memory():
    from pyramide.cards import Card, _known

    for spaces in range(2000):
        assert Card.parse(" " * spaces + "K♠") == Card.parse("KS")
    assert _known.cache_info().currsize <= 256


# ------------------------------------------------------------------------ size
async def test_a_finished_games_actions_are_packed_into_one_value(storage):
    manager = GameManager(storage)
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    for action in (lambda g: g.tap(STOCK), lambda g: g.tap(26), lambda g: g.undo(), lambda g: g.tap(21)):
        await play(manager, 5, action)
    actions = live.record.actions
    await end(manager, 5)
    assert await raw(storage, "SELECT COUNT(*) FROM actions") == [(0,)]
    [(size,)] = await raw(storage, "SELECT length(log) FROM games WHERE id = ?", live.record.id)
    assert size == 2 + (5 * len(actions) + 7) // 8  # 5 bits an action
    stored = await storage.game(live.record.id)
    assert stored.actions == actions
    assert Game.replay(stored.code, stored.actions).state() == live.game.state()


async def test_every_status_read_back_is_a_game_status(storage):
    manager = GameManager(storage)
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    assert (await storage.live_game(5)).status is GameStatus.PLAYING
    await end(manager, 5)
    stored = await storage.game(live.record.id)
    assert stored.status is ENDED and f"daily.result.{stored.status}" == "daily.result.ended"
    [row] = await storage.results(1, 9)
    assert row.status is GameStatus.ENDED


def test_packed_logs_round_trip_every_action():
    from hypothesis import given
    from hypothesis import strategies as st

    from pyramide_service.storage.codec import pack_log, unpack_log

    action = st.one_of(st.integers(0, 27), st.sampled_from(["waste", "under", "stock", "undo"]))

    @given(st.lists(action, max_size=400))
    def round_trip(actions):
        assert unpack_log(pack_log(actions)) == actions

    round_trip()
    assert pack_log(["nowhere"]) is None and pack_log([28]) is None
    with pytest.raises(ValueError):
        unpack_log(b"\x00\x05\x00")


async def test_a_finished_board_still_redraws_from_its_packed_log(harness):
    await start(harness, kings_and_pairs().code)
    board_id = int(harness.board()["id"])
    draw = harness.board_button("Draw (23)")
    await harness.press(harness.board_button("K♠"), board_id)
    await harness.press(harness.board_button("End"), board_id)
    sent = await harness.press(draw, board_id)  # an old render of the finished game's message
    assert "Game ended: 10 points" in sent[-1].content
    assert labels(harness.hub.messages[board_id]) == [
        "New game",
        "Same deal again",
        "Show a winning line",
        "Replay my game",
    ]


async def test_a_new_database_gives_back_free_pages(tmp_path):
    """Forty games of twenty moves free six pages when their moves are packed (two hundred freed 34): any
    page freed and not given back fails the test, so the smaller file proves the same."""
    store = SQLiteStorage(tmp_path / "small.db")
    await store.open()
    try:
        assert await raw(store, "PRAGMA auto_vacuum") == [(2,)]  # incremental
        manager = GameManager(store)
        for channel in range(40):
            await deal(manager, guild_id=1, channel_id=channel, owner_id=9, game=Game.from_number(channel))
            for _ in range(20):
                await play(manager, channel, lambda g: g.tap(STOCK))
        await store.reset_stats(1, None)
        for channel in range(40):
            await end(manager, channel)
        await store.reset_stats(1, None)
        [(before,)] = await raw(store, "PRAGMA freelist_count")
        await store.compact(10_000)
        [(after,)] = await raw(store, "PRAGMA freelist_count")
        assert before > 0 and after == 0
    finally:
        await store.close()


# ------------------------------------------------------------------------ logs
def test_interaction_tokens_and_voice_warnings_never_reach_the_log():
    from pyramide_bot.logs import RedactTokens

    def passes(message, *args):
        record = logging.LogRecord("discord.webhook", logging.DEBUG, __file__, 1, message, args, None)
        return RedactTokens().filter(record), record.getMessage()

    kept, text = passes("POST https://discord.com/api/v10/webhooks/123456789/aW50ZXJhY3Rpb246c2VjcmV0.x-y_z/messages")
    assert kept and "aW50ZXJhY3Rpb246c2VjcmV0" not in text and "/webhooks/123456789/<token>" in text
    kept, text = passes("payload %s", {"id": "1", "token": "aW50ZXJhY3Rpb246c2VjcmV0", "type": 3})
    assert kept and "aW50ZXJhY3Rpb246c2VjcmV0" not in text
    assert passes("PyNaCl is not installed, voice will NOT be supported")[0] is False
    assert passes("davey is not installed, voice will NOT be supported")[0] is False
    assert passes("logged in as Pyramide")[0] is True


async def test_unknown_mention_commands_and_a_strangers_sync_are_ignored_quietly(harness, caplog):
    from tests.support.harness import STRANGER

    harness.bot.owner_id = OWNER
    caplog.set_level(logging.INFO)
    await harness.say(f"<@{harness.bot.user.id}> help")
    await harness.say(f"<@{harness.bot.user.id}> sync", user=STRANGER)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


# --------------------------------------------------------------------- backups
@pytest.mark.backends("sqlite")  # PostgreSQL is backed up with its own tools (pg_dump)
async def test_a_backup_taken_while_the_bot_writes_restores_every_finished_game(storage, tmp_path):
    import shutil

    manager = GameManager(storage)
    for channel in range(5):
        await deal(manager, guild_id=1, channel_id=channel, owner_id=9, game=Game.from_number(channel))
        await play(manager, channel, lambda g: g.tap(STOCK))
        await end(manager, channel)
    await deal(manager, guild_id=1, channel_id=99, owner_id=9, game=Game.from_number(99))
    await play(manager, 99, lambda g: g.tap(STOCK))  # a game in play, its action in the WAL
    copy = str(tmp_path / "copy.db")
    command = [sys.executable, "-m", "pyramide_service.storage", "backup", copy, "--database", storage.path]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert result.returncode == 0 and "backed up" in result.stdout, result.stderr
    again = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)
    assert again.returncode == 1 and "exists already" in again.stderr  # never overwrites a backup
    # Restore: the bot stopped, the backup copied over the database (its -wal and -shm removed).
    restored = tmp_path / "restored.db"
    shutil.copy(tmp_path / "copy.db", restored)
    store = SQLiteStorage(restored)
    await store.open()
    try:
        assert len(await store.results(1, 9)) == 5
        live = await store.live_game(99)
        assert live is not None and live.actions == (STOCK,)
    finally:
        await store.close()


async def test_a_migration_makes_a_backup_first(tmp_path):
    from pyramide_service.storage import schema

    old = tmp_path / "pyramide.db"
    with sqlite3.connect(old) as db:
        db.executescript(";\n".join(schema.migration(1, "sqlite")) + ";\nPRAGMA user_version = 1;")
        db.execute(
            "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, status, created_at) "
            "VALUES (1, 5, 9, 'PY1-N-AAAAAAS', 'N', 'won', 1)"
        )
    store = SQLiteStorage(old)
    await store.open()
    await store.close()
    backups = list(tmp_path.glob("pyramide.db.schema1-*.bak"))
    assert len(backups) == 1
    with sqlite3.connect(backups[0]) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1  # the database as it was
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    store = SQLiteStorage(old)
    await store.open()  # already migrated: no second backup
    await store.close()
    assert len(list(tmp_path.glob("pyramide.db.schema*.bak"))) == 1


# ---------------------------------------------------------------------- stopping
def test_sigterm_stops_the_real_process_cleanly_and_closes_storage(tmp_path):
    import http.server
    import os
    import signal
    import socketserver

    asked = threading.Event()

    class SlowDiscord(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # the login request: answered late, as by a congested API
            asked.set()
            time.sleep(20)

        def log_message(self, *args):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), SlowDiscord)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    (tmp_path / "sitecustomize.py").write_text(
        f"import discord.http\ndiscord.http.Route.BASE = 'http://127.0.0.1:{port}/api/v10'\n"
    )
    db = tmp_path / "pyramide.db"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "DISCORD_TOKEN": "x.y.z",
        "PYRAMIDE_DB": str(db),
        "PYTHONPATH": str(tmp_path),
    }
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bot.py")], env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert asked.wait(30), "the bot never reached the API"
        os.kill(process.pid, signal.SIGTERM)
        _, err = process.communicate(timeout=15)
    finally:
        process.kill()
        server.shutdown()
    text = err.decode()
    assert process.returncode == 0, text
    assert "Traceback" not in text and "stopped" in text
    assert db.exists() and not Path(f"{db}-wal").exists()  # storage closed: the WAL checkpointed away


async def test_a_stop_finishes_the_presses_in_flight_first(harness):
    await start(harness, kings_and_pairs().code)
    known = asyncio.all_tasks()
    async with harness.bot.manager.turn(CHANNEL_ID):  # a press waits for the channel
        payload = harness.press_payload(harness.board_button("K♠"), harness.board())
        harness.fire(payload, int(harness.board()["id"]))
        await harness.queued(CHANNEL_ID, 2)  # this turn, and the press waiting for it
        assert harness.bot.in_flight == 1
        stopping = asyncio.ensure_future(harness.bot.drain(10))
        for _ in range(20):  # the drain has every chance to end, and does not while the press waits
            await asyncio.sleep(0)
        assert not stopping.done()
    assert await stopping  # drained once the press was stored and answered
    await harness.settle(known)
    assert "K♠ removed" in harness.answers(payload["token"])[-1].content
    assert (await harness.storage.live_game(CHANNEL_ID)).moves == 1


# ---------------------------------------------------------------- group commit
async def test_moves_of_many_channels_pressed_together_are_all_stored(database_url):
    """Presses arriving together share one commit; every one of them is stored and survives a reopen."""
    storage = from_url(database_url)
    await storage.open()
    manager = GameManager(storage)
    for channel in range(1, 13):
        await deal(manager, guild_id=1, channel_id=channel, owner_id=9, game=Game.from_number(channel))
    await asyncio.gather(*(play(manager, channel, lambda g: g.tap(STOCK)) for channel in range(1, 13)))
    await asyncio.gather(*(play(manager, channel, lambda g: g.tap(STOCK)) for channel in range(1, 13)))
    await storage.close()
    reopened = twin(storage)
    await reopened.open()
    try:
        again = GameManager(reopened)
        for channel in range(1, 13):
            live = await again.live(channel)
            assert live is not None and live.game.moves == 2 and len(live.game.stock) == 21
    finally:
        await reopened.close()


@pytest.mark.backends("sqlite")
async def test_writes_arriving_together_share_commits_and_each_runs_whole(storage):
    """Group commit on SQLite's writer thread: presses of many channels together cost fewer commits than
    presses, and each press is stored whole by one statement of its own game (its action and its
    totals, written by one INSERT through the ``moves`` view's trigger), so no other unit's statement can
    land inside it. A lone press needs no transaction around its one statement (it runs in autocommit)."""
    manager = GameManager(storage)
    for channel in range(1, 13):
        await deal(manager, guild_id=1, channel_id=channel, owner_id=9, game=Game.from_number(channel))
    traced: list[str] = []
    await storage.db.set_trace_callback(traced.append)
    try:
        await play(manager, 1, lambda g: g.tap(STOCK))
        alone = [s for s, _ in itertools.groupby(traced)]  # (a trigger's steps trace their statement again)
        traced.clear()
        await asyncio.gather(*(play(manager, channel, lambda g: g.tap(STOCK)) for channel in range(1, 13)))
    finally:
        await storage.db.set_trace_callback(None)
    assert len(alone) == 1 and alone[0].startswith("INSERT INTO moves") and "VALUES (1, 0," in alone[0]
    commits, begun, stored = 0, False, []
    for statement, _ in itertools.groupby(traced):
        if statement == "BEGIN IMMEDIATE":
            begun = True
        elif statement == "COMMIT":
            commits, begun = commits + 1, False
        elif not statement.startswith("SELECT"):  # each unit: one statement, its game's move and totals
            move = re.match(r"INSERT INTO moves \(.*\) VALUES \((\d+), (\d+),", statement)
            assert move is not None, statement
            stored.append((int(move[1]), int(move[2])))
            commits += not begun  # (alone, in autocommit)
    assert 1 <= commits < 12
    assert sorted(stored) == [(1, 1)] + [(game, 0) for game in range(2, 13)]
    for channel in range(1, 13):  # the totals written by the trigger, as the game has them
        live = await manager.live(channel)
        kept = await storage.game(live.record.id)
        assert kept is not None and kept.moves == live.game.moves == 1 + (channel == 1)
        assert (kept.score, kept.removed) == (live.game.score, live.game.removed)


async def test_a_game_in_play_when_moves_became_one_statement_plays_on(tmp_path):
    """A database left at the schema before a move was one statement (the view and its trigger of step
    ``MOVES_VERSION``) is migrated with a game in play: its stored move is kept and its next moves are
    stored with their totals, as the reopened game shows them."""
    path = tmp_path / "pyramide.db"
    storage = SQLiteStorage(path)
    await storage.open()
    await deal(GameManager(storage), guild_id=1, channel_id=5, owner_id=9, game=Game.from_number(5))
    await play(GameManager(storage), 5, lambda g: g.tap(STOCK))
    await storage.close()
    with sqlite3.connect(path) as db:  # as a bot of step MOVES_VERSION - 1 left it
        db.executescript(f"DROP TRIGGER store_move; DROP VIEW moves; PRAGMA user_version = {MOVES_VERSION - 1};")
    storage = SQLiteStorage(path)
    await storage.open()
    try:
        manager = GameManager(storage)
        await play(manager, 5, lambda g: g.tap(STOCK))
        await play(manager, 5, lambda g: g.tap(STOCK))
        kept = await storage.live_game(5)
        assert kept is not None and kept.moves == 3 and len(kept.actions) == 3
    finally:
        await storage.close()
    reopened = SQLiteStorage(path)
    await reopened.open()
    try:
        live = await GameManager(reopened).live(5)
        expected = Game.from_number(5)
        for _ in range(3):
            expected.tap(STOCK)
        assert live is not None and live.game.moves == 3 and live.game.stock == expected.stock
    finally:
        await reopened.close()


async def test_a_move_refused_by_the_database_fails_alone(database_url):
    """A move whose sequence number is already stored (another process got there first) is refused;
    the moves committed with it in the same transaction are stored all the same."""
    storage = from_url(database_url)
    await storage.open()
    try:
        manager = GameManager(storage)
        lives = [
            await deal(manager, guild_id=1, channel_id=channel, owner_id=9, game=Game.from_number(channel))
            for channel in (1, 2, 3)
        ]
        await play(manager, 2, lambda g: g.tap(STOCK))
        record = lives[1].record
        outcomes = await asyncio.gather(
            storage.append_action(lives[0].record.id, 0, "stock", 1.0, lives[0].record),
            storage.append_action(record.id, 0, "stock", 1.0, record),  # seq 0 of game 2 is stored already
            storage.append_action(lives[2].record.id, 0, "stock", 1.0, lives[2].record),
            return_exceptions=True,
        )
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], MoveConflict)
        stored = [await storage.game(live.record.id) for live in lives]
        assert [len(record.actions) for record in stored if record is not None] == [1, 1, 1]
    finally:
        await storage.close()


async def test_two_processes_on_one_game_apply_a_move_once(database_url):
    """During a rolling restart two processes can hold the same shard: both have the game in memory and
    get the same press. The second to store it is refused (a stale board) and reloads; one move is kept."""
    first, second = from_url(database_url), from_url(database_url)
    await first.open()
    await second.open()
    try:
        one, two = GameManager(first), GameManager(second)
        await deal(one, guild_id=1, channel_id=5, owner_id=9, game=Game.from_number(3))
        assert (await two.live(5)) is not None  # the other process loaded it too
        await play(one, 5, lambda g: g.tap(STOCK))
        with pytest.raises(StaleBoard):
            await play(two, 5, lambda g: g.tap(STOCK))
        reloaded = await two.live(5)  # forgotten, then read again from the database
        assert reloaded is not None and reloaded.game.moves == 1 and len(reloaded.game.stock) == 22
        stored = await first.game(reloaded.record.id)
        assert stored is not None and len(stored.actions) == 1
    finally:
        await first.close()
        await second.close()


async def test_processes_opening_a_new_database_together_all_start(database_url):
    """A cluster's processes start at once on a database none has created the tables of: one creates and
    migrates them, the others wait for it instead of stopping with "database is locked" (or a duplicate
    table)."""
    storages = [from_url(database_url) for _ in range(4)]
    try:
        await asyncio.gather(*(storage.open() for storage in storages))
        for storage in storages:
            await storage.ping()
    finally:
        for storage in storages:
            await storage.close()


async def test_a_hint_asked_by_one_interaction_is_counted_once_even_when_two_processes_answer_it(storage, workers):
    """A hint press delivered to two processes (a rolling restart) is worked out by both; it counts once."""
    manager = GameManager(storage, solver=SolverService(workers))
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    other = twin(storage)
    await other.open()
    try:
        second = await GameManager(other).live(5)
        assert second is not None
        await asyncio.gather(
            manager.hint(live, live.game.copy(), request=7001),
            GameManager(other, solver=SolverService(workers)).hint(second, second.game.copy(), request=7001),
        )
        assert (await storage.game(live.record.id)).hints == 1
        await manager.hint(live, live.game.copy(), request=7002)  # the player asks again: a new interaction
        await manager.hint(live, live.game.copy())  # (no interaction known: always counted)
        assert (await storage.game(live.record.id)).hints == 3
        assert live.record.hints + second.record.hints == 3  # the first hint was counted by one process only
    finally:
        await other.close()
