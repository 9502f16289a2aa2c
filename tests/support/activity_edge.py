"""Discord's edge of an Activity for the browser tests, on 127.0.0.1:

- ``frame``: the Activity's origin as Discord's proxy serves it (``<app>.discordsays.com``): every path is
  passed on to the bot's Activity server (HTTP and the WebSocket), except ``/parent/``, the test's Discord
  client page (``tests/support/activity_parent/``) that frames the Activity and speaks the SDK's protocol. Both
  are served with Discord's Content-Security-Policy. The bot may restart behind it (``target``). The URL
  mapping ``/discord/api`` (docs/activity.md) is Discord's API itself: the page's upload of a podium picture.
- ``api``: Discord's REST for the sign-in (``tests/support/fake_activity.py``), the ``DISCORD_API_BASE`` of the
  Activity under test.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from aiohttp import WSMsgType, web

from pyramide_bot.activity import Activity, Limits
from pyramide_bot.settings import ActivitySettings
from tests.support.fake_activity import (
    ATTACHMENT_LIMIT,
    BOT_TOKEN,
    CLIENT_SECRET,
    ActivityDiscord,
    retry_after_header,
)
from tests.support.harness import APP_ID, Harness

PARENT = Path(__file__).resolve().parent / "activity_parent"
# Discord's proxy allows only the page's own origin; nothing inline.
DISCORD_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; media-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'self'"
)
PARENT_FILES = {"parent.html": "text/html", "parent.js": "text/javascript", "parent.css": "text/css"}
ACTIVITY_ORIGIN = f"https://{APP_ID}.discordsays.com"  # the origin this edge stands for
HOP = {"connection", "keep-alive", "transfer-encoding", "upgrade", "content-length", "content-encoding"}


class ActivityEdge:
    def __init__(self, discord: ActivityDiscord | None = None) -> None:
        self.discord = discord or ActivityDiscord()
        self.target = 0  # the bot's Activity port
        self.frame_port = 0
        self.api_port = 0
        self._runners: list[web.AppRunner] = []
        self._client: aiohttp.ClientSession | None = None
        self.sockets: set[web.WebSocketResponse] = set()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.frame_port}"

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.api_port}/api/v10"

    async def start(self) -> ActivityEdge:
        self._client = aiohttp.ClientSession(auto_decompress=False)
        # (a body up to twice an attachment's bound reaches Discord's answer: the fake refuses a file too large)
        frame = web.Application(middlewares=[_discord_csp], client_max_size=2 * ATTACHMENT_LIMIT)
        frame.router.add_get("/parent/{name}", self._parent)
        frame.router.add_route("*", "/discord/api/v10/{path:.*}", self._api)  # (the URL mapping /discord/api)
        frame.router.add_route("*", "/{path:.*}", self._pass_on)
        api = web.Application()
        api.router.add_route("*", "/api/v10/{path:.*}", self._api)
        self.frame_port = await self._serve(frame)
        self.api_port = await self._serve(api)
        return self

    async def _serve(self, app: web.Application) -> int:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runners.append(runner)
        return int(runner.addresses[0][1])

    async def stop(self) -> None:
        for socket in list(self.sockets):
            await socket.close()
        for runner in self._runners:
            await runner.cleanup()
        if self._client is not None:
            await self._client.close()

    def parent_url(self, **query: str | int) -> str:
        return f"{self.origin}/parent/parent.html?{urlencode({k: str(v) for k, v in query.items()})}"

    async def _parent(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in PARENT_FILES:
            raise web.HTTPNotFound()
        return web.Response(body=(PARENT / name).read_bytes(), content_type=PARENT_FILES[name], charset="utf-8")

    async def _api(self, request: web.Request) -> web.Response:
        answered = self.discord.answer(
            request.method, "/" + request.match_info["path"], dict(request.headers), await request.read()
        )
        if answered is None:
            return web.json_response({"message": "404: Not Found", "code": 0}, status=404)
        status, body = answered
        return web.json_response(body, status=status, headers=retry_after_header(status, body))

    async def _pass_on(self, request: web.Request) -> web.StreamResponse:
        url = f"http://127.0.0.1:{self.target}{request.rel_url}"
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._pass_socket(request, url.replace("http://", "ws://", 1))
        assert self._client is not None
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP and k.lower() != "host"}
        if headers.get("Origin") == self.origin:  # the page's origin is the Activity's, as under Discord
            headers["Origin"] = ACTIVITY_ORIGIN
        try:
            async with self._client.request(
                request.method, url, headers=headers, data=await request.read(), allow_redirects=False
            ) as answer:
                body = await answer.read()
                kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP}
                return web.Response(status=answer.status, body=body, headers=kept)
        except aiohttp.ClientConnectionError:
            return web.Response(status=502, text="the Activity's server is not answering")

    async def _pass_socket(self, request: web.Request, url: str) -> web.StreamResponse:
        """The WebSocket, frame by frame both ways; a close on either side closes the other with its code."""
        assert self._client is not None
        upstream = None
        for _ in range(300):  # a bot restarting behind the edge: held for up to 30 s, as a proxy retrying
            try:
                upstream = await self._client.ws_connect(url, max_msg_size=0)
                break
            except aiohttp.ClientError:
                await asyncio.sleep(0.1)
                url = f"ws://127.0.0.1:{self.target}{request.rel_url}"
        if upstream is None:
            return web.Response(status=502, text="the Activity's server is not answering")
        page = web.WebSocketResponse(max_msg_size=0)
        await page.prepare(request)
        self.sockets.add(page)

        async def down() -> None:
            reason = ""
            while True:
                message = await upstream.receive()
                if message.type == WSMsgType.TEXT:
                    await page.send_str(message.data)
                elif message.type == WSMsgType.BINARY:
                    await page.send_bytes(message.data)
                else:
                    reason = message.extra if message.type == WSMsgType.CLOSE and message.extra else ""
                    break
            # 1006 (the server went away) cannot be sent in a close frame: the page sees the server leave.
            code = upstream.close_code if upstream.close_code not in (None, 1006) else 1011
            await page.close(code=code, message=str(reason).encode())

        task = asyncio.create_task(down())
        try:
            async for message in page:
                if message.type == WSMsgType.TEXT:
                    await upstream.send_str(message.data)
                elif message.type == WSMsgType.BINARY:
                    await upstream.send_bytes(message.data)
        finally:
            await upstream.close()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, 2)
            self.sockets.discard(page)
        return page


@web.middleware
async def _discord_csp(request: web.Request, handler: web.RequestHandler) -> web.StreamResponse:
    response = await handler(request)
    if not isinstance(response, web.WebSocketResponse):
        response.headers["Content-Security-Policy"] = DISCORD_CSP
    return response


# The browser tests sign in and deal far more often than a player, on a clock that stands still: their
# allowances are unbounded (tests/test_activity_door.py tests each bound).
ROOMY = Limits(signin_burst=10**6, overall_burst=10**6, deals=(10**6, 1.0), hints=(10**6, 1.0), playbacks=(10**6, 1.0))


@dataclass
class NoProxy:
    """No proxy in front: a page speaks to the bot's port (``target``) itself, its session minted by the
    test; the bot's own calls to Discord (the instance look-ups) go to a port of this machine where nothing
    listens and are refused at once (Discord not answering, which the bot rides out: the player plays on),
    so no request ever leaves the machine."""

    api_base: str = "http://127.0.0.1:9/api/v10"
    target: int = 0


async def serve_activity(h: Harness, edge: ActivityEdge | NoProxy, limits: Limits = ROOMY) -> Activity:
    """The harness's bot serves the Activity behind ``edge`` (Discord's proxy), signing in against it."""
    assert h.bot is not None
    activity = Activity(
        h.bot,
        ActivitySettings(0, CLIENT_SECRET),
        application_id=APP_ID,
        bot_token=BOT_TOKEN,
        api_base=edge.api_base,
        clock=lambda: h.now[0],
        limits=limits,
    )
    edge.target = await activity.start()
    return activity
