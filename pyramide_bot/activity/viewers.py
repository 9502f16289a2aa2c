"""The pages open on each channel, and what they are sent: the position after every change (each page in
its player's language), and who is there (playing or watching).

A page may sit in a seat of its instance (``pyramide_service.seats``: the player's own daily): it is then
kept under the seat's id (its session names the seat), sent the seat's position alone, and the others on
its channel (``Viewer.home``) are sent how far it is (``seats``: cards removed, never the cards).

Each page has its own outbox and its own writer: a change is put in every outbox at once, so a slow or
stalled reader never holds up the others; one that lets ``Limits.backlog`` messages pile up is dropped
(closed with 4009: the page reconnects when it can read again)."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field, replace
from typing import Any

from aiohttp import web

from pyramide.i18n import t
from pyramide_service import PLAYING, StorageUnavailable
from pyramide_service.seats import Kind, is_seat
from pyramide_service.tasks import Supervised

from .party import PartyDesk
from .position import game_view
from .presses import PagePresses, Reply
from .sessions import Session

log = logging.getLogger(__name__)
CLOSE_SLOW = 4009  # the page read too slowly: dropped, it may come back
CLOSE_WAIT = 2.0  # seconds a closing handshake may take before the connection is cut


@dataclass(eq=False)
class Viewer:
    socket: web.WebSocketResponse
    session: Session
    lang: str
    plays: bool = False
    sent: int = field(default=0)  # states sent, for the tests
    refused: bool = False  # its right to play was withdrawn: nothing more it asks is acted on
    outbox: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    writer: asyncio.Task[None] | None = None
    shown: dict[str, Any] | None = None  # the last position it was sent (to say "busy" over, when unread)
    transport: Any = None  # (cut when even the closing handshake cannot be written)
    home: int = 0  # the instance's channel (the session names a seat while the page sits in one)
    seat: Kind | None = None  # the kind of the seat it sits in (``seats.DAILY``, ``seats.PARTY``), if any


async def close(viewer: Viewer, code: int, reason: str) -> None:
    """Close the page's socket; a peer that does not read even the close frame is cut."""
    try:
        await asyncio.wait_for(viewer.socket.close(code=code, message=reason.encode()[:123]), CLOSE_WAIT)
    except (TimeoutError, ConnectionError, RuntimeError):
        if viewer.transport is not None:
            viewer.transport.abort()


class Viewers:
    def __init__(self, presses: PagePresses, clock: Any, backlog: int = 32) -> None:
        self.presses = presses
        self.clock = clock
        self.backlog = backlog
        self.dropped = 0  # slow pages dropped (the tests)
        self._channels: dict[int, set[Viewer]] = {}
        self._users: dict[int, set[Viewer]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self.closing = Supervised("activity pages")  # the closes of pages dropped (kept, a failure logged)
        self._seated: dict[int, set[Viewer]] = {}  # a channel -> its pages sitting in a seat
        self.party: PartyDesk | None = None  # the party race's part of every state (#48)

    def channels(self) -> list[int]:
        """The channels with a page open."""
        return list(self._channels)

    def of(self, channel_id: int) -> set[Viewer]:
        return self._channels.get(channel_id, set())

    @property
    def count(self) -> int:
        return sum(len(viewers) for viewers in self._channels.values())

    def of_user(self, user_id: int) -> set[Viewer]:
        return self._users.get(user_id, set())

    def join(self, viewer: Viewer) -> None:
        viewer.home = viewer.home or viewer.session.channel_id
        self._channels.setdefault(viewer.session.channel_id, set()).add(viewer)
        self._users.setdefault(viewer.session.user_id, set()).add(viewer)
        viewer.writer = asyncio.get_running_loop().create_task(self._write(viewer))

    def leave(self, viewer: Viewer) -> None:
        _discard(self._channels, viewer.session.channel_id, viewer)
        _discard(self._users, viewer.session.user_id, viewer)
        _discard(self._seated, viewer.home, viewer)
        if viewer.writer is not None:
            viewer.writer.cancel()

    def sit(self, viewer: Viewer, channel_id: int, kind: Kind | None = None) -> None:
        """Move a page to a seat of its instance (``channel_id``: the seat's id, ``kind`` its kind), or back
        to its channel (``viewer.home``, no kind); the others on its channel are sent who sits where."""
        _discard(self._channels, viewer.session.channel_id, viewer)
        viewer.session = replace(viewer.session, channel_id=channel_id)
        viewer.seat = kind if is_seat(channel_id) else None
        self._channels.setdefault(channel_id, set()).add(viewer)
        if is_seat(channel_id):
            self._seated.setdefault(viewer.home, set()).add(viewer)
        else:
            _discard(self._seated, viewer.home, viewer)
        self.changed(viewer.home)

    async def _seats(self, channel_id: int) -> list[dict[str, Any]]:
        """The channel's pages sitting in a seat, and how far each is: cards removed, never which."""
        seats = []
        for viewer in self._seated.get(channel_id, set()):
            live = await self.presses.look(viewer.session.channel_id)
            removed = 28 - sum(card is not None for card in live.game.pyramid) if live is not None else 0
            finished = live is None or live.game.is_over or live.record.status != PLAYING
            user = str(viewer.session.user_id)
            seats.append(
                {"id": user, "name": viewer.session.name, "kind": viewer.seat, "removed": removed, "finished": finished}
            )
        return sorted({seat["id"]: seat for seat in seats}.values(), key=lambda seat: seat["name"])

    async def _write(self, viewer: Viewer) -> None:
        while not viewer.socket.closed:
            text = await viewer.outbox.get()
            try:
                await viewer.socket.send_str(text)
                viewer.sent += 1
            except (ConnectionError, RuntimeError):  # the page went away meanwhile; its socket's end cleans up
                return

    def changed(self, channel_id: int) -> None:
        """The channel's game changed (stored): every page on it is sent the new position, once per burst
        (a seat's: and the pages of its instance how far it is)."""
        if self.party is not None:
            self.party.stale(channel_id)  # (its instances' parties are read again)
        if is_seat(channel_id):
            for home in {viewer.home for viewer in self.of(channel_id)}:
                self.changed(home)
        if channel_id not in self._channels:
            return
        if channel_id in self._tasks:
            self._again.add(channel_id)
            return
        self._tasks[channel_id] = asyncio.get_running_loop().create_task(self._send_all(channel_id))

    async def _send_all(self, channel_id: int) -> None:
        # The task leaves ``_tasks`` in the very step that decides it is done (the ``finally``), never in a
        # done callback: that runs a loop turn later, and a change told in between would be put in ``_again``
        # of a task that had stopped reading it, and never sent (seen as a page that never got a daily's
        # last count); a callback could also drop the next burst's task, started meanwhile, from ``_tasks``.
        try:
            while True:
                self._again.discard(channel_id)
                try:
                    await self.send(channel_id)
                except StorageUnavailable as error:  # (their pages keep what they show; the next change tells them)
                    log.info("the position of channel %s not sent to its pages: %s", channel_id, type(error).__name__)
                except Exception:
                    log.exception("could not send the position of channel %s to its pages", channel_id)
                if channel_id not in self._again:
                    return
        finally:
            self._tasks.pop(channel_id, None)

    async def send(self, channel_id: int, only: Viewer | None = None, reply: Reply | None = None) -> None:
        """The channel's position to its pages (or to ``only``, with the ``reply`` to what it asked)."""
        live = await self.presses.look(channel_id)
        viewers = [only] if only is not None else list(self.of(channel_id))
        for viewer in viewers:
            viewer.plays = live is not None and await self.presses.may_play(viewer.session.user_id, live)
        players = self._players(channel_id)
        seats = {home: await self._seats(home) for home in {viewer.home for viewer in viewers}}
        now = self.clock()
        parties = {}  # (#48: each instance's party, read once for all its pages)
        if self.party is not None:
            for instance_id, home in {(viewer.session.instance_id, viewer.home) for viewer in viewers}:
                parties[instance_id] = await self.party.view(instance_id, home)
        by_language: dict[str, dict[str, Any]] = {}
        for viewer in viewers:
            state = by_language.get(viewer.lang)
            if state is None:
                game = game_view(live, live.game, viewer.lang, now) if live is not None else None
                ending: list[str] = []
                if live is not None and game is not None and game["finished"]:
                    ending, game["offers"] = await self.presses.finished_view(live, viewer.lang)
                state = by_language[viewer.lang] = {"t": "state", "game": game, "ending": ending}
            style = await self.presses.bot.styles.get(viewer.session.user_id)  # each viewer sees their own style
            you = {"id": str(viewer.session.user_id), "plays": viewer.plays, "style": style.to_json()}
            you["seat"] = viewer.seat
            message = {**state, "players": players, "you": you, "seats": seats[viewer.home]}
            if self.party is not None:
                await self.party.dress(message, viewer.session, parties[viewer.session.instance_id], viewer.lang)
            if viewer is only and reply is not None:
                message.update(words=reply.words, highlight=list(reply.highlight), ask=reply.ask)
                if reply.playback is not None:
                    message["playback"] = reply.playback
            await self._send(viewer, message)

    def _players(self, channel_id: int) -> list[dict[str, Any]]:
        seen: dict[int, dict[str, Any]] = {}
        for viewer in self.of(channel_id):
            entry = seen.setdefault(
                viewer.session.user_id, {"id": str(viewer.session.user_id), "name": viewer.session.name, "plays": False}
            )
            entry["plays"] = entry["plays"] or viewer.plays
        return sorted(seen.values(), key=lambda p: (not p["plays"], p["name"]))

    async def _send(self, viewer: Viewer, message: dict[str, Any]) -> None:
        viewer.shown = {key: message[key] for key in ("t", "game", "ending", "players", "you")}
        self.post(viewer, json.dumps(message, ensure_ascii=False))

    async def show(self, viewer: Viewer, reply: Reply | None = None) -> None:
        """The page's position (with ``reply``); while the database does not answer the read, as a move
        that met it: "busy, try again" over what the page shows, the socket kept open."""
        try:
            await self.send(viewer.session.channel_id, viewer, reply)
        except StorageUnavailable as error:
            log.info("an Activity page's position was not read (%s)", type(error).__name__)
            self.busy(viewer, t(viewer.lang, f"error.{error.key}"))

    def busy(self, viewer: Viewer, words: str) -> None:
        """The position could not be read (the database is busy): the page is sent what it shows already,
        with ``words`` (nothing is lost; the next change or message sends the position again)."""
        shown = viewer.shown or {"t": "state", "game": None, "ending": [], "players": [], "you": {"plays": False}}
        self.post(viewer, json.dumps({**shown, "words": [words], "highlight": [], "ask": None}, ensure_ascii=False))

    def post(self, viewer: Viewer, text: str) -> None:
        """Put ``text`` in the page's outbox; a page with ``backlog`` messages unread already is dropped."""
        if viewer.socket.closed or viewer.refused:
            return
        if viewer.outbox.qsize() >= self.backlog:
            viewer.refused = True
            self.dropped += 1
            log.info("an Activity page of channel %s read too slowly: dropped", viewer.session.channel_id)
            self.closing.spawn(close(viewer, CLOSE_SLOW, "too slow"), f"drop a slow page of {viewer.session.user_id}")
            return
        viewer.outbox.put_nowait(text)

    async def close(self) -> None:
        if self.party is not None:
            await self.party.close()
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        await self.closing.close(grace=CLOSE_WAIT)  # (each cuts its peer by then)
        for viewers in list(self._channels.values()):
            for viewer in list(viewers):
                await close(viewer, 1001, "restarting")


def _discard(table: dict[int, set[Viewer]], key: int, viewer: Viewer) -> None:
    viewers = table.get(key)
    if viewers is not None:
        viewers.discard(viewer)
        if not viewers:
            del table[key]
