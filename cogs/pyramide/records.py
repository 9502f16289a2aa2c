"""Statistics, leaderboards, the daily challenge and the statistics reset, as Discord messages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import discord

from pyramide import Rules
from pyramide.daily import today
from pyramide.i18n import t
from pyramide.labels import format_duration
from pyramide_discord import controls
from pyramide_discord.words import mention, rules_words
from pyramide_service import ABANDONED, BROKEN, ENDED, STUCK, WON, LeaderRow, inputs

from ..answer import Answer, answering
from . import profile

PAGE = 10
RESULT_MARKS = {WON: "🟩", STUCK: "🟥", ENDED: "⬜", BROKEN: "⬛", ABANDONED: "⬜"}


def _now(answer: Answer) -> datetime:
    return datetime.fromtimestamp(answer.bot.clock(), UTC)


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
    async with answering(interaction, private=False) as answer:
        await stats_answer(answer, player)


async def stats_answer(answer: Answer, player: discord.abc.User | None) -> None:
    """A player's figures on this server, as a public embed."""
    interaction, lang, place = answer.interaction, answer.lang, answer.place
    if place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    if not place.in_server and player is not None and player.id != interaction.user.id:
        # Outside servers a player's figures gather their DMs and group DMs: only they see them.
        await answer.say(t(lang, "stats.outside_own_only"))
        return
    who = player or interaction.user
    guild_id = place.stats_id
    record = await answer.bot.records.player(guild_id, who.id, today(_now(answer)))
    if record is None:
        words = t(lang, "stats.none", player=mention(who.id)) if place.in_server else t(lang, "stats.none_outside")
        await answer.announce(content=words)
        return
    stats, races, events = record.stats, record.races, record.events
    current_days, best_days = record.day_streak
    if place.in_server:
        guild_name = interaction.guild.name if interaction.guild and interaction.guild.name else str(guild_id)
        title = t(lang, "stats.title", player=who.display_name, guild=guild_name)
    else:
        title = t(lang, "stats.title_outside", player=who.display_name)
    embed = discord.Embed(title=title, colour=discord.Colour.dark_green())
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
    if races.played:
        best = time_text(races.best_seconds, lang)
        fields.append(("stats.races", t(lang, "stats.races_value", played=races.played, won=races.won, best=best)))
    if events.played:
        value = t(lang, "stats.events_value", played=events.played, podiums=events.podiums, wins=events.wins)
        fields.append(("stats.events", value))
    for key, value in fields:
        embed.add_field(name=t(lang, key), value=value)
    embed.add_field(name=t(lang, "stats.recent"), value="".join(RESULT_MARKS[r] for r in stats.recent), inline=False)
    card = await profile.card_file(answer, who, place, record.rows, stats, races, _now(answer))
    await answer.announce(embed=embed, file=card)


# --------------------------------------------------------------------- leaderboard
def player_name(row: LeaderRow) -> str:
    """The name a player goes by, as plain text (a mention shows as @invalid-user on phones that do not
    know the member); a mention only for a player whose name was never seen."""
    return discord.utils.escape_markdown(row.name) if row.name else mention(row.player_id)


async def leaderboard_page(
    answer: Answer, period: str, page: int, rules: str | None = None
) -> tuple[discord.Embed, discord.ui.View]:
    """A page of this server's leaderboard (``rules``: one rule set only), with the asking player's rank."""
    inputs.checked(period=period, rules=rules)  # a page's button carries them too
    interaction, lang = answer.interaction, answer.lang
    since = period_start(period, _now(answer))
    guild_id, player_id = interaction.guild_id or 0, interaction.user.id
    board = await answer.bot.records.leaderboard(guild_id, since, page, PAGE, player_id, rules)
    page, pages, total, rows, rank = board.page, board.pages, board.total, board.rows, board.rank
    dash = t(lang, "stats.dash")
    lines = [
        t(
            lang,
            "leaderboard.row",
            rank=page * PAGE + i + 1,
            player=player_name(row),
            wins=t(lang, "leaderboard.wins", wins=row.wins, played=row.played),
            best=time_text(row.best_seconds, lang),
            fewest=row.fewest_moves if row.fewest_moves is not None else dash,
            hints=row.hints,
        )
        for i, row in enumerate(rows)
    ]
    title = t(lang, "leaderboard.title", period=t(lang, f"leaderboard.period.{period}"))
    if rules is not None:
        title += " · " + rules_words(Rules.from_token(rules), lang)
    if rank is not None:
        lines.append("")
        lines.append(t(lang, "leaderboard.your_rank", rank=rank, total=total))
    embed = discord.Embed(
        title=title,
        description="\n".join(lines) if rows else t(lang, "leaderboard.empty"),
        colour=discord.Colour.gold(),
    )
    embed.set_footer(text=t(lang, "leaderboard.page", page=page + 1, pages=pages))
    view = discord.ui.View(timeout=None)
    token = rules or "-"
    view.add_item(
        controls.leaderboard_page(
            period, max(page - 1, 0), "p", token, label=t(lang, "button.previous"), disabled=page == 0
        )
    )
    view.add_item(
        controls.leaderboard_page(
            period, min(page + 1, pages - 1), "n", token, label=t(lang, "button.next"), disabled=page >= pages - 1
        )
    )
    view.stop()
    return embed, view


async def show_leaderboard(interaction: discord.Interaction, period: str, rules: str | None = None) -> None:
    async with answering(interaction) as answer:
        place = answer.place
        if place is not None and not place.in_server:  # no server, no fellow players to rank
            await answer.say(t(answer.lang, "leaderboard.outside"))
            return
        answer.private = False
        embed, view = await leaderboard_page(answer, period, 0, rules)
        await answer.announce(embed=embed, view=view)


# --------------------------------------------------------------------------- reset
async def confirm_reset(answer: Answer, choice: str, player: int) -> None:
    """The answer to the reset confirmation: delete, or not."""
    interaction, lang = answer.interaction, answer.lang
    if choice == "no":
        await answer.update(content=t(lang, "reset.cancelled"), view=None)
        return
    if not interaction.permissions.manage_guild:
        await answer.say(t(lang, "error.manage_server"))
        return
    count = await answer.bot.records.reset(interaction.guild_id or 0, player or None)
    await answer.update(content=t(lang, "reset.done", count=count), view=None)


async def ask_reset(interaction: discord.Interaction, player: discord.abc.User | None) -> None:
    async with answering(interaction) as answer:
        await _ask_reset(answer, player)


async def _ask_reset(answer: Answer, player: discord.abc.User | None) -> None:
    interaction, lang = answer.interaction, answer.lang
    if not interaction.permissions.manage_guild:
        await answer.say(t(lang, "error.manage_server"))
        return
    player_id = player.id if player else 0
    text = t(lang, "reset.confirm_player", player=mention(player_id)) if player else t(lang, "reset.confirm_all")
    view = discord.ui.View(timeout=None)
    view.add_item(
        controls.confirmation(
            "pyrreset", "yes", player_id, label=t(lang, "button.confirm"), style=discord.ButtonStyle.danger
        )
    )
    view.add_item(controls.confirmation("pyrreset", "no", player_id, label=t(lang, "button.cancel")))
    view.stop()
    await answer.say(text, view=view)


# ------------------------------------------------------------------------- forget-me
async def ask_forget(interaction: discord.Interaction) -> None:
    async with answering(interaction) as answer:
        await _ask_forget(answer)


async def _ask_forget(answer: Answer) -> None:
    interaction, lang = answer.interaction, answer.lang
    view = discord.ui.View(timeout=None)
    player = interaction.user.id
    view.add_item(
        controls.confirmation(
            "pyrforget", "yes", player, label=t(lang, "button.forget"), style=discord.ButtonStyle.danger
        )
    )
    view.add_item(controls.confirmation("pyrforget", "no", player, label=t(lang, "button.cancel")))
    view.stop()
    await answer.say(t(lang, "forget.confirm"), view=view)


async def confirm_forget(answer: Answer, choice: str, player: int) -> None:
    """Delete a player's games and statistics on every server (only the player can)."""
    interaction, lang = answer.interaction, answer.lang
    if interaction.user.id != player:
        await answer.say(t(lang, "error.stale_board"))
        return
    if choice == "no":
        await answer.update(content=t(lang, "reset.cancelled"), view=None)
        return
    bot = answer.bot
    count, channels = await bot.records.forget(player)
    bot.styles.forget(player)
    for channel_id in channels:
        bot.manager.forget(channel_id)
    await answer.update(content=t(lang, "forget.done", count=count), view=None)
