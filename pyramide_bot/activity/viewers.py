"""The pages open on each channel, and what they are sent: the position after every change (each page in
its player's language), and who is there (playing or watching)."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from .position import game_view
from .presses import PagePresses, Reply
from .sessions import Session

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Viewer:
    socket: web.WebSocketResponse
    session: Session
    lang: str
    plays: bool = False
    sent: int = field(default=0)  # states sent, for the tests


class Viewers:
    def __init__(self, presses: PagePresses, clock: Any) -> None:
        self.presses = presses
        self.clock = clock
        self._channels: dict[int, set[Viewer]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()

    def of(self, channel_id: int) -> set[Viewer]:
        return self._channels.get(channel_id, set())

    @property
    def count(self) -> int:
        return sum(len(viewers) for viewers in self._channels.values())

    def join(self, viewer: Viewer) -> None:
        self._channels.setdefault(viewer.session.channel_id, set()).add(viewer)

    def leave(self, viewer: Viewer) -> None:
        viewers = self._channels.get(viewer.session.channel_id)
        if viewers is not None:
            viewers.discard(viewer)
            if not viewers:
                del self._channels[viewer.session.channel_id]

    def changed(self, channel_id: int) -> None:
        """The channel's game changed (stored): every page on it is sent the new position, once per burst."""
        if channel_id not in self._channels:
            return
        if channel_id in self._tasks:
            self._again.add(channel_id)
            return
        task = asyncio.get_running_loop().create_task(self._send_all(channel_id))
        self._tasks[channel_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(channel_id, None))

    async def _send_all(self, channel_id: int) -> None:
        while True:
            self._again.discard(channel_id)
            try:
                await self.send(channel_id)
            except Exception:
                log.exception("could not send the position of channel %s to its pages", channel_id)
            if channel_id not in self._again:
                return

    async def send(self, channel_id: int, only: Viewer | None = None, reply: Reply | None = None) -> None:
        """The channel's position to its pages (or to ``only``, with the ``reply`` to what it asked)."""
        live = await self.presses.look(channel_id)
        viewers = [only] if only is not None else list(self.of(channel_id))
        for viewer in viewers:
            viewer.plays = live is not None and await self.presses.may_play(viewer.session.user_id, live)
        players = self._players(channel_id)
        now = self.clock()
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
            message = {**state, "players": players, "you": you}
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
        if viewer.socket.closed:
            return
        try:
            await viewer.socket.send_str(json.dumps(message, ensure_ascii=False))
            viewer.sent += 1
        except (ConnectionError, RuntimeError):  # the page went away meanwhile; its socket's end cleans up
            return

    async def close(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        for viewers in list(self._channels.values()):
            for viewer in list(viewers):
                await viewer.socket.close(code=1001, message=b"restarting")
