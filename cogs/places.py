"""Where an interaction happened, and what the bot may do there.

Discord lets a player use Pyramide in three kinds of place:

- a server the bot is a member of: every route (messages with the bot token, threads, edits);
- the bot's own DM (context 1): the bot is in the channel and may send and edit its messages there,
  but a DM has no threads;
- a place the bot is not in: a group DM, another user's DM (context 2), or a server reached through
  a player's own install (context 0 without the bot as a member). Only the interaction can be
  answered there: its response, its follow-ups and its own webhook. A bot-token request to such a
  channel is refused (403 Missing Access), so the bot never makes one.

An Activity is offered where Discord lets one start and the bot can keep the board in step with it:
Discord's docs name servers' text and voice channels, DMs and group DMs (``ACTIVITY_CHANNELS``; not
threads, forum posts, announcement or stage channels), and of these only the places the bot may edit its
board with its token: a server with the bot, and the bot's DM (the Activity's sign-in tells it from any
other private channel by asking Discord for the bot's DM with the player). Where only the interaction can
be answered (a group DM, another user's DM, a server reached through a player's own install), the
Activity's moves could not reach the board message, so no launch button is offered there (docs/activity.md,
"Places").

A game's statistics belong to its server (``guild_id``), whether the bot is a member or the player's
own install brought it; games in DMs and group DMs are kept under ``OUTSIDE_SERVERS`` (0), the
player's own figures outside servers.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import discord

from pyramide_service.server_settings import OUTSIDE_SERVERS

# The channels Discord's docs let an Activity be launched in that the Activity can play in (a group DM, where
# the bot is never a member, and another user's DM are left out by the place's reach).
ACTIVITY_CHANNELS = frozenset({discord.ChannelType.text, discord.ChannelType.voice, discord.ChannelType.private})


class Reach(enum.Enum):
    SERVER = "server"  # a server with the bot: every route
    BOT_DM = "bot_dm"  # the bot's DM: bot-token messages, no threads
    INTERACTION = "interaction"  # only the interaction's own answers


@dataclass(frozen=True)
class Place:
    reach: Reach
    guild_id: int | None  # the server, whether the bot is a member or not; None outside servers
    channel_id: int
    channel_type: discord.ChannelType | None = None  # as the interaction names it (None: not said)

    @property
    def stats_id(self) -> int:
        """The guild id games here are stored and counted under."""
        return self.guild_id if self.guild_id is not None else OUTSIDE_SERVERS

    @property
    def bot_token(self) -> bool:
        """Whether the bot may use bot-token routes on this channel (send, edit, delete messages)."""
        return self.reach is not Reach.INTERACTION

    @property
    def threads(self) -> bool:
        """Whether the bot can open threads here."""
        return self.reach is Reach.SERVER

    @property
    def in_server(self) -> bool:
        return self.guild_id is not None

    @property
    def activities(self) -> bool:
        """Whether an Activity may be launched here with the board kept in step (see the module's words)."""
        return self.bot_token and self.channel_type in ACTIVITY_CHANNELS


def place_of(interaction: discord.Interaction) -> Place | None:
    """The place of ``interaction``, decided from its context, its channel, and whether the bot is a
    member of its server (the gateway told this process about the server); ``None`` without a channel."""
    channel_id = interaction.channel_id
    if channel_id is None:
        return None
    guild_id = interaction.guild_id
    kind = getattr(interaction.channel, "type", None)
    if guild_id is not None:
        member = interaction.client.get_guild(guild_id) is not None
        return Place(Reach.SERVER if member else Reach.INTERACTION, guild_id, channel_id, kind)
    context = interaction.context
    if context.dm_channel or (not context.private_channel and _bots_own_dm(interaction)):
        return Place(Reach.BOT_DM, None, channel_id, kind)
    return Place(Reach.INTERACTION, None, channel_id, kind)


def _bots_own_dm(interaction: discord.Interaction) -> bool:
    """Without a context (a payload from before user installs), a DM is the bot's own DM."""
    return isinstance(interaction.channel, discord.DMChannel)
