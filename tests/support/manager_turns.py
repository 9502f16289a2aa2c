"""The game manager driven as the bot drives it: every request inside ``GameManager.turn`` (the channel's
lock, the game loaded), through ``Turn.start``, ``Turn.apply`` and ``Turn.end``."""

from __future__ import annotations

from collections.abc import Callable

from pyramide import Game
from pyramide.effects import Effect
from pyramide_service.manager import ActResult, GameManager, Live
from pyramide_service.storage import ENDED


async def deal(
    manager: GameManager,
    *,
    guild_id: int,
    channel_id: int,
    owner_id: int,
    game: Game,
    daily: str | None = None,
    locale: str | None = None,
) -> Live:
    """Deal ``game`` in a channel (a game in play there is ended first, as the bot's "end it and deal")."""
    async with manager.turn(channel_id) as turn:
        return await turn.start(guild_id=guild_id, owner_id=owner_id, game=game, daily=daily, locale=locale)


async def play(
    manager: GameManager, channel_id: int, action: Callable[[Game], Effect], *, request: int | None = None
) -> ActResult:
    """One move in a channel, stored before it returns."""
    async with manager.turn(channel_id) as turn:
        return await turn.apply(action, request=request)


async def end(manager: GameManager, channel_id: int, status: str = ENDED) -> Live:
    async with manager.turn(channel_id) as turn:
        return await turn.end(status)
