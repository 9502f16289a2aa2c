"""What the people who host the bot read about it: the gateway's latency of each shard in the metrics."""

from __future__ import annotations

import asyncio
import contextlib
import math

import discord
import yarl
from discord.gateway import DiscordWebSocket
from prometheus_client import generate_latest

from pyramide_bot.app import make_bot
from pyramide_bot.process import connect
from pyramide_bot.settings import Deployment
from pyramide_service.storage import from_url
from tests.support.fake_discord import FakeDiscord, Guild

GUILD_A = 1 << 40  # shard 0 of 2
GUILD_B = (1 << 40) + (1 << 22)  # shard 1 of 2


async def test_each_shard_of_a_process_exports_its_own_gateway_latency(tmp_path, monkeypatch):
    fake = FakeDiscord([Guild(GUILD_A, (710_000_000_000_000_001,)), Guild(GUILD_B, (710_000_000_000_000_002,))])
    await fake.start()
    # Restored after the test: the deployment points discord.py's REST and gateway at the fake Discord.
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(f"ws://127.0.0.1:{fake.port}/gateway"))
    storage = from_url(str(tmp_path / "pyramide.db"))
    await storage.open()
    deployment = Deployment(fake.api_base, 2, (0, 1))
    bot = make_bot(deployment, storage)
    running = asyncio.create_task(connect(bot, "fake-token", deployment))
    try:
        await fake.wait_for_shards(2)

        async def heartbeats_acknowledged() -> None:
            while len([s for s, latency in bot.shard_latencies() if math.isfinite(latency)]) < 2:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(heartbeats_acknowledged(), 30)
        text = generate_latest(bot.health.registry).decode()
        lines = [line for line in text.splitlines() if line.startswith("pyramide_gateway_latency_seconds{")]
        assert sorted(line.split("}")[0] for line in lines) == [
            'pyramide_gateway_latency_seconds{shard="0"',
            'pyramide_gateway_latency_seconds{shard="1"',
        ]
    finally:
        await bot.close()
        with contextlib.suppress(Exception):
            await running
        await storage.close()
        await fake.stop()
