"""N channels x M button presses through the real offline bot stack on a real SQLite file.

Prints presses per second and the median / p99 milliseconds from the interaction being
received to the response being sent, for two loads:
- paced: every channel's player presses again 1-3 s (then 0.5-1.5 s) after seeing the new board, first
  presses spread over the first second: about 50 (then 85) presses a second;
- burst: every channel presses again as soon as its board is back (saturation).

and a hint storm: 12 players press Hint on deals the solver finds hard (strict win with the drawn
card, searched in pure Python) while 20 other channels play; prints how long the others wait for
their first answer, and how the hints were answered.

and the framework floor (issue #16): a minimal discord.py client that answers every press with a fixed
25 KB PNG and 12 buttons, driven through the same offline edge in the same process, in rounds alternating
with Pyramide's; prints the CPU per press of both, their ratio (target <= 5) and presses per second per core.

Usage: .venv/bin/python bench/bot.py [CHANNELS] [PRESSES]   (default 100 x 20)
       .venv/bin/python bench/bot.py --floor
       .venv/bin/python bench/bot.py --hint-storm
       .venv/bin/python bench/bot.py --durability   (the paced load with synchronous=NORMAL, then FULL)
       .venv/bin/python bench/bot.py --database postgresql://USER@HOST:PORT/DBNAME
           whole bot.py processes (bench/cluster.py), 1 and 2 on one PostgreSQL next to 1 and 2 on one
           SQLite file, in the same run: presses/s, p50/p99 and cores. The URL's user must be allowed to
           create databases: each run gets a new one, dropped after it. ``--database postgresql`` alone
           starts a throwaway local server (fsync on, as in production) for the run.
"""

from __future__ import annotations

import asyncio
import logging
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import io
import os

import discord

from pyramide import Game, Rules
from tests.support import discord_internals as internals
from tests.support.harness import APP_ID, BOT_USER, GUILD_ID, OWNER, Harness, Hub, RecordingAdapter, Sent
from tests.support.manager_turns import deal


async def press(h: Harness, client: discord.Client | None, message: dict, custom_id: str) -> Sent:
    """Press the one button of ``message`` on ``client`` as the gateway would; the answer as it arrives."""
    assert client is not None
    message["components"] = [{"type": 1, "components": [{"type": 2, "style": 2, "label": "x", "custom_id": custom_id}]}]
    payload = h.press_payload(custom_id, message)
    answered: asyncio.Future[Sent] = asyncio.get_running_loop().create_future()
    h.hub.waiters[payload["token"]] = answered
    h.hub.targets[payload["token"]] = (int(message["channel_id"]), int(message["id"]))
    h.hub.created[payload["token"]] = time.perf_counter()
    internals.deliver_interaction(client, payload)
    return await answered


async def play_channel(
    h: Harness,
    channel_id: int,
    presses: int,
    pace: tuple[float, float] | None,
    rng: random.Random,
    latencies: list[float],
) -> None:
    manager = h.bot.manager
    live = await deal(manager,
        guild_id=GUILD_ID, channel_id=channel_id, owner_id=OWNER, game=Game.from_number(rng.randrange(2**35))
    )
    message = h.hub.message(channel_id, {"content": "", "components": []})
    live.record = replace(live.record, message_id=int(message["id"]))
    if pace:  # players do not press in lockstep: each starts at a random moment of the first second
        await asyncio.sleep(rng.uniform(0, 1.0))
    for _ in range(presses):
        live = await manager.live(channel_id)
        if live is None or live.game.is_over:
            return
        game = live.game
        spots = [s for s in game.selectable_spots() if isinstance(s, int)]
        action = str(rng.choice(spots)) if spots and rng.random() < 0.6 else "s"
        start = time.perf_counter()
        answer = await press(h, h.bot, message, f"pyr:{live.record.id}:{game.version}:{action}")
        latencies.append((answer.at - start) * 1000)
        await asyncio.sleep(rng.uniform(*pace) if pace else 0)


async def run(channels: int, presses: int, pace: tuple[float, float] | None, synchronous: str = "FULL") -> None:
    with tempfile.TemporaryDirectory() as folder:
        h = Harness(str(Path(folder) / "bench.db"), hub=Hub(conform=False))
        h.synchronous = synchronous
        await h.start()
        cpu = time.process_time()
        rng = random.Random(1)
        latencies: list[float] = []
        start = time.perf_counter()
        await asyncio.gather(
            *(
                play_channel(h, 10_000 + i, presses, pace, random.Random(rng.random()), latencies)
                for i in range(channels)
            )
        )
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
        await h.stop()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    name = f"paced ({pace[0]}-{pace[1]} s between a player's presses)" if pace else "burst (no pause)"
    print(
        f"{name}, synchronous={synchronous}: {channels} channels x {presses} presses = {len(latencies)} presses "
        f"in {elapsed:.1f} s, {len(latencies) / elapsed:.0f} presses/s; median {statistics.median(latencies):.1f} ms, "
        f"p99 {p99:.1f} ms, max {latencies[-1]:.1f} ms; CPU {cpu / len(latencies) * 1000:.2f} ms a press"
    )


async def hint_storm(hinters: int = 12, players: int = 20, presses: int = 15) -> None:
    with tempfile.TemporaryDirectory() as folder:
        h = await Harness(str(Path(folder) / "storm.db"), hub=Hub(conform=False)).start()
        hard = Rules(strict_win=True, draw_with_waste=True)
        hint_times: list[float] = []
        outcomes: list[str] = []

        async def ask(channel_id: int, number: int) -> None:
            live = await deal(h.bot.manager,
                guild_id=GUILD_ID, channel_id=channel_id, owner_id=OWNER, game=Game.from_number(number, hard)
            )
            message = h.hub.message(channel_id, {"content": "", "components": []})
            live.record = replace(live.record, message_id=int(message["id"]))
            custom_id = f"pyr:{live.record.id}:{live.game.version}:hint"
            message["components"] = [
                {"type": 1, "components": [{"type": 2, "style": 2, "label": "x", "custom_id": custom_id}]}
            ]
            payload = h.press_payload(custom_id, message)
            start = time.perf_counter()
            known = asyncio.all_tasks()
            h.fire(payload, int(message["id"]))
            await h.settle(known)
            hint_times.append((time.perf_counter() - start) * 1000)
            last = h.answers(payload["token"])[-1].content
            outcomes.append("busy" if "busy" in last else "hint" if "Hint" in last else "other")

        latencies: list[float] = []
        rng = random.Random(2)
        start = time.perf_counter()
        await asyncio.gather(
            *(
                ask(20_000 + i, number)
                for i, number in enumerate([44, 69, 55, 108, 74, 7, 8, 102, 44, 69, 55, 108][:hinters])
            ),
            *(
                play_channel(h, 30_000 + i, presses, (0.2, 0.6), random.Random(rng.random()), latencies)
                for i in range(players)
            ),
        )
        elapsed = time.perf_counter() - start
        await h.stop()
    latencies.sort()
    hint_times.sort()
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    print(
        f"hint storm: {hinters} hard hints at once beside {players} channels x {presses} presses ({elapsed:.1f} s): "
        f"other channels' first answer median {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, "
        f"max {latencies[-1]:.1f} ms; hints answered in median {statistics.median(hint_times or [0]):.0f} ms, "
        f"max {max(hint_times or [0]):.0f} ms "
        f"({outcomes.count('hint')} hints, {outcomes.count('busy')} 'busy, try again')"
    )


class FloorClient(discord.Client):
    """The least a discord.py bot can do for a press: answer it with a new picture and 12 buttons."""

    def __init__(self, png: bytes) -> None:
        super().__init__(intents=discord.Intents.none())
        self.png = png

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        for i in range(12):
            view.add_item(discord.ui.Button(label=f"{i}", custom_id=f"floor:{i}", row=i // 4))
        await interaction.response.edit_message(
            content="floor", attachments=[discord.File(io.BytesIO(self.png), filename="board.png")], view=view
        )


async def floor_client(h: Harness) -> FloorClient:
    """A floor client on the harness's fake Discord edge (the same edge Pyramide's bot is on)."""
    client = FloorClient(os.urandom(25 * 1024))  # incompressible: the 25 KB travel as a PNG's would
    internals.log_in(client, APP_ID, BOT_USER)
    internals.route_rest(client, h.hub.http_request)
    await internals.setup(client)
    internals.add_guild(client, h.guild_payload())
    internals.record_webhooks(RecordingAdapter(h.hub))
    return client


async def floor_channel(h: Harness, client: FloorClient, channel_id: int, presses: int) -> None:
    message = h.hub.message(channel_id, {"content": "", "components": []})
    for n in range(presses):
        await press(h, client, message, f"floor:{n % 12}")


async def floor(rounds: int = 6, channels: int = 20, presses: int = 15) -> None:
    """Alternating rounds of the floor client and of Pyramide, each a burst of channels x presses."""
    with tempfile.TemporaryDirectory() as folder:
        h = await Harness(str(Path(folder) / "floor.db"), hub=Hub(conform=False)).start()
        client = await floor_client(h)
        costs: dict[str, list[float]] = {"floor": [], "pyramide": []}
        rates: list[float] = []
        rng = random.Random(3)
        for r in range(rounds):
            for name in ("floor", "pyramide"):
                before = len(h.hub.sent)
                cpu, wall = time.process_time(), time.perf_counter()
                if name == "floor":
                    await asyncio.gather(*(floor_channel(h, client, 40_000 + i, presses) for i in range(channels)))
                else:
                    seen: list[float] = []
                    await asyncio.gather(
                        *(
                            play_channel(h, 50_000 + r * 1000 + i, presses, None, random.Random(rng.random()), seen)
                            for i in range(channels)
                        )
                    )
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                answered = len(h.hub.sent) - before
                if r > 0:  # the first round warms both (imports, caches, the words of the language)
                    costs[name].append(cpu / answered * 1000)
                    if name == "pyramide":
                        rates.append(answered / cpu)
        await h.stop()
        await client.close()
    floor_ms, ours = statistics.median(costs["floor"]), statistics.median(costs["pyramide"])
    print(
        f"framework floor (discord.py, fixed 25 KB PNG + 12 buttons): {floor_ms:.2f} ms CPU a press; "
        f"Pyramide: {ours:.2f} ms CPU a press; ratio {ours / floor_ms:.1f}x (target <= 5x); "
        f"Pyramide {statistics.median(rates):.0f} presses/s per core of CPU "
        f"({rounds - 1} alternating rounds of {channels} channels x {presses} presses)"
    )


def databases(url: str) -> None:
    from bench.cluster import SHARDS, measure, report
    from tests.support.throwaway_postgres import ThrowawayPostgres

    server = None
    if "://" not in url:
        server = ThrowawayPostgres(durable=True)
        url = server.start()
        print(f"a throwaway PostgreSQL server on 127.0.0.1:{server.port} (fsync on)")
    try:
        channels, presses = 8, 40
        print(f"{SHARDS} servers on {SHARDS} shards, {channels} channels each, {presses} presses a channel")
        for round_ in range(2):  # twice, alternating, to see the spread
            for name, database in (("SQLite", None), ("PostgreSQL", url)):
                for processes in (1, 2):
                    report(name, processes, asyncio.run(measure(processes, channels, presses, database)))
            if round_ == 0:
                print("again:")
    finally:
        if server is not None:
            server.stop()


def main() -> None:
    logging.disable(logging.WARNING)
    if "--database" in sys.argv:
        index = sys.argv.index("--database")
        databases(sys.argv[index + 1] if len(sys.argv) > index + 1 else "postgresql")
        return
    if "--floor" in sys.argv:
        asyncio.run(floor())
        return
    if "--hint-storm" in sys.argv:
        asyncio.run(hint_storm())
        return
    if "--durability" in sys.argv:
        for synchronous in ("NORMAL", "FULL", "NORMAL", "FULL"):
            asyncio.run(run(100, 20, pace=(0.5, 1.5), synchronous=synchronous))
        return
    channels = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    presses = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    asyncio.run(run(channels, presses, pace=(1.0, 3.0)))
    asyncio.run(run(channels, presses, pace=(0.5, 1.5)))
    asyncio.run(run(channels, presses, pace=None))


if __name__ == "__main__":
    main()
