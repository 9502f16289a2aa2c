"""The one module of the tests (and benches) that reaches into discord.py's internals, each use with its
reason. Driving the real bot offline means doing what a login and the gateway do, and discord.py has no
public way in for that: its ``ConnectionState`` (``Client._connection``) parses the gateway's payloads, and
``Client._async_setup_hook`` makes the loop-bound objects a login makes. Nothing else under tests/ or
bench/ touches a private name of discord.py (``tests/test_architecture.py`` checks it).

Those internals may change with any minor version, so this module refuses a discord.py outside the range
CI runs the suite on (``TESTED``, read from the pin in pyproject.toml): a new minor version is a one-line
change of that pin, tried by CI, never a silent break in some test far away.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import discord
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

__all__ = [
    "TESTED",
    "AsyncWebhookAdapter",
    "add_guild",
    "check_version",
    "deliver_interaction",
    "deliver_message",
    "log_in",
    "mark_ready",
    "record_webhooks",
    "remove_guild",
    "route_rest",
    "setup",
]


class UntestedDiscordVersion(RuntimeError):
    """The installed discord.py is outside the range the harness's internals were checked against."""


PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def tested_range(pyproject: Path = PYPROJECT) -> tuple[tuple[int, int], tuple[int, int]]:
    """The discord.py versions CI tests, from the pin in pyproject.toml (``discord.py>=2.7,<2.8``): the
    lowest minor version tested and the first one that is not."""
    dependencies = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    pin = next(d for d in dependencies if d.startswith("discord.py"))
    match = re.fullmatch(r"discord\.py>=(\d+)\.(\d+),<(\d+)\.(\d+)", pin.replace(" ", ""))
    if match is None:
        raise UntestedDiscordVersion(f"pyproject.toml pins {pin!r}; the harness reads a pin of the form >=X.Y,<X.Z")
    low_major, low_minor, high_major, high_minor = (int(part) for part in match.groups())
    return (low_major, low_minor), (high_major, high_minor)


TESTED = tested_range()


def check_version(version: str = discord.__version__, tested: tuple[tuple[int, int], tuple[int, int]] = TESTED) -> None:
    """Refuse a discord.py outside ``tested`` (pyproject.toml's pin), naming the range and what to do."""
    low, high = tested
    match = re.match(r"(\d+)\.(\d+)", version)
    found = (int(match[1]), int(match[2])) if match else (-1, -1)
    if not low <= found < high:
        span = f"discord.py>={low[0]}.{low[1]},<{high[0]}.{high[1]}"
        raise UntestedDiscordVersion(
            f"discord.py {version} is installed, but the test harness drives discord.py internals known to hold "
            f"for {span} only, the range CI tests (tests/support/discord_internals.py). To try another version, change "
            f"the pin in pyproject.toml and requirements/bot.in, run scripts/lock.sh, and let CI run the suite."
        )


check_version()


def log_in(bot: discord.Client, application_id: int, user: dict[str, Any]) -> None:
    """What a login sets (the application id and the bot's own user), without a network."""
    state = bot._connection
    state.application_id = application_id
    state.user = discord.ClientUser(state=state, data=user)  # type: ignore[arg-type]


def route_rest(bot: discord.Client, request: Callable[..., Awaitable[Any]]) -> None:
    """Every bot-token REST request to ``request`` (a double of Discord's REST edge)."""
    bot.http.request = request  # type: ignore[method-assign]


def record_webhooks(adapter: AsyncWebhookAdapter) -> None:
    """Interaction responses and followups (discord.py's webhook adapter) to ``adapter``."""
    async_context.set(adapter)


async def setup(bot: discord.Client) -> None:
    """What ``Client.login`` runs before the gateway: the loop-bound objects, then the bot's ``setup_hook``."""
    await bot._async_setup_hook()
    await bot.setup_hook()


def add_guild(bot: discord.Client, payload: dict[str, Any]) -> None:
    """``GUILD_CREATE`` as the gateway hands it over (the server known to this process)."""
    bot._connection._add_guild_from_data(payload)  # type: ignore[arg-type]


def remove_guild(bot: discord.Client, guild_id: int) -> None:
    """``GUILD_DELETE``: the bot was removed from the server."""
    bot._connection.parse_guild_delete({"id": str(guild_id)})  # type: ignore[typeddict-item]


def mark_ready(bot: discord.Client) -> None:
    """What the gateway's ``READY`` sets: ``is_ready()`` becomes true."""
    bot._ready.set()  # type: ignore[union-attr]


def deliver_interaction(bot: discord.Client, payload: dict[str, Any]) -> None:
    """``INTERACTION_CREATE``, through the same parser the gateway uses."""
    bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]


def deliver_message(bot: discord.Client, payload: dict[str, Any]) -> None:
    """``MESSAGE_CREATE``, through the same parser the gateway uses."""
    bot._connection.parse_message_create(payload)  # type: ignore[arg-type]


def deliver_ban(bot: discord.Client, guild_id: int, user: dict[str, Any]) -> None:
    """``GUILD_BAN_ADD`` as the gateway hands it over (the moderation intent)."""
    bot._connection.parse_guild_ban_add({"guild_id": str(guild_id), "user": user})  # type: ignore[typeddict-item]
