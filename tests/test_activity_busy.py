"""A database that does not answer, met by a page of the Activity (the real server, the harness's bot, on
both databases): a move that meets the lock, and the read of the position the page is sent after a move or
after its hello, answer "busy, try again" over what the page shows, as the board answers a press; the socket
stays open, nothing is lost, no ERROR is logged, and the same socket plays on once the database is free.

The stalled read is PostgreSQL's alone: SQLite in WAL mode never blocks a reader (another process's write
lock leaves reads alone, and the bot never takes an exclusive one), so there a read cannot stall."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from pyramide.i18n import t
from pyramide_bot.activity import Limits
from tests.support.activity_door import Door, answer, door_of, received
from tests.support.database_locks import write_lock_held
from tests.support.harness import Harness

pytestmark = pytest.mark.backends("sqlite", "postgresql")
BUSY = {t("en", "error.storage_busy"), t("en", "error.storage_unknown")}


@pytest_asyncio.fixture
async def door(harness: Harness) -> AsyncIterator[Door]:
    async with door_of(harness, Limits()) as door:
        yield door


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_move_on_a_locked_database_answers_busy_and_keeps_the_socket(
    door: Door, caplog: pytest.LogCaptureFixture
) -> None:
    ws = await door.dealt()
    with caplog.at_level(logging.INFO):
        async with write_lock_held(door.h, "games") as stall:
            await stall()
            state = await answer(ws, {"t": "tap", "spot": "21", "version": 0})
            assert set(state["words"]) <= BUSY and state["words"], state["words"]
            assert state["game"]["version"] == 0  # what the page showed, not an empty table
        assert not ws.closed
        state = await answer(ws, {"t": "tap", "spot": "21", "version": 0})  # nothing stored: once it is free
        assert state["game"]["pyramid"][21] is None
    assert errors(caplog) == []
    await ws.close()


@pytest.mark.backends("postgresql")
async def test_a_stalled_read_of_the_position_answers_busy_and_keeps_the_socket(
    door: Door, caplog: pytest.LogCaptureFixture
) -> None:
    h = door.h
    assert h.bot is not None
    ws = await door.dealt()
    with caplog.at_level(logging.INFO):
        async with write_lock_held(h, "games") as stall:
            await stall()
            h.bot.manager.outdated()  # (another process moved: the position is read from the database)
            state = await answer(ws, {"t": "look"})
            assert state["words"] == [t("en", "error.storage_busy")]
            assert state["game"]["version"] == 0
            late = await door.socket()  # a page opened meanwhile: told so too, not dropped
            assert (await received(late))["t"] == "hello"
            first = await received(late)
            assert first["words"] == [t("en", "error.storage_busy")]
        assert not ws.closed and not late.closed
        state = await answer(ws, {"t": "tap", "spot": "21", "version": 0})  # the same socket plays on
        assert state["game"]["pyramid"][21] is None
    assert errors(caplog) == []
    await ws.close()
    await late.close()
