"""Threads made for games (the daily's, a race's): made private where the server allows it, else public,
and removed again when their game is not played in them after all."""

from __future__ import annotations

import logging

import discord

from ..answer import DISCORD_ERRORS, describe_failure, log_refusal

log = logging.getLogger(__name__)


async def remove_thread(thread: discord.Thread | None) -> None:
    """Delete a thread made for a game that is not played in it after all (best effort, logged)."""
    if thread is None:
        return
    try:
        await thread.delete()
    except DISCORD_ERRORS as error:
        log_refusal(f"removal of thread {thread.id}", error)


async def create_thread(parent: object, name: str) -> discord.Thread | None:
    if not isinstance(parent, discord.TextChannel):
        return None
    for kind in (discord.ChannelType.private_thread, discord.ChannelType.public_thread):
        try:
            return await parent.create_thread(name=name, type=kind, auto_archive_duration=1440, invitable=False)
        except DISCORD_ERRORS as error:  # the next kind is tried; the player hears if none can be made
            log.warning("%s not made in %s: %s", kind.name, parent.id, describe_failure(error))
    return None
