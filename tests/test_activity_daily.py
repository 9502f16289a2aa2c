"""Today's daily in the Activity, spoken to as two pages of one instance speak to it (no browser: aiohttp's
WebSocket client, sessions minted as the sign-in mints them), in front of the real bot (tests/harness.py):
the player's one counted attempt played in their seat, the other page shown how far it is and never a
card, the attempt counted once and refused a second time on the page and on the board, the month's picture."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import aiohttp

from pyramide.daily import daily_number, day_key, today
from pyramide.i18n import t
from pyramide_bot.activity.sessions import Session
from pyramide_discord.words import share_text
from pyramide_service.seats import Seat
from pyramide_service.storage import WON
from tests.support.activity_edge import ROOMY, NoProxy, serve_activity
from tests.support.deals import clear_kings_and_pairs_taps, kings_and_pairs
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, STRANGER, Harness

INSTANCE = "i-daily-test"


class Socket:
    """One page: ``ask`` sends a message and reads up to its answer; every message it got is in ``seen``."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket, self.seen = socket, []

    async def read(self) -> dict[str, Any]:
        text = await self.socket.receive_str(timeout=30)
        self.seen.append(text)
        return json.loads(text)

    async def ask(self, **message: Any) -> dict[str, Any]:
        await self.socket.send_str(json.dumps(message))
        return await self.until(lambda state: "words" in state)  # (not a broadcast of a change)

    async def until(self, check: Any) -> dict[str, Any]:
        """The first message that passes ``check``, within 30 s in all (the server's pings, every 25 s, keep
        each single read from timing out: a page that is never sent what it waits for fails, not hangs)."""
        async with asyncio.timeout(30):
            while not check(state := await self.read()):
                pass
        return state


@asynccontextmanager
async def pages(h: Harness, *players: tuple[int, str]) -> AsyncIterator[list[Socket]]:
    edge = NoProxy()
    activity = await serve_activity(h, edge, replace(ROOMY, burst=1000))  # (a whole game's taps)
    try:
        async with aiohttp.ClientSession() as client:
            opened = []
            for user, name in players:
                token = activity.server.keys.mint(Session(user, name, GUILD_ID, CHANNEL_ID, INSTANCE, h.now[0] + 3600))
                socket = await client.ws_connect(f"ws://127.0.0.1:{edge.target}/api/ws")
                await socket.send_str(json.dumps({"t": "hello", "session": token, "instance": INSTANCE}))
                page = Socket(socket)
                assert (await page.read())["t"] == "hello" and (await page.read())["t"] == "state"
                opened.append(page)
            yield opened
            for page in opened:
                assert not page.socket.closed
                await page.socket.close()
    finally:
        await activity.close()
    assert activity.server.refused == []


async def test_the_daily_is_played_in_the_players_seat_counted_once_and_the_others_see_only_how_far(harness):
    h = harness
    day = today(datetime.fromtimestamp(h.now[0], UTC))
    key, number = day_key(day), daily_number(day)
    deal = kings_and_pairs()
    h.bot.dailies.codes[day] = deal.code  # (today's deal, known to the test: its winning taps)
    async with pages(h, (OWNER, "Ana"), (STRANGER, "Bo")) as (ana, bo):
        answer = await ana.ask(t="daily")
        assert answer["words"] == [t("en", "daily.title", number=number)] and answer["you"]["seat"] == "daily"
        game = answer["game"]
        seat = Seat.daily(CHANNEL_ID, OWNER, number).id
        record = await h.storage.game(game["id"])
        assert record.channel_id == seat and record.message_id is None and record.guild_id == GUILD_ID
        assert game["code"] != deal.code  # no peeking: the code waits until the attempt is finished
        watched = await bo.until(lambda state: state.get("seats"))
        assert watched["seats"] == [{"id": str(OWNER), "name": "Ana", "kind": "daily", "removed": 0, "finished": False}]
        assert watched["game"] is None and watched["you"]["seat"] is None  # Bo's table: the channel's, empty
        taps = clear_kings_and_pairs_taps()
        version = game["version"]
        for spot in taps[:3]:
            version = (await ana.ask(t="tap", spot=str(spot), version=version))["game"]["version"]
        removed = 28 - sum(card is not None for card in (await h.bot.manager.snapshot(seat)).game.pyramid)
        assert removed > 0
        assert (await bo.until(lambda state: state["seats"] and state["seats"][0]["removed"] == removed))[
            "game"
        ] is None
        for spot in taps[3:]:
            answer = await ana.ask(t="tap", spot=str(spot), version=version)
            version = answer["game"]["version"]
        finished = answer["game"]
        assert finished["finished"] and finished["status"] == WON and finished["code"] == deal.code
        attempt = await h.storage.daily_attempt(key, OWNER)
        record = await h.storage.game(finished["id"])
        assert attempt.status == WON and attempt.game_id == record.id
        assert finished["offers"]["share"] == share_text(record, attempt.picture, "en", h.bot.solver)
        assert (await bo.until(lambda state: state["seats"] and state["seats"][0]["finished"]))["seats"][0][
            "removed"
        ] == 28
        # One attempt: refused a second time on the page, back at the table, and on the board.
        assert (await ana.ask(t="table"))["you"]["seat"] is None
        again = await ana.ask(t="daily")
        assert again["you"]["seat"] is None and again["words"][0].startswith(t("en", "daily.done", number=number))
        assert [row.status for row in await h.storage.results(GUILD_ID, OWNER)] == [WON]
        # Bo's attempt opened on the board first (a thread of its own): the page refuses a second one in the
        # board's words, and Bo stays at the table.
        await h.command("daily play", user=STRANGER)
        refused = await bo.ask(t="daily")
        assert refused["words"] == [t("en", "daily.waiting_server", number=number)] and refused["you"]["seat"] is None
        # The month's picture, one tap away.
        await ana.ask(t="month")
        month = next(json.loads(text) for text in ana.seen if json.loads(text)["t"] == "month")
        assert month["png"].startswith("data:image/png;base64,iVBOR") and month["alt"]
    sent = await h.command("daily play", user=OWNER)  # and on the board
    assert t("en", "daily.done", number=number) in sent[-1].content
    # Bo was never sent a card of Ana's daily, nor its code.
    cards = {card["card"] for card in game["pyramid"] if card}
    for text in bo.seen:
        message = json.loads(text)
        assert message.get("game") is None and deal.code not in text
        assert not any(f'"card": "{card}"' in text for card in cards)
