"""Who is told that a game changed, after its change is stored: a small publish/subscribe hub.

``play`` publishes a ``Change`` after each commit of a press (a move, a game's end, a counted hint), and
``open_deal`` after a new deal (and the end of the game it replaced); neither names any of its listeners. The
Discord layer subscribes what follows a game (a race's scoreboard, an event's announcement) when it loads and
unsubscribes when it unloads; a surface that shows one channel (the Activity) subscribes to that channel only. A
listener's failure is logged and never fails the press."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .storage import GameStatus

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Change:
    """What a stored change was: the game, its channel, the board version it is now at, whether it is
    finished (and how), the server event it is a deal of, the language of whoever made it (the words
    of a scoreboard it redraws), and whether the game was just dealt (nothing of it is played yet)."""

    game_id: int
    channel_id: int
    version: int
    finished: bool
    status: GameStatus
    event_id: int | None
    lang: str
    dealt: bool = False


Listener = Callable[[Change], Awaitable[None]]


class Listeners:
    def __init__(self) -> None:
        self._everywhere: list[Listener] = []
        self._by_channel: dict[int, list[Listener]] = {}

    def subscribe(self, listener: Listener, channel_id: int | None = None) -> Callable[[], None]:
        """Tell ``listener`` of every change (of ``channel_id``'s only, when given); returns the call that
        unsubscribes it."""
        kept = self._everywhere if channel_id is None else self._by_channel.setdefault(channel_id, [])
        kept.append(listener)

        def unsubscribe() -> None:
            if listener in kept:
                kept.remove(listener)
            if channel_id is not None and not kept and self._by_channel.get(channel_id) is kept:
                del self._by_channel[channel_id]

        return unsubscribe

    async def publish(self, change: Change) -> None:
        for listener in (*self._everywhere, *self._by_channel.get(change.channel_id, ())):
            try:
                await listener(change)
            except Exception:  # the change is stored and answered whatever a listener does with it
                log.exception("a listener of game %s's change failed", change.game_id)
