"""The Activity's HTTP server, in the bot's own process (aiohttp, as the health page): the page and its
modules, the card pictures, ``POST /api/token`` (sign-in) and ``/api/ws``, the one WebSocket a page keeps.

Every answer carries a Content-Security-Policy as strict as Discord's proxy (no inline script or style,
nothing from another origin). The socket's first message is ``hello`` with the session token; whatever
is wrong with it (missing, forged, expired, another instance's) closes the socket with a reason before
anything is read or stored, as does a malformed or oversized message or a flood.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from pyramide.i18n import language_for, rank_letters, t
from pyramide.render.faces import face_png
from pyramide.style import Style
from pyramide_service.server_settings import OUTSIDE_SERVERS

from .dealer import Dealer
from .playback import Playbacks
from .position import page_texts
from .presses import PagePresses, Reply
from .sessions import LIFETIME, BadSession, Session, SessionKeys
from .signin import DiscordSignIn, SignInRefused
from .viewers import Viewer, Viewers

log = logging.getLogger(__name__)
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'"
)
MAX_MESSAGE = 1024  # bytes a page's message may have (a move is under 100): more closes the socket
MAX_BODY = 4096  # bytes of a sign-in request
HELLO_WAIT = 10.0  # seconds a socket may stay silent before its hello
BURST, RATE = 20, 8.0  # a page's messages: a burst of 20, then 8 a second; more is a flood
CLOSE_SESSION = 4001  # the socket's session token is missing, forged, expired or another instance's
CLOSE_FLOOD = 4008
CLOSE_MALFORMED = 4003
# An activity instance's id as Discord gives it: it goes into a bot-token URL, so nothing else is let through
# (a path or a query in it would make the bot call a route the page chose).
INSTANCE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
WEB_FILES = {
    "index.html": "text/html",
    "app.js": "text/javascript",
    "table.js": "text/javascript",
    "link.js": "text/javascript",
    "deal.js": "text/javascript",
    "choices.js": "text/javascript",
    "playback.js": "text/javascript",
    "keys.js": "text/javascript",
    "announce.js": "text/javascript",
    "style.css": "text/css",
    "build/sdk.js": "text/javascript",
}


class Bucket:
    """A page's allowance of messages (a token bucket)."""

    def __init__(self) -> None:
        self.tokens, self.at = float(BURST), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.at) * RATE)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def _json(body: dict[str, Any], status: int = 200) -> web.Response:
    return web.Response(text=json.dumps(body, ensure_ascii=False), status=status, headers=_headers("application/json"))


def _headers(content_type: str) -> dict[str, str]:
    return {
        "Content-Type": content_type,
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-cache",
    }


class ActivityServer:
    def __init__(
        self, presses: PagePresses, signin: DiscordSignIn, keys: SessionKeys, web_root: Path, clock: Any
    ) -> None:
        self.presses = presses
        self.signin = signin
        self.keys = keys
        self.web_root = web_root
        self.clock = clock
        self.viewers = Viewers(presses, clock)
        self.dealer = Dealer(presses.bot, presses.names.get)
        self.playbacks = Playbacks(presses.bot)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        self.refused: list[str] = []  # why sockets and sign-ins were refused, for the tests

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_get("/", self._file)
        app.router.add_get("/api/ws", self._socket)
        app.router.add_post("/api/token", self._token)
        app.router.add_get("/api/config", self._config)
        app.router.add_get("/cards/{lang}/{style}/{name}.png", self._card)
        app.router.add_get("/{name:.+}", self._file)
        return app

    async def serve(self, port: int, host: str) -> int:
        self._runner = web.AppRunner(self.application(), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        addresses = self._runner.addresses
        self.port = int(addresses[0][1]) if addresses else port
        log.info("the Activity is served on http://%s:%d/", host, self.port)
        return self.port

    async def stop(self) -> None:
        await self.viewers.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ files
    async def _file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info.get("name", "index.html")
        kind = WEB_FILES.get(name)
        if kind is None:
            return web.Response(status=404, text="not found", headers=_headers("text/plain"))
        body = await asyncio.to_thread((self.web_root / name).read_bytes)
        return web.Response(body=body, headers=_headers(kind + "; charset=utf-8"))

    async def _card(self, request: web.Request) -> web.Response:
        """A card of a language and a style (``deck.corners.table``, the viewer's own); a style's first
        faces take about half a second to draw, off the event loop."""
        lang = language_for(request.match_info["lang"])
        try:
            style = Style.parse(*request.match_info["style"].split(".", 2))
            png = await asyncio.to_thread(face_png, request.match_info["name"], rank_letters(lang), style)
        except (ValueError, TypeError):
            return web.Response(status=404, text="not found", headers=_headers("text/plain"))
        headers = {**_headers("image/png"), "Cache-Control": "max-age=86400"}
        return web.Response(body=png, headers=headers)

    # ------------------------------------------------------------------ sign-in
    async def _config(self, request: web.Request) -> web.Response:
        """What the page needs before the SDK starts: the application's id (public, as in any invite link)."""
        body = {"client_id": str(self.signin.application_id)}
        return _json(body)

    async def _token(self, request: web.Request) -> web.Response:
        try:
            asked = await request.json()
            code, instance_id = asked["code"], asked["instance_id"]
            if not (
                isinstance(code, str)
                and isinstance(instance_id, str)
                and 0 < len(code) <= 200
                and INSTANCE_ID.fullmatch(instance_id) is not None
            ):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            self.refused.append("token:malformed")
            return _json({"refused": "malformed"}, status=400)
        lang = language_for(str(asked.get("locale") or ""))
        try:
            signed = await self.signin.sign_in(code, instance_id)
            if signed.guild_id is not None and self.presses.bot.get_guild(signed.guild_id) is None:
                # Only where the bot may edit the channel's board (a server it is in, or its DM with the
                # player, which the sign-in checked): see docs/activity.md.
                raise SignInRefused("not_here")
        except SignInRefused as refusal:
            # Answered 200: a refusal is an answer the page shows in words, not a failed request.
            self.refused.append(f"token:{refusal.reason}")
            return _json({"refused": refusal.reason, "message": t(lang, f"activity.refused.{refusal.reason}")})
        guild_id = signed.guild_id if signed.guild_id is not None else OUTSIDE_SERVERS
        expires = self.clock() + LIFETIME
        session = Session(signed.user_id, signed.name, guild_id, signed.channel_id, instance_id, expires)
        body = {"access_token": signed.access_token, "session": self.keys.mint(session)}
        return _json(body)

    # ------------------------------------------------------------------ the socket
    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=25)
        await socket.prepare(request)
        try:
            first = await socket.receive(timeout=HELLO_WAIT)
        except TimeoutError:
            await self._close(socket, CLOSE_MALFORMED, "no hello")
            return socket
        hello = _message(first)
        if hello is None or hello.get("t") != "hello":
            await self._close(socket, CLOSE_MALFORMED if first.type == WSMsgType.TEXT else 1009, "malformed")
            return socket
        try:
            session = self.keys.read(hello.get("session"), self.clock())
        except BadSession as bad:
            await self._close(socket, CLOSE_SESSION, bad.reason)
            return socket
        if hello.get("instance") != session.instance_id:
            await self._close(socket, CLOSE_SESSION, "another instance")
            return socket
        viewer = Viewer(socket, session, language_for(str(hello.get("locale") or "")))
        self.presses.names.put(session.user_id, session.name)
        self.viewers.join(viewer)
        try:
            await socket.send_str(json.dumps({"t": "hello", "texts": page_texts(viewer.lang)}, ensure_ascii=False))
            await self.viewers.send(session.channel_id, viewer)
            self.viewers.changed(session.channel_id)  # the others see who came
            await self._serve(viewer)
        finally:
            self.viewers.leave(viewer)
            self.viewers.changed(session.channel_id)
        return socket

    async def _close(self, socket: web.WebSocketResponse, code: int, reason: str) -> None:
        self.refused.append(f"socket:{reason}")
        await socket.close(code=code, message=reason.encode())

    async def _serve(self, viewer: Viewer) -> None:
        socket, bucket = viewer.socket, Bucket()
        while not socket.closed:
            received = await socket.receive()
            if received.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return
            if received.type == WSMsgType.ERROR:  # an oversized message: aiohttp has closed it (1009)
                self.refused.append("socket:oversized")
                return
            if self.clock() >= viewer.session.expires:  # a socket kept open lives no longer than its session
                await self._close(socket, CLOSE_SESSION, "expired")
                return
            if not bucket.take():
                await self._close(socket, CLOSE_FLOOD, "flood")
                return
            asked = _message(received)
            if asked is None:
                await self._close(socket, CLOSE_MALFORMED, "malformed")
                return
            reply = await self._act(viewer, asked)
            await self.viewers.send(viewer.session.channel_id, viewer, reply)

    async def _act(self, viewer: Viewer, asked: dict[str, Any]) -> Reply:
        presses, session, lang = self.presses, viewer.session, viewer.lang
        kind, version = asked.get("t"), asked.get("version")
        if kind == "look":
            return Reply()
        if kind in ("tap", "undo", "hint", "end") and not isinstance(version, int):
            return Reply([t(lang, "error.stale_board")], stale=True)
        assert version is None or isinstance(version, int)
        if kind == "tap" and isinstance(asked.get("spot"), str):
            return await presses.move(session, asked["spot"], version or 0, lang)
        if kind == "undo":
            return await presses.move(session, "undo", version or 0, lang)
        if kind == "hint":
            return await presses.hint(session, version or 0, lang)
        if kind == "end":
            return await presses.end(session, version or 0, lang)
        if kind == "deal" and isinstance(asked.get("options"), dict):
            return await self.dealer.deal(session, asked["options"], lang, presses.manages(session))
        if kind in ("line", "mine") and isinstance(asked.get("game"), int):
            return await self.playbacks.show(session, kind, asked["game"], lang)
        return Reply([t(lang, "effect.nothing_to_do")])


def _message(received: Any) -> dict[str, Any] | None:
    if received.type != WSMsgType.TEXT:
        return None
    try:
        message = json.loads(received.data)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
