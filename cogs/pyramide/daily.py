"""The daily challenge in Discord: one counted attempt a player and a day, opened once, played in a
thread of its own (or in place where a thread cannot be made), never dealt elsewhere during its day,
and a spoiler-free result to share."""

from __future__ import annotations

import io
import logging
from datetime import UTC, date, datetime

import discord

from pyramide import Game
from pyramide.daily import (
    daily_number,
    day_key,
    today,
)
from pyramide.i18n import t
from pyramide_discord.daily_words import already_words, month_png, next_daily
from pyramide_discord.words import mention, share_text
from pyramide_service import PLAYING, DailyAttempt
from pyramide_service.opening import AttemptTaken, Deal, Dealt, EntryTaken, EventClosed, Here, InThread, open_deal

from ..answer import Answer, answering
from ..common import missing_permission
from .home import of_this_place
from .posting import AnswerBoards, answer_attempt
from .records import time_text

log = logging.getLogger(__name__)

# What the bot needs to open a thread of the player's own and play in it.
THREAD_NEEDS = ("send_messages_in_threads", "attach_files", "embed_links")
IN_PLACE = (discord.Thread, discord.VoiceChannel, discord.StageChannel)


def now_of(answer: Answer) -> datetime:
    return datetime.fromtimestamp(answer.bot.clock(), UTC)


async def todays_game(answer: Answer, day: date) -> Game:
    """The day's deal for this deployment (worked out once a day, in the solver's worker)."""
    return Game.from_code(await answer.bot.dailies.code(day))


def missing_thread_permission(interaction: discord.Interaction, needs: tuple[str, ...] = THREAD_NEEDS) -> str | None:
    """The first permission the bot lacks to play in a private thread here (making it, then ``needs``
    in it), by its Discord name; ``None`` when it has them all."""
    perms = interaction.app_permissions
    if not (perms.create_private_threads or perms.create_public_threads):
        return "Create Private Threads"
    return missing_permission(interaction, *needs)


async def refuses_a_thread(answer: Answer, in_place: bool) -> bool:
    """Whether a counted deal cannot be given a private thread here for want of a permission of the bot
    (the player is told which); a deal played in place (already in a thread) needs none."""
    missing = None if in_place else missing_thread_permission(answer.interaction)
    if missing is not None:
        await answer.say(t(answer.lang, "error.daily_permission", permission=missing))
    return missing is not None


async def play_daily(interaction: discord.Interaction) -> None:
    """Today's deal: the player's one counted attempt, in a private thread of their own."""
    async with answering(interaction) as answer:
        lang, bot, place = answer.lang, answer.bot, answer.place
        if place is None:
            await answer.say(t(lang, "error.guild_only"))
            return
        now = now_of(answer)
        day = today(now)
        key, number = day_key(day), daily_number(day)
        attempt = await bot.daily_attempts.attempt(key, interaction.user.id)
        if attempt is not None:
            await answer.say(await _already(answer, attempt, lang, now))
            return
        # Where no thread can be made (a DM, a group DM, a server without the bot) it is played here,
        # as an answer; in a thread or a voice channel, in the channel itself.
        here = not place.threads
        in_place = here or isinstance(interaction.channel, IN_PLACE)
        if not here and await refuses_a_thread(answer, in_place):
            return
        await answer.defer()
        deal = Deal(
            await todays_game(answer, day),
            place.stats_id,
            interaction.user.id,
            interaction.user.display_name,
            lang,
            daily=key,
        )

        async def title(dealt: Dealt) -> list[str]:
            return [t(lang, "daily.title", number=number)]

        table = AnswerBoards(
            answer,
            title,
            thread_name=lambda player: t(lang, "daily.thread", number=number, player=player.display_name),
            note="\n".join((t(lang, "daily.ready_here", number=number), next_daily(lang, now))),
            send_here=not here,
        )
        where = Here(place.channel_id) if in_place else InThread()
        opened = await open_deal(bot.manager, table, deal, where, changes=bot.changes)
        if isinstance(opened, AttemptTaken):  # the same player opened it at the same moment elsewhere
            await answer.say(await _already(answer, opened.attempt, lang, now))
            return
        assert not isinstance(opened, EntryTaken | EventClosed)  # (an event's refusals: no event here)

        def ready(channel_id: int) -> str:
            return "\n".join((t(lang, "daily.ready", number=number, thread=f"<#{channel_id}>"), next_daily(lang, now)))

        await answer_attempt(answer, opened, in_answer=here, busy=t(lang, "error.daily_busy_here"), ready=ready)


async def _already(answer: Answer, attempt: DailyAttempt, lang: str, now: datetime) -> str:
    place = answer.place
    asked_in = place.stats_id if place is not None and place.in_server else None
    return await already_words(answer.bot.manager, answer.bot.solver, attempt, lang, now, asked_in)


async def share_daily(answer: Answer, game_id: int) -> None:
    """The Share button: the result of a finished counted daily, posted where the thread belongs."""
    interaction, lang, bot = answer.interaction, answer.lang, answer.bot
    record = await bot.manager.record(game_id)
    if (
        record is None
        or not record.counted
        or record.status == PLAYING
        or not of_this_place(record, answer.place)
        or record.daily is None
    ):
        await answer.say(t(lang, "error.stale_board"))
        return
    if record.owner_id != interaction.user.id:
        await answer.say(t(lang, "error.not_your_game", owner=mention(record.owner_id)))
        return
    attempt = await bot.daily_attempts.attempt(record.daily, record.owner_id)
    text = (
        t(lang, "daily.shared_by", player=mention(record.owner_id))
        + "\n"
        + share_text(record, attempt.picture if attempt else None, lang, bot.solver)
    )
    place = answer.place
    if place is not None and not place.threads:  # no thread to come from: shared as this press's answer
        answer.private = False
        await answer.announce(content=text, allowed_mentions=discord.AllowedMentions.none())
        return
    channel = interaction.channel
    target = channel.parent if isinstance(channel, discord.Thread) and channel.parent is not None else channel
    if not isinstance(target, discord.abc.Messageable):
        await answer.say(t(lang, "error.stale_board"))
        return
    await target.send(text, allowed_mentions=discord.AllowedMentions.none())
    await answer.say(t(lang, "daily.share_posted", channel=f"<#{getattr(target, 'id', 0)}>"))


async def show_daily_leaderboard(interaction: discord.Interaction) -> None:
    async with answering(interaction) as answer:
        lang, attempts, place = answer.lang, answer.bot.daily_attempts, answer.place
        now = now_of(answer)
        day = today(now)
        if place is not None and not place.in_server:
            await show_daily_standing(answer, now)
            return
        rows = await attempts.rows(day_key(day), interaction.guild_id or 0)
        players, winners = await attempts.totals(day_key(day))
        lines = [
            t(
                lang,
                "daily.leaderboard.row",
                rank=i + 1,
                player=mention(row.player_id),
                result=t(lang, f"daily.result.{row.status}"),
                time=time_text(row.seconds, lang),
                moves=t(lang, "daily.moves", moves=row.moves),
                hints=row.hints,
            )
            for i, row in enumerate(rows)
        ]
        embed = discord.Embed(
            title=t(lang, "daily.leaderboard.title", number=daily_number(day)),
            description="\n".join(lines) or t(lang, "daily.leaderboard.empty"),
            colour=discord.Colour.blurple(),
        )
        embed.add_field(
            name="\u200b",
            value=t(
                lang,
                "daily.totals",
                players=t(lang, "daily.players", players=players),
                winners=t(lang, "daily.winners", winners=winners),
            ),
            inline=False,
        )
        embed.set_footer(text=next_daily(lang, now))
        answer.private = False
        await answer.announce(embed=embed)


async def show_month(interaction: discord.Interaction, *, last: bool = False) -> None:
    """/pyramide daily month: the player's calendar of this month (or the last), drawn as a picture."""
    async with answering(interaction) as answer:
        lang, bot = answer.lang, answer.bot
        png, alt = await month_png(bot.daily_attempts, interaction.user.id, lang, today(now_of(answer)), last)
        answer.private = False  # shown in the channel, as the daily ranking is: a badge is worth showing
        await answer.announce(file=discord.File(io.BytesIO(png), filename="month.png", description=alt))


async def show_daily_standing(answer: Answer, now: datetime) -> None:
    """The daily leaderboard outside servers (a DM, a group DM): the day's totals across every place,
    and the player's own result and rank among everyone who finished it (no list of strangers)."""
    interaction, lang, bot = answer.interaction, answer.lang, answer.bot
    day = today(now)
    key = day_key(day)
    players, winners = await bot.daily_attempts.totals(key)
    attempt = await bot.daily_attempts.attempt(key, interaction.user.id)
    totals = t(
        lang,
        "daily.totals.everywhere",
        players=t(lang, "daily.players", players=players),
        winners=t(lang, "daily.winners", winners=winners),
    )
    if attempt is None:
        mine = t(lang, "daily.standing.none")
    elif attempt.status is None:
        mine = t(lang, "daily.standing.playing")
    else:
        rank = await bot.daily_attempts.rank(key, interaction.user.id)
        mine = t(
            lang,
            "daily.standing.mine",
            result=t(lang, f"daily.result.{attempt.status}"),
            rank=rank or players,
            players=players,
        )
        record = await bot.manager.record(attempt.game_id)
        if record is not None:
            mine += "\n" + share_text(record, attempt.picture, lang, answer.bot.solver)
    embed = discord.Embed(
        title=t(lang, "daily.standing.title", number=daily_number(day)),
        description=mine,
        colour=discord.Colour.blurple(),
    )
    embed.add_field(name="\u200b", value=totals, inline=False)
    embed.set_footer(text=next_daily(lang, now))
    answer.private = False
    await answer.announce(embed=embed)
