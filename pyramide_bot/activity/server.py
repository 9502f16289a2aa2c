"""The Activity's HTTP server, in the bot's own process (aiohttp, as the health page): the page and its
modules, the card pictures, ``POST /api/token`` (sign-in) and ``/api/ws``, the one WebSocket a page keeps.

Every answer, aiohttp's own error pages included, carries a Content-Security-Policy as strict as Discord's
proxy (no inline script or style, nothing from another origin, framed by Discord only), and what carries a
token is never stored by a cache. The socket's first message is ``hello`` with the session token, within
``hello_wait`` seconds whatever else arrives; whatever is wrong with it (missing, forged, expired, another
instance's, a player removed since) closes the socket with a reason before anything is read or stored. Every
later message is checked against the page's schema (``messages.py``): one outside it is refused in words
and the socket stays open; a message that is no JSON object, an oversized one or a flood closes it. Every
bound is in ``limits.py`` and docs/activity.md.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from pyramide.i18n import language_for, rank_letters, t
from pyramide.render.faces import face_png
from pyramide.style import Style
from pyramide_service import StorageUnavailable
from pyramide_service.server_settings import OUTSIDE_SERVERS
from pyramide_service.tasks import Supervised

from . import daily
from .dealer import Dealer
from .door import Costs, client_address
from .limits import Bucket, Limits
from .messages import Malformed, checked, loads, sign_in
from .party import PartyDesk
from .playback import Playbacks
from .position import page_texts
from .presses import PagePresses, Reply
from .responses import CARD, WEB_FILES, file_headers, json_answer, secure
from .rights import Rights
from .sessions import LIFETIME, BadSession, Session, SessionKeys
from .signin import Busy, DiscordSignIn, SignInRefused
from .viewers import Viewer, Viewers, close

log = logging.getLogger(__name__)
MAX_MESSAGE = 1024  # bytes a page's message may have (a move is under 100): more closes the socket
MAX_BODY = 4096  # bytes of a sign-in request
BURST, RATE = Limits.burst, Limits.rate  # a page's messages: a burst, then so many a second; more is a flood
CLOSE_SESSION = 4001  # the socket's session token is missing, forged, expired or another instance's
CLOSE_FLOOD = 4008
CLOSE_MALFORMED = 4003
CLOSE_FULL = 1013  # too many sockets (of the player, or of all): try again later
KEPT = 256  # refusals remembered (the latest)


class ActivityServer:
    def __init__(
        self,
        presses: PagePresses,
        signin: DiscordSignIn,
        keys: SessionKeys,
        web_root: Path,
        clock: Any,
        limits: Limits = Limits(),
        origins: tuple[str, ...] = (),
    ) -> None:
        self.presses = presses
        self.signin = signin
        self.keys = keys
        self.web_root = web_root
        self.clock = clock
        self.limits = limits
        # where a sign-in may be posted from: the Activity's own origin under Discord's proxy (and the tests')
        self.origins = frozenset({f"https://{signin.application_id}.discordsays.com", *origins})
        self.viewers = Viewers(presses, clock, limits.backlog)
        self.rights = Rights(signin, clock, limits)
        self.costs = Costs(limits, clock)
        self.dealer = Dealer(presses.bot, presses.names.get)
        self.playbacks = Playbacks(presses.bot)
        self.party = PartyDesk(presses.bot, self.dealer, clock, self.viewers.changed)  # the party race (#48)
        self.viewers.party = self.party  # (closed with the viewers)
        self.daily = daily.PageDaily(presses.bot, self.viewers)  # today's daily, in the player's seat
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        self.pending = 0  # sockets open that have not signed in
        self._watches = Supervised("activity sessions")  # each socket's watch over its session (kept, watched)
        self._unchecked = False  # the last check of a right to play failed (logged once until one succeeds)
        self.refused: list[str] = []  # why sockets and sign-ins were refused, the latest ones (for the tests)

    def _note(self, why: str) -> None:
        self.refused.append(why)
        if len(self.refused) > 2 * KEPT:
            del self.refused[:-KEPT]

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        app.on_response_prepare.append(secure)
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
        await self._watches.close()
        await self.viewers.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------------ files
    async def _file(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info.get("name", "index.html")
        kind = WEB_FILES.get(name)
        if kind is None:
            return web.Response(status=404, text="not found", headers=file_headers("text/plain"))
        body = await asyncio.to_thread((self.web_root / name).read_bytes)
        return web.Response(body=body, headers=file_headers(kind + "; charset=utf-8"))

    async def _card(self, request: web.Request) -> web.Response:
        """A card of a language and a style (``deck.corners.table``, the viewer's own); a style's first
        faces take about half a second to draw, off the event loop."""
        lang = language_for(request.match_info["lang"])
        name = request.match_info["name"]
        try:
            if CARD.fullmatch(name) is None:
                raise ValueError(name[:20])
            style = Style.parse(*request.match_info["style"].split(".", 2))
            png = await asyncio.to_thread(face_png, name, rank_letters(lang), style)
        except (ValueError, TypeError):
            return web.Response(status=404, text="not found", headers=file_headers("text/plain"))
        headers = {**file_headers("image/png"), "Cache-Control": "max-age=86400"}
        return web.Response(body=png, headers=headers)

    # ------------------------------------------------------------------ sign-in
    async def _config(self, request: web.Request) -> web.Response:
        """What the page needs before the SDK starts: the application's id (public, as in any invite link)."""
        body = {"client_id": str(self.signin.application_id)}
        return json_answer(body)

    def _refuse(self, why: str, status: int = 400) -> web.Response:
        self._note(f"token:{why}")
        return json_answer({"refused": "malformed"}, status=status)

    async def _token(self, request: web.Request) -> web.Response:
        # A JSON body only, from the Activity's own origin: a form another site's page posts is no sign-in.
        if request.content_type != "application/json":
            return self._refuse("content type", 415)
        origin = request.headers.get("Origin")
        if origin is not None and origin not in self.origins:
            return self._refuse("origin", 403)
        try:
            asked = sign_in(loads(await request.read()))
        except Malformed:
            return self._refuse("malformed")
        except web.HTTPRequestEntityTooLarge:
            return self._refuse("too large", 413)
        code, instance_id = asked["code"], asked["instance_id"]
        lang = language_for(str(asked.get("locale") or ""))
        try:
            self.signin.admit(client_address(request, self.limits.proxies))
            signed = await self.signin.sign_in(code, instance_id)
            if signed.guild_id is not None and self.presses.bot.get_guild(signed.guild_id) is None:
                # Only where the bot may edit the channel's board (a server it is in, or its DM with the
                # player, which the sign-in checked): see docs/activity.md.
                raise SignInRefused("not_here")
        except Busy as busy:
            self._note("token:busy")
            seconds = busy.retry_after
            words = t(lang, "activity.refused.busy", seconds=seconds)
            body = {"refused": "busy", "retry_after": seconds, "message": words}
            return json_answer(body, status=429, headers={"Retry-After": str(seconds)})
        except SignInRefused as refusal:
            # Answered 200: a refusal is an answer the page shows in words, not a failed request.
            self._note(f"token:{refusal.reason}")
            return json_answer({"refused": refusal.reason, "message": t(lang, f"activity.refused.{refusal.reason}")})
        self.rights.signed_in(instance_id, signed.user_id)
        guild_id = signed.guild_id if signed.guild_id is not None else OUTSIDE_SERVERS
        expires = self.clock() + LIFETIME
        session = Session(signed.user_id, signed.name, guild_id, signed.channel_id, instance_id, expires)
        body = {"access_token": signed.access_token, "session": self.keys.mint(session)}
        return json_answer(body)

    # ------------------------------------------------------------------ the socket
    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if self.pending >= self.limits.pending or self.viewers.count >= self.limits.sockets:
            self._note("socket:full")
            return web.Response(status=503, text="busy", headers={**file_headers("text/plain"), "Retry-After": "5"})
        socket = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=25)
        await socket.prepare(request)
        self.pending += 1
        try:
            hello = await self._hello(socket)
        finally:
            self.pending -= 1
        if hello is None:
            return socket
        session, lang = hello
        viewer = Viewer(socket, session, lang, transport=request.transport)
        self.presses.names.put(session.user_id, session.name)
        self.viewers.join(viewer)
        watch = self._watches.spawn(self._watch(viewer), f"session of {session.user_id}")
        try:
            self.viewers.post(viewer, json.dumps({"t": "hello", "texts": page_texts(lang)}, ensure_ascii=False))
            await self.viewers.show(viewer)
            self.viewers.changed(session.channel_id)  # the others see who came
            await self._serve(viewer)
        finally:
            watch.cancel()
            self.viewers.leave(viewer)
            self.viewers.changed(session.channel_id)
        return socket

    async def _hello(self, socket: web.WebSocketResponse) -> tuple[Session, str] | None:
        """The socket's session, from a hello within ``hello_wait`` seconds (pings do not extend it)."""
        try:
            async with asyncio.timeout(self.limits.hello_wait):
                first = await socket.receive()
        except TimeoutError:
            await self._close(socket, CLOSE_MALFORMED, "no hello")
            return None
        try:
            if first.type != WSMsgType.TEXT:
                raise Malformed("not text")
            hello = checked(loads(first.data))
            if hello["t"] != "hello":
                raise Malformed("not a hello")
        except Malformed:
            await self._close(socket, CLOSE_MALFORMED if first.type == WSMsgType.TEXT else 1009, "malformed")
            return None
        try:
            session = self.keys.read(hello["session"], self.clock())
        except BadSession as bad:
            await self._close(socket, CLOSE_SESSION, bad.reason)
            return None
        lang = language_for(str(hello.get("locale") or ""))
        if hello["instance"] != session.instance_id:
            await self._close(socket, CLOSE_SESSION, "another instance")
            return None
        if not await self.rights.still_in(session):
            await self._close(socket, CLOSE_SESSION, "left", t(lang, "activity.refused.not_in_instance"))
            return None
        same = [v for v in self.viewers.of_user(session.user_id) if v.session.instance_id == session.instance_id]
        if len(same) >= self.limits.per_session or len(self.viewers.of_user(session.user_id)) >= self.limits.per_user:
            await self._close(socket, CLOSE_FULL, "too many", t(lang, "activity.too_many_pages"))
            return None
        return session, lang

    async def _close(self, socket: web.WebSocketResponse, code: int, reason: str, words: str = "") -> None:
        self._note(f"socket:{reason}")
        await socket.close(code=code, message=(words or reason).encode()[:123])

    async def _watch(self, viewer: Viewer) -> None:
        """Close the socket when its session expires, or once Discord or the bot's membership says the
        player lost the right to play (asked at most every ``recheck`` seconds), even if it stays silent."""
        session = viewer.session
        while not viewer.socket.closed:
            left = session.expires - self.clock()
            await asyncio.sleep(max(0.01, min(self.limits.recheck, left)))
            if self.clock() >= session.expires:  # a socket kept open lives no longer than its session
                viewer.refused = True
                await self._close(viewer.socket, CLOSE_SESSION, "expired")
                return
            try:
                still_in = await self.rights.still_in(session, queue=True)
            except Exception as error:  # the watch goes on (expiry, the next check): a failure is no refusal
                if not self._unchecked:
                    why = f"{type(error).__name__}: {error}"
                    log.warning("an Activity player's right to play could not be checked (%s): asked again", why)
                self._unchecked = True
                continue
            self._unchecked = False
            if not still_in:
                await self._withdraw(viewer, "left")
                return

    async def _withdraw(self, viewer: Viewer, why: str) -> None:
        viewer.refused = True  # (before the close: a message read meanwhile is not acted on)
        self._note(f"socket:{why}")
        await close(viewer, CLOSE_SESSION, t(viewer.lang, "activity.refused.not_in_instance"))

    async def revoke(self, guild_id: int, user_id: int) -> None:
        """The player was banned or removed from the server: their sessions there end, their sockets close."""
        self.rights.revoke(guild_id, user_id)
        for viewer in list(self.viewers.of_user(user_id)):
            if viewer.session.guild_id == guild_id:
                await self._withdraw(viewer, "removed")

    async def _serve(self, viewer: Viewer) -> None:
        socket, limits = viewer.socket, self.limits
        bucket = Bucket(limits.burst, 1 / limits.rate, time.monotonic())  # (a real second, whatever the clock)
        while not socket.closed:
            received = await socket.receive()
            if received.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return
            if received.type == WSMsgType.ERROR:  # an oversized message: aiohttp has closed it (1009)
                self._note("socket:oversized")
                return
            if viewer.refused:
                continue  # (being closed: nothing it asks is acted on)
            if self.clock() >= viewer.session.expires:  # a socket kept open lives no longer than its session
                await self._close(socket, CLOSE_SESSION, "expired")
                return
            if bucket.take(time.monotonic()):
                await self._close(socket, CLOSE_FLOOD, "flood")
                return
            try:
                asked = loads(received.data) if received.type == WSMsgType.TEXT else None
            except Malformed:
                asked = None
            if not isinstance(asked, dict):
                await self._close(socket, CLOSE_MALFORMED, "malformed")
                return
            try:
                reply = await self._act(viewer, checked(asked))
            except Malformed:
                self._note("message:malformed")
                reply = Reply([t(viewer.lang, "activity.malformed")])
            await self.viewers.show(viewer, reply)

    async def _act(self, viewer: Viewer, asked: dict[str, Any]) -> Reply:
        kind, lang = asked["t"], viewer.lang
        wait = self.costs.wait(viewer.session.user_id, kind, asked)
        if wait:
            return Reply([t(lang, "activity.slow_down", seconds=wait)])
        try:
            if kind in daily.KINDS or (kind == "deal" and viewer.session.channel_id != viewer.home):
                return await self.daily.act(viewer, kind, lang)
            if kind == "podium":
                return await self._podium(viewer, lang)
            return await self._play(viewer.session, kind, asked, lang)
        except StorageUnavailable as error:  # as the board answers a press: nothing was lost, try again
            log.info("an Activity %s found the storage unavailable (%s)", kind, type(error).__name__)
            return Reply([t(lang, f"error.{error.key}")])

    async def _podium(self, viewer: Viewer, lang: str) -> Reply:
        """The party's podium picture, sent to the page (``t: podium``) to upload and share (#48)."""
        png = await self.party.podium(viewer.session.instance_id, lang)
        if png is None:
            return Reply([t(lang, "party.none")], stale=True)
        picture = "data:image/png;base64," + base64.b64encode(png).decode()
        self.viewers.post(viewer, json.dumps({"t": "podium", "png": picture}))
        return Reply()

    async def _play(self, session: Session, kind: str, asked: dict[str, Any], lang: str) -> Reply:
        presses = self.presses
        if isinstance(routed := await self.party.route(session, kind, asked, lang), Reply):  # (#48: a racer's seat)
            return routed
        session = routed
        if kind == "tap":
            return await presses.move(session, asked["spot"], asked["version"], lang)
        if kind == "undo":
            return await presses.move(session, "undo", asked["version"], lang)
        if kind == "hint":
            return await presses.hint(session, asked["version"], lang)
        if kind == "end":
            return await presses.end(session, asked["version"], lang)
        if kind == "deal":
            return await self.dealer.deal(session, asked["options"], lang, presses.manages(session))
        if kind in ("line", "mine"):
            return await self.playbacks.show(session, kind, asked["game"], lang)
        return Reply()  # look (and a hello again): the position only
