"""The places where the bot uses what discord.py offers no public API for, each with the reason: the addresses
of its REST API and of its gateway, the global commands read and overwritten as raw JSON (the entry point
command kept), and the prebuilt view; nothing else in the bot touches a discord.py internal.
``pyproject.toml`` pins discord.py to the minor versions CI tests, so a change of these class attributes
and ``HTTPClient`` methods is caught by the suite before it reaches a deployment.
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


async def global_commands(client: discord.Client, application_id: int) -> list[dict[str, Any]]:
    """The application's global commands as Discord has them (``GET /applications/{id}/commands``), as JSON:
    the public ``CommandTree.fetch_commands`` parses them into ``AppCommand``s, which know no command of
    type 4 (an Activity's PRIMARY_ENTRY_POINT) nor its ``handler``, so only ``HTTPClient`` returns them whole."""
    commands: list[Any] = await client.http.get_global_commands(application_id)
    return commands


async def overwrite_global_commands(
    client: discord.Client, application_id: int, payload: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Replace the global commands by ``payload`` (``PUT /applications/{id}/commands``): the public
    ``CommandTree.sync`` sends the tree's commands alone, and Discord refuses an overwrite that leaves out
    the entry point command it made (50240); ``HTTPClient`` sends the payload as given."""
    commands: list[Any] = await client.http.bulk_upsert_global_commands(application_id, payload)
    return commands


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
