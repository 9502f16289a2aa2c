"""The Activity's launch side against the real ``bot.py`` process and the Discord-like server of
tests/support/fake_discord.py: the entry point command Discord made survives the process's command sync, and a
board's launch button is answered with LAUNCH_ACTIVITY. The fake refuses, as Discord does, an overwrite
that would remove the entry point (400, 50240)."""

from __future__ import annotations

import socket

import aiohttp
import pytest

from tests.support.app_commands import ENTRY_POINT_MESSAGE
from tests.support.bot_process import CHANNEL_A, GUILD_A, LAUNCHED, PLAYER, connected, deal, launch, stop, tap
from tests.support.deals import kings_and_pairs
from tests.support.fake_discord import FakeDiscord, Guild
from tests.support.harness import APP_ID

SECRET = "Ab3_-" * 6 + "xy"


@pytest.fixture
async def discord_with_activities():
    """The fake Discord, with Activities enabled in the application's portal (so with its entry point)."""
    server = await FakeDiscord([Guild(GUILD_A, (CHANNEL_A,))]).start()
    server.app_commands.enable_activities()
    LAUNCHED.clear()
    yield server
    await server.stop()
    assert all(process.poll() is not None for process in LAUNCHED), "a bot process outlived its test"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_the_fake_refuses_an_overwrite_that_drops_the_entry_point(discord_with_activities):
    fake = discord_with_activities
    url = f"{fake.api_base}/applications/{APP_ID}/commands"
    async with aiohttp.ClientSession(headers={"Authorization": "Bot x"}) as session:
        async with session.put(url, json=[{"name": "pyramide", "description": "Play", "type": 1}]) as response:
            assert response.status == 400
            assert await response.json() == {"code": 50240, "message": ENTRY_POINT_MESSAGE}
        async with session.get(url) as response:
            assert [(c["type"], c["name"]) for c in await response.json()] == [(4, "launch")]  # unchanged


async def test_the_process_keeps_the_entry_point_and_its_boards_launch_the_activity(
    discord_with_activities, tmp_path, monkeypatch
):
    fake = discord_with_activities
    entry = fake.app_commands.entry_point()
    monkeypatch.setenv("ACTIVITY_PORT", str(free_port()))
    monkeypatch.setenv("DISCORD_CLIENT_SECRET", SECRET)
    bot = launch(fake, tmp_path / "pyramide.db", folder=tmp_path)
    try:
        await connected(fake, 1)
        commands = {(c["type"], c["name"]): c for c in fake.app_commands.listing()}
        assert set(commands) == {(1, "pyramide"), (1, "pyramide-admin"), (4, "launch")}
        assert commands[(4, "launch")] == entry and fake.app_commands.refused == 0
        board = await deal(fake, GUILD_A, CHANNEL_A, kings_and_pairs().code)
        board = await tap(fake, GUILD_A, board, "K♠")  # the game goes on as before
        buttons = {b["label"]: b["custom_id"] for row in board["components"] for b in row["components"]}
        launch_id = buttons["Play in the Activity"]
        answer = await fake.answered_after(fake.press(GUILD_A, PLAYER, board, launch_id))
        assert [request["body"] for request in answer.requests] == [{"type": 12}]
        assert fake.activity_instances[CHANNEL_A]["users"] == [PLAYER] and fake.refusals == []
    finally:
        log = await stop(bot)
    assert SECRET not in log and "Traceback" not in log
    assert "synced 2 commands globally (their definition changed), the Activity's entry point command kept" in log
