"""Owner tools: command sync on demand, and dropping idle engines from memory."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import discord
from discord.ext import commands, tasks

if TYPE_CHECKING:
    from bot import PyramideBot

log = logging.getLogger(__name__)


class Admin(commands.Cog):
    def __init__(self, bot: PyramideBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.evict.start()

    async def cog_unload(self) -> None:
        self.evict.cancel()

    @tasks.loop(minutes=5)
    async def evict(self) -> None:
        dropped = self.bot.manager.evict_idle()
        if dropped:
            log.info("dropped %d idle games from memory", dropped)
        try:
            day = datetime.fromtimestamp(self.bot.clock(), UTC).date().isoformat()
            expired = await self.bot.manager.expire_dailies(day)
            if expired:
                log.info("ended %d dailies of past days", expired)
            await self.bot.storage.compact()
        except Exception as error:  # a busy database is tried again next time
            log.warning("could not compact the database: %s", error)

    @commands.command(name="sync")
    @commands.is_owner()
    async def sync(self, ctx: commands.Context, scope: str = "global") -> None:
        """@Pyramide sync [global|here]: push the slash commands to Discord (owner only)."""
        if scope == "here" and ctx.guild is not None:
            self.bot.tree.copy_global_to(guild=ctx.guild)
            synced = await self.bot.tree.sync(guild=ctx.guild)
        else:
            synced = await self.bot.tree.sync()
        await ctx.reply(f"Synced {len(synced)} commands ({scope}).", allowed_mentions=discord.AllowedMentions.none())


async def setup(bot: PyramideBot) -> None:
    await bot.add_cog(Admin(bot))
