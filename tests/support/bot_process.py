"""The real ``bot.py`` as a process against the Discord-like server on 127.0.0.1 (``fake_discord.py``):
started and stopped, its shards awaited, a board dealt and pressed as a player would, and what it stored
read straight from the database (the whole-process tests of ``test_process*.py`` and ``bench/cluster.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.deals import clear_kings_and_pairs, kings_and_pairs
from tests.support.fake_discord import FakeDiscord, Guild
from tests.support.throwaway_postgres import fetch

ROOT = Path(__file__).resolve().parents[2]
PLAYER = 600_000_000_000_000_001
# Two servers on different shards of two: (id >> 22) % 2 is 0 for the first, 1 for the second.
GUILD_A = 1 << 40  # shard 0 of 2
GUILD_B = (1 << 40) + (1 << 22)  # shard 1 of 2
CHANNEL_A, CHANNEL_B = 710_000_000_000_000_001, 710_000_000_000_000_002
LAUNCHED: list[subprocess.Popen[bytes]] = []  # the test's bot processes: the ``fake`` fixture checks they ended


def launch(
    fake: FakeDiscord, db: Path | str, *shard: str, folder: Path | None = None, piped: bool = False
) -> subprocess.Popen[bytes]:
    """``python bot.py`` with the fake Discord's REST base, on a SQLite file or a PostgreSQL URL (its logs
    in ``folder``, by default the file's, or with ``piped`` its stdout and stderr as pipes for the test to
    read); ``shard``: SHARD_COUNT and SHARD_IDS."""
    if isinstance(db, str) and db.startswith("postgresql://"):
        url = db
        assert folder is not None
    else:
        db = Path(db)
        url = f"sqlite:///{db}"  # the tests read this file: the URL wins over PYRAMIDE_DB
        folder = folder or db.parent
    env = {
        **os.environ,
        "DISCORD_TOKEN": "fake-token-for-the-local-test-server",
        "DISCORD_API_BASE": fake.api_base,
        "DATABASE_URL": url,
        "PYRAMIDE_DB": str(folder / "not-this-one.db"),
        "LOG_LEVEL": "INFO",
        "LOG_FILE": "",
        "METRICS_PORT": "",
        "DEV_GUILD_ID": "",
        "SHARD_COUNT": shard[0] if shard else "",
        "SHARD_IDS": shard[1] if len(shard) > 1 else "",
    }
    log = open(folder / f"bot-{len(list(folder.glob('bot-*.log')))}.log", "wb")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bot.py")],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE if piped else log,
        stderr=subprocess.PIPE if piped else subprocess.STDOUT,
        start_new_session=True,  # its own session and process group: the solver workers are in it
    )
    process.log_path = Path(log.name)  # type: ignore[attr-defined]
    log.close()
    LAUNCHED.append(process)
    return process


async def stop(process: subprocess.Popen[bytes], *, kill: bool = False) -> str:
    """SIGTERM (a clean stop) or SIGKILL (a crash: the process group, with no goodbye); its log. Awaited:
    the fake Discord runs in this event loop, and a clean stop finishes the presses in flight (their answers
    go to the fake) before it closes the gateway, so a blocking wait here would hold the process up."""
    if process.poll() is None:
        if kill:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.send_signal(signal.SIGTERM)
    try:
        await asyncio.to_thread(process.wait, 20)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # whatever is left of the group
    return process.log_path.read_text(errors="replace")  # type: ignore[attr-defined]


@contextlib.asynccontextmanager
async def serving(server: FakeDiscord) -> AsyncIterator[FakeDiscord]:
    """The Discord-like server for one test; at its end no bot process of the test may be left running (one
    left is killed, and fails the test)."""
    await server.start()
    LAUNCHED.clear()
    try:
        yield server
    finally:
        left = [process.pid for process in LAUNCHED if process.poll() is None]
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        await server.stop()
    assert not left, f"bot processes {left} outlived their test (a stop() not awaited?)"


@pytest.fixture
async def fake(request: pytest.FixtureRequest):
    """The Discord-like server; its application has the card emojis already unless ``new_application``."""
    fresh = request.node.get_closest_marker("new_application") is not None
    guilds = [Guild(GUILD_A, (CHANNEL_A,)), Guild(GUILD_B, (CHANNEL_B,))]
    async with serving(FakeDiscord(guilds, new_application=fresh)) as server:
        yield server


async def connected(fake: FakeDiscord, shards: int) -> None:
    """Until the processes' shards have read READY and their servers (no fixed wait)."""
    await fake.wait_for_shards(shards)


async def deal(fake: FakeDiscord, guild: int, channel: int, code: str) -> dict:
    """``/pyramide new code:<code>``; the board message it posted."""
    payload = fake.command(guild, channel, PLAYER, "new", code=code)
    answer = await fake.answered_after(payload)
    callback = answer.requests[0]
    assert callback["body"]["type"] == 4 and callback["files"], callback
    return fake.messages[fake.original[payload["token"]]]


async def tap(fake: FakeDiscord, guild: int, board: dict, label: str) -> dict:
    """Press the board's button ``label``; the board as the answer left it."""
    custom_id = next(b["custom_id"] for row in board["components"] for b in row["components"] if b["label"] == label)
    payload = fake.press(guild, PLAYER, board, custom_id)
    answer = await fake.answered_after(payload)
    assert answer.requests[0]["body"]["type"] == 7, answer.requests[0]  # the board was edited in place
    return fake.messages[int(board["id"])]


def plan() -> list[str]:
    """The labels to press to win the kings-and-pairs deal."""
    game = kings_and_pairs()
    cleared = game.copy()
    clear_kings_and_pairs(cleared)
    return [str(game.pyramid[action]) for action in cleared.actions]


def moves_after(taps: int) -> int:
    """The moves a player has made after that many taps of the plan (a pair takes two taps)."""
    game = kings_and_pairs()
    cleared = game.copy()
    clear_kings_and_pairs(cleared)
    for action in cleared.actions[:taps]:
        game.apply(action)
    return game.moves


def stored(db: Path | str) -> list[tuple[str, int, int]]:
    """Each stored game's status, moves and stored action rows, read straight from the database."""
    query = (
        "SELECT g.status, g.moves, COUNT(a.seq) FROM games g"
        " LEFT JOIN actions a ON a.game_id = g.id GROUP BY g.id ORDER BY g.id"
    )
    if isinstance(db, str) and db.startswith("postgresql://"):
        rows = fetch(db, query)
    else:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
            rows = connection.execute(query).fetchall()
    return [(str(s), int(m), int(n)) for s, m, n in rows]


def alive_in_session(session: int) -> list[str]:
    """The processes (not zombies) of a session, as "pid command" lines, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (name) ": state, ppid, pgrp, session
        if fields[0] != "Z" and int(fields[3]) == session:
            found.append(f"{entry.name} {command[:120]}")
    return found


def rows(db: Path | str, query: str) -> list[tuple]:
    """A query's rows, read straight from the test's database (a SQLite file or a PostgreSQL URL)."""
    if isinstance(db, str) and db.startswith("postgresql://"):
        return fetch(db, query)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return connection.execute(query).fetchall()


async def until(check, timeout: float = 20.0) -> None:
    """Until ``check()`` holds (the fake's records fill as the process answers)."""
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("not reached in time")


def shown(fake: FakeDiscord, payload: dict) -> dict:
    """The interaction's first answer as Discord shows it (after a deferral: what replaced "thinking")."""
    return fake.messages[fake.original[payload["token"]]]


def answered_words(fake: FakeDiscord, payload: dict) -> str:
    return "\n".join(
        (r["body"].get("data", r["body"]) or {}).get("content") or "" for r in fake.answers[payload["token"]].requests
    )
