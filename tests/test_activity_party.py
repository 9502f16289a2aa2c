"""A party race in the Activity, spoken to as pages speak to it (aiohttp's WebSocket client, sessions minted
as the sign-in mints them), in front of the real bot on a real database: three players and one spectator in
one instance. Started with a deal of the form's options, joined during the countdown, each racer's own board
drawn from their seat, every rival's count of cards on every page after each move, a racer who gives up,
a page closed mid-race and opened again, the podium; a late player watches."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from pyramide.daily import daily_number, day_key, today
from pyramide.i18n import t
from pyramide_bot.activity.sessions import Session
from pyramide_service.outcomes import Played
from pyramide_service.parties import COUNTDOWN, Party
from pyramide_service.play import Press
from pyramide_service.seats import Seat
from pyramide_service.workers import Workers
from tests.support.activity_edge import ROOMY, NoProxy, serve_activity
from tests.support.deals import clear_kings_and_pairs_taps, kings_and_pairs
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, Harness, Hub

INSTANCE = "i-party-test"
ANA, BO, CY, DEE = OWNER, OWNER + 1, OWNER + 2, OWNER + 3
NAMES = {ANA: "Ana", BO: "Bo", CY: "Cy", DEE: "Dee"}
RIVAL_BOUND = 2.0  # seconds from a move to a rival's page showing it


class Page:
    def __init__(self, socket: aiohttp.ClientWebSocketResponse, user: int) -> None:
        self.socket = socket
        self.user = user
        self.last: dict[str, Any] = {}

    async def ask(self, **message: Any) -> dict[str, Any]:
        await self.socket.send_str(json.dumps(message))
        return await self.until(lambda state: "words" in state)

    async def until(self, seen: Callable[[dict[str, Any]], bool], within: float = 5.0) -> dict[str, Any]:
        """The first state (this page's answer or a broadcast) that ``seen`` accepts, within ``within`` s.
        (A rival's page is asked to show a move within ``RIVAL_BOUND``: twice the product's second, as these
        tests share two cores with browsers and databases; the second itself is ``bench/activity.py party``'s
        figure, 160 pages at once.)"""
        async with asyncio.timeout(within):
            while True:
                answer = json.loads(await self.socket.receive_str())
                if answer.get("t") == "state":
                    self.last = answer
                    if seen(answer):
                        return answer


def posts(h: Harness) -> list[Any]:
    """What the bot posted in the instance's channel (new messages, not edits)."""
    made = [sent for sent in h.hub.sent if sent.method == "POST" and sent.path == "/channels/{channel_id}/messages"]
    return [sent for sent in made if f"/channels/{CHANNEL_ID}/" in sent.url]


def removed_of(state: dict[str, Any], user: int) -> int | None:
    party = state.get("party") or {}
    return next((int(r["removed"]) for r in party.get("rivals", ()) if r["id"] == str(user)), None)


@asynccontextmanager
async def activity_pages(h: Harness) -> AsyncIterator[Callable[[int], Awaitable[Page]]]:
    """The Activity served by ``h``'s bot, and a way to open a page of the instance for a user."""
    assert h.bot is not None

    edge = NoProxy()
    activity = await serve_activity(h, edge, dataclasses.replace(ROOMY, burst=100))
    stack = AsyncExitStack()
    try:
        client = await stack.enter_async_context(aiohttp.ClientSession())

        async def open_page(user: int) -> Page:
            session = Session(user, NAMES[user], GUILD_ID, CHANNEL_ID, INSTANCE, h.now[0] + 3600)
            token = activity.server.keys.mint(session)
            socket = await stack.enter_async_context(client.ws_connect(f"ws://127.0.0.1:{edge.target}/api/ws"))
            await socket.send_str(json.dumps({"t": "hello", "session": token, "instance": INSTANCE, "locale": "en"}))
            assert json.loads(await socket.receive_str(timeout=30))["t"] == "hello"
            page = Page(socket, user)
            await page.until(lambda state: True, 30)
            return page

        yield open_page
    finally:
        await stack.aclose()  # (the pages first, then the server)
        await activity.close()
    assert activity.server.refused == []


@pytest.fixture
async def opened(harness: Harness) -> AsyncIterator[Callable[[int], Awaitable[Page]]]:
    async with activity_pages(harness) as open_page:
        yield open_page


async def test_three_players_race_a_party_that_a_spectator_watches_to_its_podium(harness: Harness, opened) -> None:
    h = harness
    ana, bo, cy, dee = [await opened(user) for user in (ANA, BO, CY, DEE)]
    started = await ana.ask(t="party", options={"code": kings_and_pairs().code})
    assert started["words"] == [] and started["party"]["phase"] == "gathering"
    assert [r["name"] for r in started["party"]["racers"]] == ["Ana"]
    for page in (bo, cy):
        joined = await page.ask(t="join")
        assert page.user in [int(r["id"]) for r in joined["party"]["racers"]]
    gathering = await dee.until(lambda s: len((s["party"] or {}).get("racers", ())) == 3)
    assert gathering["party"]["starts_in"] == pytest.approx(COUNTDOWN, abs=0.5)
    h.now[0] += COUNTDOWN
    racing = await dee.ask(t="look")
    assert racing["party"]["phase"] == "racing"
    assert {r["name"] for r in racing["party"]["rivals"]} == {"Ana", "Bo", "Cy"}
    late = await dee.ask(t="join")
    assert late["words"] == [t("en", "party.running")]
    boards = {}
    for page in (ana, bo, cy):
        state = await page.ask(t="look")
        assert state["you"]["plays"] and state["game"]["pyramid"][21]["card"] == "K♠"
        boards[page.user] = state["game"]["id"]
    assert len(set(boards.values())) == 3  # a board each, the same cards
    assert racing["game"] is None or racing["game"]["id"] not in boards.values()  # the spectator sees no board

    taps = clear_kings_and_pairs_taps()
    for spot in taps[:6]:
        moved = await bo.ask(t="tap", spot=str(spot), version=int(bo.last["game"]["version"]))
        assert moved["game"]["id"] == boards[BO]
    expected = removed_of(bo.last, BO)
    assert expected is not None and expected > 0
    for page in (ana, cy, dee):  # every rival's page, at once
        await page.until(lambda s: removed_of(s, BO) == expected, RIVAL_BOUND)
        rivals = [r["id"] for r in page.last["party"]["rivals"]]
        assert str(BO) in rivals

    await cy.socket.close()  # Cy closes the page mid-race, and comes back
    cy = await opened(CY)
    back = await cy.ask(t="look")
    assert back["game"]["id"] == boards[CY] and back["you"]["plays"]
    gave_up = await cy.ask(t="end", version=int(back["game"]["version"]))
    assert gave_up["words"] == [t("en", "party.gave_up")]

    for spot in taps:
        await ana.ask(t="tap", spot=str(spot), version=int(ana.last["game"]["version"]))
    assert ana.last["game"]["finished"]
    for spot in taps[6:]:
        await bo.ask(t="tap", spot=str(spot), version=int(bo.last["game"]["version"]))
    over = await dee.until(lambda s: (s["party"] or {}).get("phase") == "over", 3.0)
    podium = [(r["place"], r["name"]) for r in over["party"]["rivals"]]
    assert podium[0] == (1, "Ana") and over["party"]["winner"] == str(ANA)
    assert [name for _place, name in podium] == ["Ana", "Bo", "Cy"]
    stats = await h.storage.race_stats(GUILD_ID, ANA)
    assert (stats.played, stats.won) == (1, 1)
    # The channel was told: a message at the start, the race's scoreboard since, and the podium's picture.
    async with asyncio.timeout(5):
        while not any(sent.files for sent in posts(h)):
            await asyncio.sleep(0.05)
    first, *_, last = posts(h)
    assert "Party race" in first.data["content"] and "Ana" in first.data["content"]
    race = await h.bot.races.race_of_game(boards[ANA])
    assert race is not None and race.message_id in h.hub.messages  # (edited by the race scoreboards since)
    assert [name for name, _png in last.files] == ["podium.png"] and last.data["content"].startswith("1. Ana")
    # Over, everyone is back at the table under the podium: a racer's deal is the channel's game, not their seat's.
    dealt = await ana.ask(t="deal", options={"code": kings_and_pairs().code})
    assert (
        dealt["game"] is not None and dealt["game"]["id"] not in boards.values() and dealt["party"]["phase"] == "over"
    )
    assert (await h.storage.game(dealt["game"]["id"])).channel_id == CHANNEL_ID


async def test_a_racers_move_on_another_process_reaches_the_rivals_page_on_the_first(
    postgres_url: str, workers: Workers
) -> None:
    """Two bots on one PostgreSQL database, as two processes of a cluster: one serves the party's pages, the
    other plays a racer's moves (its own ``Plays``, the race read from the database); each move reaches the
    rival's page on the first within RIVAL_BOUND, through the database's notices (LISTEN/NOTIFY)."""
    hub = Hub()
    serving = await Harness(postgres_url, hub, workers=workers).start()
    other = await Harness(postgres_url, hub, clock=serving.now, workers=workers).start()
    assert serving.bot is not None and other.bot is not None
    try:
        await asyncio.wait_for(asyncio.gather(serving.bot.changes.hearing.wait(), other.bot.changes.hearing.wait()), 5)
        async with activity_pages(serving) as opened:
            ana, bo = await opened(ANA), await opened(BO)
            await ana.ask(t="party", options={"code": kings_and_pairs().code})
            await bo.ask(t="join")
            serving.now[0] += COUNTDOWN
            assert (await ana.ask(t="look"))["party"]["phase"] == "racing"
            party = await other.bot.parties.state(INSTANCE)  # the same race, read on the other process
            racing = party.of(BO) if isinstance(party, Party) else None
            assert racing is not None
            for n, spot in enumerate(clear_kings_and_pairs_taps()[:3], start=1):
                press = Press(racing.seat, BO, "en", request=9_000 + n)
                async with other.bot.plays.play(press, lambda game, spot=spot: game.tap(spot)) as played:
                    assert isinstance(played, Played)
                    removed = played.live.game.removed
                await ana.until(lambda s, removed=removed: removed_of(s, BO) == removed, within=RIVAL_BOUND)
    finally:
        await other.stop()
        await serving.stop()
    assert hub.invalid == [], hub.invalid


async def test_a_racer_plays_todays_daily_in_its_seat_and_the_table_takes_them_back_to_the_race(
    harness: Harness, opened
) -> None:
    h = harness
    day = today(datetime.fromtimestamp(h.now[0], UTC))
    h.bot.dailies.codes[day] = kings_and_pairs().code
    ana, bo = await opened(ANA), await opened(BO)
    await ana.ask(t="party", options={"code": kings_and_pairs().code})
    await bo.ask(t="join")
    h.now[0] += COUNTDOWN
    race = (await ana.ask(t="look"))["game"]
    taps = clear_kings_and_pairs_taps()
    await ana.ask(t="tap", spot=str(taps[0]), version=int(race["version"]))

    daily = await ana.ask(t="daily")  # "Today's daily", mid-race: her attempt, in its seat
    assert daily["you"]["seat"] == "daily" and daily["game"]["id"] != race["id"]
    assert daily["party"]["phase"] == "racing"  # (the race shown beside it)
    played = await ana.ask(t="tap", spot=str(taps[0]), version=int(daily["game"]["version"]))
    assert played["game"]["id"] == daily["game"]["id"] and removed_of(played, ANA) == 1  # her daily's move only
    seat = Seat.daily(CHANNEL_ID, ANA, daily_number(day)).id
    assert (await h.storage.game(daily["game"]["id"])).channel_id == seat

    back = await ana.ask(t="table")  # back to the race, where she left it
    assert back["game"]["id"] == race["id"] and back["you"]["plays"]
    again = await ana.ask(t="daily")  # and to the attempt again: still open, nothing counted
    assert again["game"]["id"] == daily["game"]["id"] and not again["game"]["finished"]
    attempt = await h.storage.daily_attempt(day_key(day), ANA)
    assert attempt is not None and attempt.status is None and attempt.game_id == daily["game"]["id"]
