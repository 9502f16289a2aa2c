"""Pyramide as a Discord Activity: the channel's game played in Discord's own frame, in step with the
board message (docs/activity.md).

sessions.py   the Activity's own session tokens (HMAC)      signin.py   the code exchange, the instance
limits.py     every bound of the door, and token buckets     messages.py the schema of the page's messages
rights.py     the right to play, checked again               door.py     addresses, costly actions' allowance
presses.py    the one adapter onto the game (Plays)          position.py a game as the page draws it
board_edits.py the board message follows, coalesced          viewers.py  the pages open on each channel
server.py     HTTP, the page, the socket
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pyramide_discord.host import Host
from pyramide_service.changes import Change, ChangedElsewhere, ChangesMissed, GameChanged

from ..settings import ActivitySettings
from .limits import Limits
from .presses import PagePresses
from .server import ActivityServer
from .sessions import SessionKeys
from .signin import DiscordSignIn

__all__ = ["WEB_ROOT", "Activity", "Limits", "page_built"]
log = logging.getLogger(__name__)
WEB_ROOT = Path(__file__).resolve().parents[2] / "web"


def page_built(root: Path = WEB_ROOT) -> bool:
    """Whether set-up built the page's SDK bundle (it needs Node.js: ``scripts/setup.sh``)."""
    return (root / "build" / "sdk.js").is_file()


class Activity:
    """The Activity of one bot: its adapter onto the game, its sign-in and its server. Its pages follow every
    change of their channel's game, whichever process or face made it (``pyramide_service.changes``)."""

    def __init__(
        self,
        bot: Host,
        settings: ActivitySettings,
        *,
        application_id: int,
        bot_token: str,
        api_base: str | None,
        clock: Any,
        web_root: Path = WEB_ROOT,
        limits: Limits = Limits(),
        origins: tuple[str, ...] = (),
    ) -> None:
        self.settings = settings
        self.presses = PagePresses(bot)
        self.signin = DiscordSignIn(application_id, settings.client_secret, bot_token, api_base, clock, limits)
        keys = SessionKeys(settings.client_secret)
        self.server = ActivityServer(self.presses, self.signin, keys, web_root, clock, limits, origins)
        self._unsubscribe = bot.changes.subscribe(self._changed)

    async def _changed(self, change: Change) -> None:
        if isinstance(change, GameChanged | ChangedElsewhere):
            self.server.viewers.changed(self.server.party.channel_of(change.channel_id))
        elif isinstance(change, ChangesMissed):  # every page reads its position again
            for channel_id in self.server.viewers.channels():
                self.server.viewers.changed(channel_id)

    async def start(self) -> int:
        return await self.server.serve(self.settings.port, self.settings.host)

    async def close(self) -> None:
        self._unsubscribe()
        await self.server.stop()
        await self.presses.close()
        await self.signin.close()
