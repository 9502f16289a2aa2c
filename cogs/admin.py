"""Housekeeping: command and card-emoji sync on demand (owner), and a loop every 5 minutes that drops idle engines,
ends the dailies of past days, deletes the data of servers the bot left (after a grace period) and
gives free pages back to the file system."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import discord
from discord.ext import commands, tasks

from pyramide_discord.host import Host

from .tasks import stop_loop

log = logging.getLogger(__name__)


class Admin(commands.Cog):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.evict.start()

    async def cog_unload(self) -> None:
        await stop_loop(self.evict)

    @tasks.loop(minutes=5)
    async def evict(self) -> None:
        await self.housekeeping()

    async def housekeeping(self) -> None:
        dropped = self.bot.manager.evict_idle()
        self.bot.dailies.prepare_tomorrow()  # tomorrow's daily is ready before midnight
        if dropped:
            log.info("dropped %d idle games from memory", dropped)
        try:
            now = self.bot.clock()
            day = datetime.fromtimestamp(now, UTC).date().isoformat()
            expired = await self.bot.plays.expire_dailies(day)
            if expired:
                log.info("ended %d dailies of past days", expired)
            await self.bot.manager.owed.resume()  # perfect losses a busy solver could not decide yet
            purged = await self.bot.servers.purge_departed(now - self.bot.data_grace_days * 86_400)
            if purged:
                log.info(
                    "deleted the data of %d servers the bot left %d days ago", len(purged), self.bot.data_grace_days
                )
            await self.bot.servers.compact()
        except Exception as error:  # a busy database is tried again next time
            log.warning("housekeeping failed, tried again in 5 minutes: %s", error)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server: its data is deleted after the grace period, unless the bot comes back."""
        await self.bot.servers.left(guild.id, self.bot.clock())

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.bot.servers.joined(guild.id)

    @commands.command(name="sync")
    @commands.is_owner()
    async def sync(self, ctx: commands.Context, scope: str = "global") -> None:
        """@Pyramide sync [global|here|emojis]: push the slash commands to Discord, or upload the card
        emojis again (owner only)."""
        if scope == "emojis":
            result = await self.bot.card_emojis.sync(force=True)
            outcome = f"failed ({result.error}); the buttons show text labels" if result.error else "in use"
            await ctx.reply(
                f"Card emojis: uploaded {result.uploaded}, deleted {result.deleted}, {outcome}.",
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        if scope == "here" and ctx.guild is not None:  # a server's commands: Discord keeps no entry point there
            ctx.bot.tree.copy_global_to(guild=ctx.guild)
            synced = len(await ctx.bot.tree.sync(guild=ctx.guild))
        else:  # the global ones, with the Activity's entry point command kept
            synced = await self.bot.sync_commands(force=True) or 0
        await ctx.reply(f"Synced {synced} commands ({scope}).", allowed_mentions=discord.AllowedMentions.none())


async def setup(bot: Host) -> None:
    await bot.add_cog(Admin(bot))
