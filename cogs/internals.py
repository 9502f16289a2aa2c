"""The two places where the bot sets what discord.py offers no public option for (the addresses of its REST
API and of its gateway), each with the reason, and the prebuilt view; nothing else in the bot touches a
discord.py internal. ``pyproject.toml`` pins discord.py to the minor versions CI tests, so a change of
these class attributes is caught by the suite before it reaches a deployment.
"""

from __future__ import annotations

from typing import Any

import discord
import yarl
from discord.gateway import DiscordWebSocket


def point_rest_at(base: str) -> None:
    """Every REST call (interaction answers and webhooks included) to ``base``, an HTTP rate-limit proxy
    or the Discord-like test server: discord.py has no public option for its API's address, only the
    class attribute ``Route.BASE`` that every route is built on."""
    discord.http.Route.BASE = base


def point_gateway_at(url: str) -> None:
    """The gateway at ``url`` (the REST base's answer to ``GET /gateway/bot``): discord.py asks Discord's
    own address unless ``DiscordWebSocket.DEFAULT_GATEWAY`` says otherwise."""
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)


class PrebuiltView(discord.ui.View):
    """A view whose components are sent as ready JSON (``to_components``, the one method it overrides),
    with no Item object each: a board's twelve or so buttons cost a tenth of as many item objects. Every
    press on them is dispatched by the dynamic items registered on the bot, never through this object: it
    has no children (so discord.py's senders find it not dispatchable and never store it), no timeout,
    and it is stopped from the start."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.stop()

    def to_components(self) -> list[dict[str, Any]]:
        raise NotImplementedError
