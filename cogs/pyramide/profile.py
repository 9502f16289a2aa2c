"""A player's pictures: the achievements grid of /pyramide achievements and the player card of
/pyramide stats, in the player's language, with alt text. Drawn in a thread (tens of milliseconds),
so a press elsewhere never waits for them."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import discord

from pyramide.achievements import BY_KEY, CATALOGUE
from pyramide.daily import month_calendar, today
from pyramide.i18n import day_text, month_name, short_day, t
from pyramide.labels import format_duration
from pyramide.render.badges import BadgeCell, BadgeGrid, render_badges
from pyramide.render.card import CardBadge, PlayerCard, render_card
from pyramide_service import RaceStats, Rarity, ResultRow, Unlocked
from pyramide_service.stats import PlayerStats, recent_days

from ..answer import Answer, answering
from ..places import Place

ALT_LIMIT = 1024  # Discord's limit of an attachment's description
CREDIT_WAIT = 1.5  # a first look waits this long for a short history to be credited (the answer defers)


def share_text(share: float) -> str:
    if 0 < share < 0.01:
        return "<1%"
    return f"{round(share * 100)}%"


def _day(at: float) -> date:
    return datetime.fromtimestamp(at, UTC).date()


def _cut(text: str) -> str:
    return text if len(text) <= ALT_LIMIT else text[: ALT_LIMIT - 1] + "…"


async def _credited(answer: Answer, player_id: int) -> bool:
    """Whether the player's history is credited, waiting briefly for a short one to be."""
    credits = answer.bot.manager.credits
    if await credits.credited(player_id):
        return True
    await answer.defer()
    try:
        await asyncio.wait_for(asyncio.shield(credits.ensure(player_id)), CREDIT_WAIT)
    except TimeoutError:
        return False
    return True


# ---------------------------------------------------------------------------------- the grid
def badge_grid(
    name: str, unlocked: Sequence[Unlocked], rarity: Rarity, in_server: bool, lang: str
) -> tuple[BadgeGrid, str]:
    """The grid of every achievement (unlocked first, in catalogue order) and its alt text."""
    when = {u.key: u.unlocked_at for u in unlocked if u.key in BY_KEY}
    cells = []
    alt_unlocked, alt_locked = [], []
    for achievement in sorted(CATALOGUE, key=lambda a: a.key not in when):
        key = achievement.key
        words = t(lang, f"achievement.{key}.name")
        description = t(lang, f"achievement.{key}.description")
        share = share_text(rarity.share(key))
        if key in when:
            day = day_text(lang, _day(when[key]))
            cells.append(BadgeCell(key, achievement.group, words, day, share, True))
            alt_unlocked.append(f"{words} ({day}, {share})")
        else:
            cells.append(BadgeCell(key, achievement.group, words, description, share, False))
            alt_locked.append(f"{words}: {description} ({share})")
    count = t(lang, "achievements.count", count=len(when), total=len(CATALOGUE))
    grid = BadgeGrid(
        title=t(lang, "achievements.title", player=name),
        subtitle=count,
        note=t(lang, "achievements.rarity_server" if in_server else "achievements.rarity_everyone"),
        cells=tuple(cells),
    )
    alt = f"{grid.title}. {count}. " + "; ".join(alt_unlocked)
    alt += (". " if alt_unlocked else "") + t(lang, "achievements.locked") + ": " + "; ".join(alt_locked)
    return grid, _cut(alt)


async def show_achievements(interaction: discord.Interaction, player: discord.abc.User | None) -> None:
    async with answering(interaction, private=False) as answer:
        await achievements_answer(answer, player)


async def achievements_answer(answer: Answer, player: discord.abc.User | None) -> None:
    """/pyramide achievements [player]: the grid, public, with the same privacy as the statistics."""
    interaction, lang, place = answer.interaction, answer.lang, answer.place
    if place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    if not place.in_server and player is not None and player.id != interaction.user.id:
        await answer.say(t(lang, "achievements.outside_own_only"))
        return
    who = player or interaction.user
    credited = await _credited(answer, who.id)
    found = await answer.bot.profiles.achievements(who.id, place.guild_id if place.in_server else None)
    grid, alt = badge_grid(who.display_name, found.unlocked, found.rarity, place.in_server, lang)
    png = await asyncio.to_thread(render_badges, grid)
    picture = discord.File(io.BytesIO(png), filename="achievements.png", description=alt)
    if credited:
        await answer.announce(file=picture)
    else:
        await answer.announce(content=t(lang, "achievements.crediting"), file=picture)


# ---------------------------------------------------------------------------------- the card
async def card_file(
    answer: Answer,
    who: discord.abc.User,
    place: Place,
    rows: Sequence[ResultRow],
    stats: PlayerStats,
    races: RaceStats,
    now: datetime,
) -> discord.File:
    """The player card of /pyramide stats as an attachment with its alt text."""
    interaction, lang, bot = answer.interaction, answer.lang, answer.bot
    day = today(now)
    await _credited(answer, who.id)
    found = await bot.profiles.achievements(who.id, place.guild_id if place.in_server else None)
    unlocked, rarity = found.unlocked, found.rarity
    month = await bot.profiles.daily_month(who.id, day)
    calendar = month_calendar(day.year, day.month, month.attempts, day, month.day_streak)
    if place.in_server:
        subtitle = interaction.guild.name if interaction.guild and interaction.guild.name else str(place.stats_id)
    else:
        subtitle = t(lang, "card.outside")
    card = player_card(who.display_name, subtitle, rows, stats, races, unlocked, rarity, calendar.days, day, lang)
    png = await asyncio.to_thread(render_card, card)
    return discord.File(io.BytesIO(png), filename="card.png", description=card_alt(card, calendar.days, lang))


def player_card(
    name: str,
    subtitle: str,
    rows: Sequence[ResultRow],
    stats: PlayerStats,
    races: RaceStats,
    unlocked: Sequence[Unlocked],
    rarity: Rarity,
    dailies: Sequence[str],
    day: date,
    lang: str,
) -> PlayerCard:
    dash = t(lang, "stats.dash")
    figures = (
        (t(lang, "stats.played"), str(stats.played)),
        (t(lang, "stats.won"), str(stats.won)),
        (t(lang, "stats.win_rate"), f"{stats.win_rate:.0%}"),
        (t(lang, "stats.best_time"), format_duration(stats.best_seconds) if stats.best_seconds is not None else dash),
        (t(lang, "stats.average_score"), f"{stats.average_score:.0f}"),
        (t(lang, "stats.hints"), str(stats.hints)),
        (t(lang, "stats.streak"), str(stats.current_streak)),
        (t(lang, "stats.best_streak"), str(stats.best_streak)),
        (t(lang, "stats.races"), t(lang, "card.races", count=races.played, won=races.won)),
    )
    known = [u for u in unlocked if u.key in BY_KEY]
    badges: list[tuple[str, CardBadge]] = []
    if known:
        latest = max(known, key=lambda u: (u.unlocked_at, u.key))
        rarest = min(known, key=lambda u: (rarity.share(u.key), -u.unlocked_at, u.key))
        for label, chosen, detail in (
            (t(lang, "card.latest"), latest, day_text(lang, _day(latest.unlocked_at))),
            (t(lang, "card.rarest"), rarest, t(lang, "card.rarity", share=share_text(rarity.share(rarest.key)))),
        ):
            words = t(lang, f"achievement.{chosen.key}.name")
            badges.append((label, CardBadge(chosen.key, BY_KEY[chosen.key].group, words, detail)))
    return PlayerCard(
        title=name,
        subtitle=subtitle,
        figures=figures,
        chart_title=t(lang, "card.chart"),
        chart=tuple(recent_days(rows, day)),
        chart_ends=(short_day(lang, day - timedelta(days=29)), short_day(lang, day)),
        legend=(t(lang, "card.games_legend"), t(lang, "card.wins_legend")),
        dailies_title=t(lang, "card.dailies", month=month_name(lang, day.year, day.month)),
        dailies=tuple(str(kind) for kind in dailies),
        today=day.day,
        badges_title=t(lang, "achievements.count", count=len(known), total=len(CATALOGUE)),
        badges=tuple(badges),
        no_badge=t(lang, "card.none"),
    )


def card_alt(card: PlayerCard, dailies: Sequence[str], lang: str) -> str:
    """The card's figures in words, for a screen reader."""
    figures = ", ".join(f"{label}: {value}" for label, value in card.figures)
    games = sum(g for g, _ in card.chart)
    wins = sum(w for _, w in card.chart)
    won = sum(kind in ("clean", "hinted") for kind in dailies)
    played = won + sum(kind == "gave_up" for kind in dailies)
    parts = [
        f"{card.title} · {card.subtitle}.",
        figures + ".",
        t(lang, "card.alt_chart", games=games, wins=wins),
        t(lang, "card.alt_dailies", won=won, played=played),
        card.badges_title + ".",
    ]
    parts += [f"{label}: {badge.name} ({badge.detail})." for label, badge in card.badges]
    return _cut(" ".join(parts))
