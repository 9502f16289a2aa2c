"""The Activity served by the real ``bot.py`` process (``ACTIVITY_PORT``), against the Discord-like server
(tests/support/fake_discord.py, which also answers the sign-in's routes) and seen in a real Chromium through
Discord's edge (tests/support/activity_edge.py): a tap edits the board message, a board press reaches the page,
and after ``kill -9`` and a restart the page reconnects and plays on with nothing lost. On SQLite: the
cross-process part of PostgreSQL (NOTIFY) is test_activity_feed's."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from tests.support.activity_browser import module_browser, open_activity
from tests.support.activity_edge import ActivityEdge
from tests.support.bot_process import CHANNEL_A, GUILD_A, LAUNCHED, PLAYER, connected, deal, launch, stop, tap
from tests.support.deals import kings_and_pairs
from tests.support.fake_activity import CLIENT_SECRET
from tests.support.fake_discord import FakeDiscord, Guild

pytestmark = pytest.mark.asyncio(loop_scope="module")
WAIT = 8000


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    async for chromium in module_browser():
        yield chromium


@pytest_asyncio.fixture(loop_scope="module")
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord([Guild(GUILD_A, (CHANNEL_A,))]).start()
    server.activity.bot_token = "fake-token-for-the-local-test-server"  # bot.py's DISCORD_TOKEN in launch()
    LAUNCHED.clear()
    yield server
    for process in LAUNCHED:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    await server.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def serving(port: int) -> None:
    """Until the process's Activity answers (no fixed wait)."""
    async with aiohttp.ClientSession() as session:
        for _ in range(600):
            with contextlib.suppress(aiohttp.ClientError):
                async with session.get(f"http://127.0.0.1:{port}/api/config") as answer:
                    if answer.status == 200:
                        return
            await asyncio.sleep(0.05)
    raise AssertionError("the Activity was never served")


async def test_the_process_serves_the_activity_in_step_with_the_board_across_a_kill_9(
    fake: FakeDiscord, browser: Any, tmp_path: Any, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    monkeypatch.setenv("ACTIVITY_PORT", str(port))
    monkeypatch.setenv("DISCORD_CLIENT_SECRET", CLIENT_SECRET)
    db = database_url if database_url.startswith("postgresql://") else tmp_path / "pyramide.db"
    process = launch(fake, db, folder=tmp_path)
    edge = await ActivityEdge(fake.activity).start()
    edge.target = port
    player = None
    try:
        await connected(fake, 1)
        await serving(port)
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        instance = fake.activity.instance(GUILD_A, CHANNEL_A, PLAYER)
        player = await open_activity(
            browser, edge, PLAYER, instance.instance_id, guild_id=GUILD_A, channel_id=CHANNEL_A
        )
        await player.card(21).wait_for(timeout=WAIT)
        before = dict(fake.messages[int(board["id"])])
        await player.card(21).click()  # K♠ from the page
        await player.card(21).wait_for(state="hidden", timeout=WAIT)
        for _ in range(100):  # the board message follows, edited with the bot token
            if fake.messages[int(board["id"])] != before:
                break
            await asyncio.sleep(0.05)
        assert "K♠" not in [
            b.get("label") for row in fake.messages[int(board["id"])]["components"] for b in row["components"]
        ]
        board = await tap(fake, GUILD_A, fake.messages[int(board["id"])], "A♠")  # a board press
        await player.frame.locator('[data-spot="22"][aria-pressed="true"]').wait_for(timeout=1000)
        await stop(process, kill=True)
        process = launch(fake, db, folder=tmp_path)
        await serving(port)
        await player.card(23).click()  # Q♠ pairs with the A♠ selected before the crash
        await player.card(23).wait_for(state="hidden", timeout=WAIT)
        await player.card(22).wait_for(state="hidden", timeout=WAIT)
        assert await player.frame.locator("#score").inner_text() == "30"
        assert await player.clean() == []
    finally:
        if player is not None:
            await player.close()
        await edge.stop()
        await stop(process)
