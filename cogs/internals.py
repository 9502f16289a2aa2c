"""The few places where Pyramide leans on discord.py internals, each with the reason; nothing else in the
bot touches them. ``pyproject.toml`` pins discord.py to the minor version CI tests (2.7), so a change of
any of these is caught by the suite before it reaches a deployment.
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
    """A view whose components are sent as ready JSON (``to_components``), with no Item object each: a
    board's twelve or so buttons cost a tenth of as many item objects. Every press on them is dispatched
    by the dynamic items registered on the bot, never through this object, so it is finished from the
    start and discord.py never stores it.

    ``View.__init__`` is not called (it draws a random id and makes a future per view, the largest part
    of a press after the picture): discord.py's senders call only the methods below, which
    ``tests/test_flow.py`` exercises through real sends."""

    def __init__(self) -> None:
        self._timeout: float | None = None

    def to_components(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    @property
    def timeout(self) -> float | None:
        return self._timeout

    @timeout.setter
    def timeout(self, value: float | None) -> None:
        self._timeout = value

    def has_components_v2(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False
