"""The Activity's door under load, against the real bot (tests/support/harness.py, a SQLite file) and the real
Activity server, with Discord's side played by tests/support/fake_activity.py:

- the event loop's largest pause while the heaviest request runs: "Replay my game" (``mine``) of a
  finished game of N actions, N = the cap on a game's actions (2,000) and 10,000 (a game the cap no longer
  lets anyone make; one stored before it is still replayed), measured by a task that wakes every ms;
- the bot's memory (RSS) and the requests that reached Discord after 20,000 refused requests: junk
  sign-in codes from one address (each one an exchange at Discord's /oauth2/token unless limited), and
  sockets whose hello is forged; then the memory and the server sockets still alive a minute later.

Run: ``.venv/bin/python bench/door.py`` (this tree), or ``PYRAMIDE_TREE=/work/main .venv/bin/python
bench/door.py`` to measure another checkout (before/after a change): only public routes are used."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("PYRAMIDE_TREE") or str(Path(__file__).resolve().parent.parent))

import aiohttp
from aiohttp import web

from pyramide import Game
from pyramide_bot.activity.sessions import Session, SessionKeys
from pyramide_service.storage import ENDED
from tests.support.activity_edge import ActivityEdge, serve_activity
from tests.support.deals import kings_and_pairs
from tests.support.fake_activity import CLIENT_SECRET, ActivityDiscord
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, Harness
from tests.support.manager_turns import deal, end

try:  # this tree's limits as a deployment has them (the tests' edge is roomier)
    from pyramide_bot.activity import Limits

    AS_DEPLOYED: tuple[object, ...] = (Limits(),)
except ImportError:  # a tree from before them
    AS_DEPLOYED = ()
REFUSED = 20_000
SETTLE = 60
AT_ONCE = 50


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def largest_pause(work: asyncio.Future[object]) -> float:
    """The longest the event loop went without running a 1 ms ticker while ``work`` ran, in ms."""
    worst, at = 0.0, time.perf_counter()
    while not work.done():
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        worst, at = max(worst, now - at), now
    await work
    return worst * 1000


async def replay_pause(h: Harness, url: str, token: str, instance_id: str, actions: int) -> tuple[float, int]:
    assert h.bot is not None
    game = Game.from_code(kings_and_pairs().code)
    live = await deal(h.bot.manager, guild_id=GUILD_ID, channel_id=CHANNEL_ID, owner_id=OWNER, game=game)
    async with h.bot.manager.turn(CHANNEL_ID) as turn:
        for _ in range(actions):  # (``apply``, a stored log's replay: past the cap, as a game stored before it)
            await turn.apply(lambda game: game.apply("stock"))
    await end(h.bot.manager, CHANNEL_ID, ENDED)
    async with aiohttp.ClientSession() as client, client.ws_connect(url, max_msg_size=0) as ws:
        await ws.send_str(json.dumps({"t": "hello", "session": token, "instance": instance_id}))
        await ws.receive()  # hello
        await ws.receive()  # the position

        async def asked() -> int:
            await ws.send_str(json.dumps({"t": "mine", "game": live.record.id}))
            while True:
                message = json.loads((await ws.receive(timeout=120)).data)
                if "words" in message:
                    return len(message.get("playback", {}).get("frames", []))

        work = asyncio.ensure_future(asked())
        pause = await largest_pause(work)
        return pause, work.result()


async def refusals(edge: ActivityEdge, url: str, instance_id: str, count: int) -> None:
    async with aiohttp.ClientSession() as client:
        queue = iter(range(count))

        async def one_by_one() -> None:
            for n in queue:
                if n % 2:
                    body = {"code": f"junk-{n}", "instance_id": instance_id}
                    async with client.post(f"{url}/api/token", json=body) as answer:
                        await answer.read()
                else:
                    async with client.ws_connect(f"{url}/api/ws") as ws:
                        await ws.send_str('{"t": "hello", "session": "forged.token", "instance": "x"}')
                        await ws.receive()

        await asyncio.gather(*(one_by_one() for _ in range(AT_ONCE)))


async def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="pyramide-bench-door-"))
    h = Harness(str(folder / "bench.db"))
    h.synchronous = "OFF"  # (a bench's throwaway file: its 12,000 moves stored fast)
    await h.start()
    assert h.bot is not None
    edge = await ActivityEdge(ActivityDiscord(instances=h.hub.activity_instances)).start()
    activity = await serve_activity(h, edge, *AS_DEPLOYED)  # type: ignore[arg-type]
    port = edge.target
    url = f"http://127.0.0.1:{port}"
    instance_id = edge.discord.instance(GUILD_ID, CHANNEL_ID, OWNER).instance_id
    session = Session(OWNER, "Ana", GUILD_ID, CHANNEL_ID, instance_id, h.now[0] + 3600)
    token = SessionKeys(CLIENT_SECRET).mint(session)
    try:
        print(f"tree: {os.environ.get('PYRAMIDE_TREE') or 'this one'}", flush=True)
        for actions in (2_000, 10_000):
            pause, frames = await replay_pause(h, f"{url}/api/ws", token, instance_id, actions)
            print(f"replay of {actions:>6} actions: largest event-loop pause {pause:7.1f} ms ({frames} frames)")
        seen = len(edge.discord.seen)
        await refusals(edge, url, instance_id, REFUSED // 10)  # (warm: the allocator's first growth)
        before, started = rss_mb(), time.perf_counter()
        await refusals(edge, url, instance_id, REFUSED)
        print(
            f"{REFUSED} more refused requests in {time.perf_counter() - started:.0f} s: "
            f"RSS {before:.0f} -> {rss_mb():.0f} MB, {len(edge.discord.seen) - seen} requests reached Discord "
            f"(of {REFUSED // 2 + REFUSED // 20} junk codes), {len(activity.server.refused)} refusals kept",
            flush=True,
        )
        # aiohttp keeps a closed connection's objects for a while (its closing handshake and timers): what
        # stays once they are gone is what the refusals cost for good.
        await asyncio.sleep(SETTLE)
        gc.collect()
        sockets = sum(isinstance(o, web.WebSocketResponse) for o in gc.get_objects())
        print(f"{SETTLE} s later: RSS {rss_mb():.0f} MB, {sockets} server sockets still alive", flush=True)
    finally:
        await activity.close()
        await edge.stop()
        await h.stop()


if __name__ == "__main__":
    asyncio.run(main())
