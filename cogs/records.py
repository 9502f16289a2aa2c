"""Statistics, leaderboards, the daily challenge and the statistics reset, as Discord messages."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import discord

from pyramide.daily import today
from pyramide.i18n import t
from pyramide.render import format_duration
from pyramide.stats import day_streaks, player_stats

from .common import bot_of, language, mention
from .table import guarded, reply

PAGE = 10
RESULT_MARKS = {"won": "🟩", "stuck": "🟥", "ended": "⬜", "broken": "⬛"}


def _now(interaction: discord.Interaction) -> datetime:
    return datetime.fromtimestamp(bot_of(interaction).clock(), UTC)


def period_start(period: str, now: datetime) -> float | None:
    """Start of a leaderboard period in epoch seconds (UTC days; weeks start on Monday)."""
    midnight = datetime.combine(now.date(), datetime.min.time(), tzinfo=UTC)
    if period == "today":
        return midnight.timestamp()
    if period == "week":
        return (midnight - timedelta(days=now.weekday())).timestamp()
    return None


def time_text(seconds: float | None, lang: str) -> str:
    return format_duration(seconds) if seconds is not None else t(lang, "stats.dash")


# --------------------------------------------------------------------------- stats
async def show_stats(interaction: discord.Interaction, player: discord.abc.User | None) -> None:
    lang = language(interaction)
    if interaction.guild is None and interaction.guild_id is None:
        await reply(interaction, t(lang, "error.guild_only"))
        return
    bot = bot_of(interaction)
    who = player or interaction.user
    guild_id = interaction.guild_id or 0
    rows = await bot.storage.results(guild_id, who.id)
    if not rows:
        await interaction.response.send_message(t(lang, "stats.none", player=mention(who.id)))
        return
    stats = player_stats(rows)
    current_days, best_days = day_streaks(await bot.storage.daily_days(who.id), today(_now(interaction)))
    guild_name = interaction.guild.name if interaction.guild else str(guild_id)
    embed = discord.Embed(
        title=t(lang, "stats.title", player=who.display_name, guild=guild_name), colour=discord.Colour.dark_green()
    )
    dash = t(lang, "stats.dash")
    fields = [
        ("stats.played", str(stats.played)),
        ("stats.won", str(stats.won)),
        ("stats.win_rate", f"{stats.win_rate:.0%}"),
        ("stats.best_time", time_text(stats.best_seconds, lang)),
        ("stats.fewest_moves", str(stats.fewest_moves) if stats.fewest_moves is not None else dash),
        ("stats.average_score", f"{stats.average_score:.0f}"),
        ("stats.streak", str(stats.current_streak)),
        ("stats.best_streak", str(stats.best_streak)),
        ("stats.daily", t(lang, "stats.daily_value", played=stats.daily_played, won=stats.daily_won)),
        ("stats.day_streak", t(lang, "stats.day_streak_value", current=current_days, best=best_days)),
        ("stats.hints", str(stats.hints)),
    ]
    for key, value in fields:
        embed.add_field(name=t(lang, key), value=value)
    embed.add_field(name=t(lang, "stats.recent"), value="".join(RESULT_MARKS[r] for r in stats.recent), inline=False)
    await interaction.response.send_message(embed=embed)


# --------------------------------------------------------------------- leaderboard
class LeaderboardPage(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"pyrlb:(?P<period>today|week|all):(?P<page>[0-9]+):(?P<way>[pn])",
):
    """Previous (``p``) or next (``n``) page of a leaderboard; ``page`` is the page it leads to."""

    def __init__(self, period: str, page: int, way: str, *, label: str = "\u200b", disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                disabled=disabled,
                style=discord.ButtonStyle.secondary,
                custom_id=f"pyrlb:{period}:{page}:{way}",
            )
        )
        self.period = period
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> LeaderboardPage:
        return cls(match["period"], int(match["page"]), match["way"])

    async def callback(self, interaction: discord.Interaction) -> None:
        async with guarded(interaction) as answer:
            embed, view = await leaderboard_page(interaction, self.period, self.page)
            await answer.update(embed=embed, view=view)


async def leaderboard_page(
    interaction: discord.Interaction, period: str, page: int
) -> tuple[discord.Embed, discord.ui.View]:
    lang = language(interaction)
    storage = bot_of(interaction).storage
    guild_id = interaction.guild_id or 0
    since = period_start(period, _now(interaction))
    total = await storage.leaderboard_size(guild_id, since)
    pages = max(1, -(-total // PAGE))
    page = min(max(page, 0), pages - 1)
    rows = await storage.leaderboard(guild_id, since, PAGE, page * PAGE)
    dash = t(lang, "stats.dash")
    lines = [
        t(
            lang,
            "leaderboard.row",
            rank=page * PAGE + i + 1,
            player=mention(row.player_id),
            wins=row.wins,
            played=row.played,
            best=time_text(row.best_seconds, lang),
            fewest=row.fewest_moves if row.fewest_moves is not None else dash,
            hints=row.hints,
        )
        for i, row in enumerate(rows)
    ]
    embed = discord.Embed(
        title=t(lang, "leaderboard.title", period=t(lang, f"leaderboard.period.{period}")),
        description="\n".join(lines) or t(lang, "leaderboard.empty"),
        colour=discord.Colour.gold(),
    )
    embed.set_footer(text=t(lang, "leaderboard.page", page=page + 1, pages=pages))
    view = discord.ui.View(timeout=None)
    view.add_item(LeaderboardPage(period, max(page - 1, 0), "p", label=t(lang, "button.previous"), disabled=page == 0))
    view.add_item(
        LeaderboardPage(period, min(page + 1, pages - 1), "n", label=t(lang, "button.next"), disabled=page >= pages - 1)
    )
    view.stop()
    return embed, view


async def show_leaderboard(interaction: discord.Interaction, period: str) -> None:
    embed, view = await leaderboard_page(interaction, period, 0)
    await interaction.response.send_message(embed=embed, view=view)


# --------------------------------------------------------------------------- reset
class ResetChoice(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"pyrreset:(?P<choice>yes|no):(?P<player>[0-9]+)",
):
    def __init__(
        self,
        choice: str,
        player: int,
        *,
        label: str = "\u200b",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"pyrreset:{choice}:{player}"))
        self.choice = choice
        self.player = player

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> ResetChoice:
        return cls(match["choice"], int(match["player"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async with guarded(interaction) as answer:
            lang = language(interaction)
            if self.choice == "no":
                await answer.update(content=t(lang, "reset.cancelled"), view=None)
                return
            if not interaction.permissions.manage_guild:
                await answer.say(t(lang, "error.manage_server"))
                return
            count = await bot_of(interaction).storage.reset_stats(interaction.guild_id or 0, self.player or None)
            await answer.update(content=t(lang, "reset.done", count=count), view=None)


async def ask_reset(interaction: discord.Interaction, player: discord.abc.User | None) -> None:
    lang = language(interaction)
    if not interaction.permissions.manage_guild:
        await reply(interaction, t(lang, "error.manage_server"))
        return
    player_id = player.id if player else 0
    text = t(lang, "reset.confirm_player", player=mention(player_id)) if player else t(lang, "reset.confirm_all")
    view = discord.ui.View(timeout=None)
    view.add_item(ResetChoice("yes", player_id, label=t(lang, "button.confirm"), style=discord.ButtonStyle.danger))
    view.add_item(ResetChoice("no", player_id, label=t(lang, "button.cancel")))
    view.stop()
    await interaction.response.send_message(text, view=view, ephemeral=True)
