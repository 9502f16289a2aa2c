"""The channel told of a party race (issue #48): a message when it begins, which becomes the race's scoreboard
(``races.message_id``: the board's race scoreboards keep it up to date through the one subscription, as they
keep a ``/pyramide race``'s), and the podium picture once it is over (once, restarts included:
``Parties.claim_podium``). The Activity signs in only where the bot is meant to post (a server's channel with
the bot, its DM with the player: docs/activity.md), yet Discord may still refuse it there (403: a voice
channel's chat where the bot lacks Send Messages or Attach Files). Such a refusal is remembered in the
database (``Races.channel_refused``: a restart, or the process that serves the pages after it, still knows),
the pages are sent the party again, and its podium page offers the picture (``podium_png``) through the
Embedded App SDK's share-moment dialog instead. Any other failure is logged and the party plays on."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable

import discord

from pyramide.bounded import LRU
from pyramide.i18n import t
from pyramide.render import PodiumPicture, render_podium
from pyramide_discord.failures import DISCORD_ERRORS, log_refusal
from pyramide_discord.host import Host
from pyramide_service import parties as pt

log = logging.getLogger(__name__)
NONE = discord.AllowedMentions.none()


async def podium_png(party: pt.Party, lang: str) -> bytes:
    """The party's podium picture: its first three places and the time limit's words."""
    places = tuple((s.name, f"{s.removed}/28") for s in party.standings[:3])
    picture = PodiumPicture(
        t(lang, "party.podium"), "", places, t(lang, "party.no_winner"), t(lang, "party.channel_end")
    )
    return await asyncio.to_thread(render_podium, picture)


class PartyChannel:
    def __init__(self, bot: Host, changed: Callable[[int], None]) -> None:
        self.bot = bot
        self.changed = changed  # the channel's pages to be sent again (a refusal: their Share)
        self._told: set[tuple[int, str]] = set()  # (race, what) told by this process
        self._refused: LRU[int, bool] = LRU(5_000)  # a race -> whether Discord refused its channel's posts
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

    async def refused(self, race_id: int) -> bool:
        """Whether Discord refused to let the bot tell the race's channel (read once a race, then kept)."""
        known = self._refused.get(race_id)
        if known is None:
            known = self._refused.put(race_id, await self.bot.races.refused_channel(race_id))
        return known

    async def _refused_here(self, race_id: int, channel_id: int) -> None:
        self._refused.put(race_id, True)
        try:
            await self.bot.races.channel_refused(race_id)
        except Exception:  # (this process still offers Share; a restart would not)
            log.exception("party race %s: the channel's refusal could not be stored", race_id)
        self.changed(channel_id)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _tell(self, instance_id: str, party: pt.Party, what: str, lang: str) -> None:
        race = party.race
        channel = self.bot.get_partial_messageable(race.channel_id, guild_id=race.guild_id or None)
        names = ", ".join(s.name for s in party.standings)
        try:
            if what == "start" and await self.refused(race.id):
                return  # (refused before a restart: the podium is still tried, it may need other rights)
            if what == "start":
                content = t(lang, "party.channel_start", players=names, minutes=int(pt.TIME_LIMIT // 60))
                message = await channel.send(content=content, allowed_mentions=NONE)
                await self.bot.parties.show_at(race.id, message.id)
            elif await self.bot.parties.claim_podium(instance_id):
                png = await podium_png(party, lang)
                lines = [t(lang, "party.place", place=s.place, name=s.name, removed=s.removed) for s in party.standings]
                file = discord.File(io.BytesIO(png), filename="podium.png")
                await channel.send(content="\n".join(lines)[:2000], file=file, allowed_mentions=NONE)
                if await self.refused(race.id):  # (its start was refused, its podium is there: no Share)
                    self._refused.put(race.id, False)
                    await self.bot.races.channel_told(race.id)
                    self.changed(race.channel_id)
        except discord.Forbidden as error:  # (Missing Access, Missing Permissions: the bot may not post here)
            log_refusal(f"party race {race.id}: the channel told ({what})", error)
            await self._refused_here(race.id, race.channel_id)
        except DISCORD_ERRORS as error:  # (the podium claimed and not posted: the players may share it)
            log_refusal(f"party race {race.id}: the channel told ({what})", error)
            if what == "podium":
                await self._refused_here(race.id, race.channel_id)
        except Exception:
            log.exception("party race %s: the channel could not be told (%s)", race.id, what)
