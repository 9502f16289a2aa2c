"""A party race's live rivals (issue #48): with ``PLAYERS`` players racing in each of ``INSTANCES`` Activity
instances at once, the time from a player's move to every rival's page showing it (the rival's count of cards
removed changed in the state that page received), over the real bot (tests/support/harness.py) on a SQLite
file and the Activity's real server and sockets (aiohttp's WebSocket client, sessions minted as the sign-in
mints them; no browser: 160 pages).

Every instance runs at once; in each, the players take turns through the taps that clear the deal, a move at a
time (the next after every rival saw it). Printed: moves, rival pages told, median and p99 in ms.
Run: ``.venv/bin/python bench/party.py [instances] [players] [taps]``."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide_bot.activity import Activity
from pyramide_bot.activity.sessions import Session
from pyramide_bot.settings import ActivitySettings
from pyramide_service.parties import COUNTDOWN
from tests.support.activity_edge import ROOMY, NoProxy
from tests.support.deals import clear_kings_and_pairs_taps, kings_and_pairs
from tests.support.fake_activity import BOT_TOKEN, CLIENT_SECRET
from tests.support.harness import APP_ID, CHANNEL_ID, GUILD_ID, Harness

INSTANCES = int(sys.argv[1]) if len(sys.argv) > 1 else 20
PLAYERS = int(sys.argv[2]) if len(sys.argv) > 2 else 8
TAPS = int(sys.argv[3]) if len(sys.argv) > 3 else 12  # each player's, from the clearing line


class Page:
    def __init__(self, socket: Any, user: int) -> None:
        self.socket, self.user = socket, user
        self.states: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            state = json.loads(message.data)
            if state.get("t") == "state":
                state["at"] = time.perf_counter()
                self.states.put_nowait(state)

    async def until(self, seen: Any) -> dict[str, Any]:
        while True:
            state = await asyncio.wait_for(self.states.get(), 10)
            if seen(state):
                return state


def removed_of(state: dict[str, Any], user: int) -> int | None:
    party = state.get("party") or {}
    return next((int(r["removed"]) for r in party.get("rivals", ()) if r["id"] == str(user)), None)


async def instance(n: int, activity: Activity, client: Any, port: int, h: Harness, latencies: list[float]) -> None:
    channel, name = CHANNEL_ID + 1 + n, f"i-bench-{n}"
    users = [600_000_000_000_000_000 + n * 100 + p for p in range(PLAYERS)]
    pages = []
    for user in users:
        token = activity.server.keys.mint(Session(user, f"P{user % 100}", GUILD_ID, channel, name, h.now[0] + 3600))
        socket = await client.ws_connect(f"ws://127.0.0.1:{port}/api/ws")
        await socket.send_str(json.dumps({"t": "hello", "session": token, "instance": name, "locale": "en"}))
        pages.append(Page(socket, user))
    await pages[0].socket.send_str(json.dumps({"t": "party", "options": {"code": kings_and_pairs().code}}))
    await pages[0].until(lambda s: (s.get("party") or {}).get("phase") == "gathering")
    for page in pages[1:]:
        await page.socket.send_str(json.dumps({"t": "join"}))
        await page.until(lambda s, u=page.user: u in [int(r["id"]) for r in (s.get("party") or {}).get("racers", ())])
    gathered.append(n)
    await ready.wait()
    for page in pages:  # the race on every page
        await page.until(lambda s: (s.get("party") or {}).get("phase") == "racing")
    game = kings_and_pairs()
    removed_after = []
    for spot in clear_kings_and_pairs_taps()[:TAPS]:
        game.tap(spot)
        removed_after.append(game.removed)
    versions = {page.user: 0 for page in pages}
    for step, spot in enumerate(clear_kings_and_pairs_taps()[:TAPS]):
        for mover in pages:
            rivals = [page for page in pages if page is not mover]
            for page in pages:  # (what came before this move is read)
                while not page.states.empty():
                    state = page.states.get_nowait()
                    if page is mover and state.get("game"):
                        versions[page.user] = int(state["game"]["version"])
            sent = time.perf_counter()
            ask = {"t": "tap", "spot": str(spot), "version": versions[mover.user]}
            await mover.socket.send_str(json.dumps(ask))
            answer = await mover.until(lambda s: "words" in s)
            versions[mover.user] = int(answer["game"]["version"])
            if step and removed_after[step] == removed_after[step - 1]:
                continue  # (a card selected: nothing of it shows on the rivals' pages)
            expected = removed_after[step]
            for page in rivals:
                seen = await page.until(lambda s, u=mover.user, e=expected: removed_of(s, u) == e)
                latencies.append((seen["at"] - sent) * 1000)
    for page in pages:
        await page.socket.close()
        page.reader.cancel()


ready = asyncio.Event()
gathered: list[int] = []


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        h = Harness(str(Path(folder) / "pyramide.db"))
        await h.start()
        assert h.bot is not None
        limits = dataclasses.replace(ROOMY, burst=10**6, rate=10**6, sockets=10**4, per_user=10, per_session=10)
        activity = Activity(
            h.bot,
            ActivitySettings(0, CLIENT_SECRET),
            application_id=APP_ID,
            bot_token=BOT_TOKEN,
            api_base=NoProxy().api_base,  # (Discord unreachable at once: no request leaves the machine)
            clock=lambda: h.now[0],
            limits=limits,
        )
        port = await activity.start()
        latencies: list[float] = []
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as client:  # (160 sockets)
            runs = [asyncio.create_task(instance(n, activity, client, port, h, latencies)) for n in range(INSTANCES)]
            while len(gathered) < INSTANCES:  # every party gathered (a failure raised)
                for run in runs:
                    if run.done():
                        run.result()
                await asyncio.sleep(0.05)
            h.now[0] += COUNTDOWN
            ready.set()
            started = time.perf_counter()
            await asyncio.gather(*runs)
            took = time.perf_counter() - started
        await activity.close()
        await h.stop()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    told = f"{len(latencies)} rival pages told in {took:.1f} s"
    print(f"{INSTANCES} instances x {PLAYERS} players, {TAPS} taps each: {told}")
    print(f"move -> every rival's page: median {statistics.median(latencies):.0f} ms, p99 {p99:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
