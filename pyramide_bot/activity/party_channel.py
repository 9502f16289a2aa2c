"""The channel told of a party race (issue #48): a message when it begins, which becomes the race's scoreboard
(``races.message_id``: the board's race scoreboards keep it up to date through the one subscription, as they
keep a ``/pyramide race``'s), and the podium picture once it is over (once, restarts included:
``Parties.claim_podium``). The Activity signs in only where the bot may post and edit (a server's channel
with the bot, its DM with the player: docs/activity.md), so the channel is told wherever a party runs; a
refusal of Discord's is logged as one and the party plays on in the page."""

from __future__ import annotations

import asyncio
import io
import logging

import discord

from pyramide.i18n import t
from pyramide.render import PodiumPicture, render_podium
from pyramide_discord.failures import DISCORD_ERRORS, log_refusal
from pyramide_discord.host import Host
from pyramide_service import parties as pt

log = logging.getLogger(__name__)
NONE = discord.AllowedMentions.none()


class PartyChannel:
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self._told: set[tuple[int, str]] = set()  # (race, what) told by this process
        self._tasks: set[asyncio.Task[None]] = set()

    def tell(self, instance_id: str, party: pt.Party, lang: str) -> None:
        """Tell the channel what it has not been told of ``party`` yet (off the caller's way)."""
        race = party.race
        what = "podium" if party.over else "start"
        if (race.id, what) in self._told or (what == "start" and race.message_id is not None):
            return
        self._told.add((race.id, what))
        task = asyncio.get_running_loop().create_task(self._tell(instance_id, party, what, lang))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _tell(self, instance_id: str, party: pt.Party, what: str, lang: str) -> None:
        race = party.race
        channel = self.bot.get_partial_messageable(race.channel_id, guild_id=race.guild_id or None)
        names = ", ".join(s.name for s in party.standings)
        try:
            if what == "start":
                content = t(lang, "party.channel_start", players=names, minutes=int(pt.TIME_LIMIT // 60))
                message = await channel.send(content=content, allowed_mentions=NONE)
                await self.bot.parties.show_at(race.id, message.id)
            elif await self.bot.parties.claim_podium(instance_id):
                places = tuple((s.name, f"{s.removed}/28") for s in party.standings[:3])
                picture = PodiumPicture(
                    t(lang, "party.podium"), "", places, t(lang, "party.no_winner"), t(lang, "party.channel_end")
                )
                png = await asyncio.to_thread(render_podium, picture)
                lines = [t(lang, "party.place", place=s.place, name=s.name, removed=s.removed) for s in party.standings]
                file = discord.File(io.BytesIO(png), filename="podium.png")
                await channel.send(content="\n".join(lines)[:2000], file=file, allowed_mentions=NONE)
        except DISCORD_ERRORS as error:
            log_refusal(f"party race {race.id}: the channel told ({what})", error)
        except Exception:
            log.exception("party race %s: the channel could not be told (%s)", race.id, what)
