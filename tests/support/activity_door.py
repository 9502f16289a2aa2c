"""A client of the Activity's door for tests/test_activity_door.py: sockets with a session minted as the
sign-in mints them, sign-ins from an address, what the server answers and how it closes, and a page that
stops reading."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp

from pyramide import Game
from pyramide_bot.activity import Activity, Limits
from pyramide_bot.activity.sessions import Session, SessionKeys
from tests.support.activity_edge import ActivityEdge, serve_activity
from tests.support.deals import kings_and_pairs
from tests.support.fake_activity import CLIENT_SECRET, ActivityDiscord
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, STRANGER, Harness
from tests.support.manager_turns import deal

WAIT = 5.0  # seconds anything the server does at once may take on a busy machine


@dataclass
class Door:
    h: Harness
    edge: ActivityEdge
    activity: Activity
    client: aiohttp.ClientSession

    @property
    def discord(self) -> ActivityDiscord:
        return self.edge.discord

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.activity.server.port}"

    @property
    def instance_id(self) -> str:
        return self.discord.instance(GUILD_ID, CHANNEL_ID, OWNER, STRANGER).instance_id

    def token(
        self, user: int = OWNER, instance_id: str | None = None, seconds: float = 3600, channel_id: int = CHANNEL_ID
    ) -> str:
        instance_id = instance_id or self.instance_id
        session = Session(user, "Ana", GUILD_ID, channel_id, instance_id, self.h.now[0] + seconds)
        return SessionKeys(CLIENT_SECRET).mint(session)

    async def socket(self, token: str | None = None, instance_id: str | None = None) -> aiohttp.ClientWebSocketResponse:
        ws = await self.client.ws_connect(f"{self.url}/api/ws")
        hello = {"t": "hello", "session": token or self.token(), "instance": instance_id or self.instance_id}
        await ws.send_str(json.dumps({**hello, "locale": "en-US"}))
        return ws

    async def playing(self, token: str | None = None) -> aiohttp.ClientWebSocketResponse:
        """A signed-in socket, past its hello and first position."""
        ws = await self.socket(token)
        assert (await received(ws))["t"] == "hello"
        assert (await received(ws))["t"] == "state"
        return ws

    async def dealt(self, game: Game | None = None) -> aiohttp.ClientWebSocketResponse:
        """A socket of the player, on a game of theirs just dealt in the channel."""
        assert self.h.bot is not None
        game = game or kings_and_pairs()
        await deal(self.h.bot.manager, guild_id=GUILD_ID, channel_id=CHANNEL_ID, owner_id=OWNER, game=game)
        return await self.playing()

    async def exchange(self, address: str = "203.0.113.1", **body: Any) -> tuple[int, dict[str, Any], Any]:
        asked = {"code": "junk", "instance_id": self.instance_id, **body}
        headers = {"X-Forwarded-For": address}
        async with self.client.post(f"{self.url}/api/token", json=asked, headers=headers) as answer:
            return answer.status, await answer.json(), answer.headers


@contextlib.asynccontextmanager
async def door_of(h: Harness, limits: Limits) -> AsyncIterator[Door]:
    """A fresh Activity (its allowances full) of the harness's bot, behind a Discord on the test's clock."""
    edge = await ActivityEdge(ActivityDiscord(instances=h.hub.activity_instances)).start()
    edge.discord.clock = lambda: h.now[0]  # Discord's rate limits on the test's clock, as the bot's
    activity = await serve_activity(h, edge, limits)
    client = aiohttp.ClientSession()
    try:
        yield Door(h, edge, activity, client)
    finally:
        await client.close()
        await activity.close()
        await edge.stop()


async def received(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    message = await ws.receive(timeout=WAIT)
    assert message.type == aiohttp.WSMsgType.TEXT, (message.type, message.data, message.extra)
    return dict(json.loads(message.data))


async def answer(ws: aiohttp.ClientWebSocketResponse, asked: dict[str, Any] | str) -> dict[str, Any]:
    """The state that answers ``asked`` (the first one carrying words)."""
    await ws.send_str(asked if isinstance(asked, str) else json.dumps(asked))
    while True:
        state = await received(ws)
        if "words" in state:
            return state


async def closed(ws: aiohttp.ClientWebSocketResponse, within: float = WAIT) -> tuple[int | None, str]:
    while True:
        message = await ws.receive(timeout=within)
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
            return ws.close_code, str(message.extra or "")


async def stalled_socket(door: Door) -> socket.socket:
    """A page that signs in, then never reads again (a tiny receive buffer, so the server feels it)."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.setblocking(False)
    loop = asyncio.get_running_loop()
    await loop.sock_connect(raw, ("127.0.0.1", door.activity.server.port))
    handshake = (
        "GET /api/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    await loop.sock_sendall(raw, handshake.encode())
    hello = json.dumps({"t": "hello", "session": door.token(), "instance": door.instance_id}).encode()
    mask = b"\x01\x02\x03\x04"
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(hello))
    assert len(hello) < 65536
    frame = bytes([0x81, 0x80 | 126]) + len(hello).to_bytes(2, "big") + mask + masked
    await loop.sock_sendall(raw, frame)
    return raw
