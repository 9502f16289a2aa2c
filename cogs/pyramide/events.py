"""Server events in Discord: started by a moderator with its deals fixed, each deal one counted attempt a
player (in a private thread of their own, or in place where no thread can be made, as the daily), an
announcement kept up to date, and the end (at the deadline or earlier) decided and announced once by
the database, with the codes revealed and how each could have been won a press away."""

from __future__ import annotations

import asyncio
import io
import logging

import discord

from pyramide import Game, Rules
from pyramide.i18n import t
from pyramide.render import render_podium, render_standings
from pyramide_discord.failures import DISCORD_ERRORS, log_refusal, lost
from pyramide_discord.finders import Finder, winnable_game
from pyramide_discord.host import Host
from pyramide_service import EventRecord, EventStart
from pyramide_service.event_open import AllPlayed, DealWaiting, NextDealt, TakenMeanwhile
from pyramide_service.events import MAX_NAME, MAX_RUNNING, deal_key, rank_of
from pyramide_service.opening import Dealt, EventClosed, Here, InThread, Player
from pyramide_service.solving import SolverService

from ..answer import Answer, answering
from ..common import bot_of, missing_permission
from . import announcements as shown
from .animation import post_animation
from .daily import IN_PLACE, refuses_a_thread
from .home import Reach
from .podium import podium_picture, standings_picture
from .posting import AnswerBoards, answer_attempt

log = logging.getLogger(__name__)

ANNOUNCEMENT_NEEDS = ("send_messages", "embed_links", "attach_files")


def in_a_server_with_the_bot(answer: Answer) -> bool:
    return answer.place is not None and answer.place.reach is Reach.SERVER


async def refused_here(answer: Answer, *, organising: bool = False) -> bool:
    """Whether the interaction is refused, the player told why: server events live in a server with the bot,
    and only those who manage it (``organising``) start or end one."""
    if not in_a_server_with_the_bot(answer):
        await answer.say(t(answer.lang, "event.not_here"))
        return True
    if organising and not answer.interaction.permissions.manage_guild:
        await answer.say(t(answer.lang, "error.manage_server"))
        return True
    return False


# ------------------------------------------------------------------------------------- starting
async def find_deals(solver: SolverService, rules: Rules, count: int, finder: Finder | None, lang: str) -> list[Game]:
    """``count`` different winnable deals (of the difficulty, with a ``finder``), found in the solver's
    worker; a search that found none in time (its fallback comes with a note) is asked again, a few times
    at most, so that every deal is proved winnable (and of the tier)."""
    games: list[Game] = []
    keys: set[str] = set()
    for _ in range(count * 3):
        if len(games) == count:
            break
        game, notes = await (finder or winnable_game)(solver, rules, lang)
        if not notes and deal_key(game) not in keys:
            keys.add(deal_key(game))
            games.append(game)
    return games


async def start_event(
    interaction: discord.Interaction,
    name: str,
    deals: int,
    hours: float,
    rules: Rules,
    difficulty: str | None,
    finder: Finder | None,
) -> None:
    async with answering(interaction) as answer:
        lang, bot = answer.lang, answer.bot
        if await refused_here(answer, organising=True):
            return
        missing = missing_permission(interaction, *ANNOUNCEMENT_NEEDS)
        if missing is not None or not isinstance(interaction.channel, discord.abc.Messageable):
            await answer.say(t(lang, "event.error.permission", permission=missing or "Send Messages"))
            return
        name = " ".join(name.split())[:MAX_NAME]
        if not name:
            await answer.say(t(lang, "event.error.name"))
            return
        guild_id = interaction.guild_id or 0
        if len(await bot.events.running_in(guild_id)) >= MAX_RUNNING:
            await answer.say(t(lang, "event.error.limit", limit=MAX_RUNNING))  # said before any search
            return
        await answer.defer()
        games = await find_deals(bot.solver, rules, deals, finder, lang)
        if not games:  # the solver found none in time: nothing is started
            await answer.say(t(lang, "event.error.no_deals"))
            return
        now = bot.clock()
        start = EventStart(
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            name=name,
            rules=rules.token,
            difficulty=difficulty,
            deals=tuple((game.code, deal_key(game)) for game in games),
            created_by=interaction.user.id,
            at=now,
            ends_at=now + hours * 3600,
            locale=lang,
        )
        event = await bot.events.start(start)
        if event is None:  # the database holds the limit, whatever was read above
            await answer.say(t(lang, "event.error.limit", limit=MAX_RUNNING))
            return
        event_id = event.id
        try:
            sent = await interaction.channel.send(**shown.announcement(event, [], lang))
        except DISCORD_ERRORS as error:
            log_refusal(f"event {event_id}: announcement", error)
            await answer.say(t(lang, "event.started_unannounced", name=event.name))
            return
        await bot.events.announced(event_id, sent.id)
        await answer.say(
            t(lang, "event.started", name=event.name, deals=len(games), when=f"<t:{int(event.ends_at)}:f>")
        )


# -------------------------------------------------------------------------------------- playing
async def chosen_event(answer: Answer, event_id: int | None) -> EventRecord | None:
    """The event a player plays: the one named (a button), or the server's running event where they have a
    deal left (the oldest first), else its newest running one. Says why not when there is none."""
    interaction = answer.interaction
    lang, events = answer.lang, answer.bot.events
    if event_id is not None:
        event = await events.event(event_id)
        if event is None or event.guild_id != interaction.guild_id:
            await answer.say(t(lang, "error.stale_board"))
            return None
        return event
    running = await events.running_in(interaction.guild_id or 0)
    if not running:
        await answer.say(t(lang, "event.none_running"))
        return None
    for event in reversed(running):  # oldest first
        if len(await events.event_entries(event.id, interaction.user.id)) < len(event.codes):
            return event
    return running[0]


async def play_event(interaction: discord.Interaction, event_id: int | None = None) -> None:
    """The player's next unplayed deal of an event: one counted attempt, timed from the deal."""
    async with answering(interaction) as answer:
        if await refused_here(answer):
            return
        event = await chosen_event(answer, event_id)
        if event is None:
            return
        await deal_event(answer, event)


async def done_words(bot: Host, event: EventRecord, player: int, lang: str) -> str:
    standings = await bot.events.standings(event.id)
    place = rank_of(standings, player)
    if place is None:
        return t(lang, "event.done_waiting", name=event.name)
    mine = standings[place - 1]
    return t(
        lang,
        "event.done",
        name=event.name,
        removed=mine.removed,
        score=mine.score,
        place=place,
        players=len(standings),
    )


async def deal_event(answer: Answer, event: EventRecord) -> None:
    """The player's next deal of ``event`` (``EventDeals.open_next``), worded."""
    interaction = answer.interaction
    lang, bot, place = answer.lang, answer.bot, answer.place
    assert place is not None
    in_place = isinstance(interaction.channel, IN_PLACE)
    if await refuses_a_thread(answer, in_place):
        return
    await answer.defer()
    deals = len(event.codes)

    def boards_for(position: int) -> AnswerBoards:
        number = position + 1

        async def title(dealt: Dealt) -> list[str]:
            return [t(lang, "event.deal_title", name=event.name, number=number, deals=deals)]

        return AnswerBoards(
            answer,
            title,
            thread_name=lambda player: t(
                lang, "event.thread", name=event.name, number=number, player=player.display_name
            ),
            note=t(lang, "event.ready_here", number=number, deals=deals),
        )

    where = Here(place.channel_id) if in_place else InThread()
    player = Player(interaction.user.id, interaction.user.display_name, place.stats_id, lang)
    match await bot.event_deals.open_next(event, player, boards_for, where):
        case EventClosed():
            await answer.say(t(lang, "event.over", name=event.name))
        case DealWaiting(entry, channel_id):
            there = f"<#{channel_id}>" if channel_id is not None else "—"
            await answer.say(t(lang, "event.waiting", number=entry.position + 1, thread=there))
        case AllPlayed():
            await answer.say(await done_words(bot, event, interaction.user.id, lang))
        case TakenMeanwhile(position):  # the same player opened it at the same moment elsewhere
            await answer.say(t(lang, "event.taken", number=position + 1))
        case NextDealt(position, opened):
            number = position + 1

            def ready(channel_id: int) -> str:
                return t(lang, "event.ready", number=number, deals=deals, thread=f"<#{channel_id}>")

            busy = t(lang, "event.busy_here")
            await answer_attempt(answer, opened, in_answer=in_place, busy=busy, ready=ready)


# ------------------------------------------------------------------------------ looking and ending
async def announce_results(bot: Host, event_id: int) -> None:
    """Post an ended event's results, if the database lets this caller (once, for one caller): the
    announcement loses its Play button, and the final standings, the podium and the codes are posted."""
    if not await bot.events.claim_results(event_id, bot.clock()):
        return
    event = await bot.events.event(event_id)
    if event is None:
        return
    await shown.redraw(bot, event_id)  # (its claim told the announcements it is final: no more edits of it)
    if event.cancelled:
        return
    lang = event.locale or "en"
    standings = await bot.events.standings(event_id)
    embed, view = shown.results(event, standings, lang)
    picture, alt = podium_picture(event, standings, lang)
    embed.set_image(url="attachment://podium.png")
    png = await asyncio.to_thread(render_podium, picture)  # drawn off the event loop
    file = discord.File(io.BytesIO(png), filename="podium.png", description=alt)
    channel = bot.get_partial_messageable(event.channel_id, guild_id=event.guild_id)
    try:
        # The event's own nonce (enforced): a lost post that landed after all is returned, not made twice.
        none, nonce = discord.AllowedMentions.none(), f"pyr-results-{event_id}"[:25]
        sent = await channel.send(embed=embed, view=view, file=file, allowed_mentions=none, nonce=nonce)
    except DISCORD_ERRORS as error:
        log_refusal(f"event {event_id}: results", error)
        if lost(error):  # lost on the way (a 5xx, a timeout): the claim is given back, the next check posts
            await bot.events.release_results(event_id)
        return  # refused (the channel went): the results stay on /pyramide event standings
    await bot.events.results_posted(event_id, sent.id)


async def pick(answer: Answer, event_id: str | None, *, running: bool) -> EventRecord | None:
    """The event an option names (an id from autocomplete), else the server's newest (running) one."""
    interaction = answer.interaction
    lang, events = answer.lang, answer.bot.events
    if event_id:
        event = await events.event(int(event_id)) if event_id.isdigit() and len(event_id) < 19 else None
        if event is None or event.guild_id != interaction.guild_id:
            await answer.say(t(lang, "event.unknown"))
            return None
        return event
    found = await events.of_server(interaction.guild_id or 0)
    if running:
        found = [e for e in found if e.running]
    if not found:
        await answer.say(t(lang, "event.none_running" if running else "event.none"))
        return None
    return found[0]


async def event_choices(interaction: discord.Interaction, current: str, *, running: bool) -> list[tuple[str, str]]:
    events = await bot_of(interaction).events.of_server(interaction.guild_id or 0, 25)
    return [
        (e.name[:100], str(e.id)) for e in events if (e.running or not running) and current.lower() in e.name.lower()
    ][:25]


async def show_standings(interaction: discord.Interaction, event_id: str | None) -> None:
    async with answering(interaction, private=False) as answer:
        lang, events = answer.lang, answer.bot.events
        if await refused_here(answer):
            return
        event = await pick(answer, event_id, running=False)
        if event is None:
            return
        standings = await events.standings(event.id)
        mine = await shown.mine_line(events, event, standings, interaction.user.id, lang)
        embed = shown.standings_embed(event, standings, lang, mine)
        picture, alt = standings_picture(event, standings, lang)
        png = await asyncio.to_thread(render_standings, picture)  # drawn off the event loop
        file = discord.File(io.BytesIO(png), filename="standings.png", description=alt)
        embed.set_image(url="attachment://standings.png")
        quiet = discord.AllowedMentions.none()
        if event.ended_at is not None and not event.cancelled:  # the results wherever they could not be posted
            results, view = shown.results(event, standings, lang)
            await answer.announce(embeds=[embed, results], view=view, file=file, allowed_mentions=quiet)
            return
        await answer.announce(embed=embed, file=file, allowed_mentions=quiet)


async def show_list(interaction: discord.Interaction) -> None:
    async with answering(interaction, private=False) as answer:
        lang = answer.lang
        if await refused_here(answer):
            return
        events = await answer.bot.events.of_server(interaction.guild_id or 0)
        lines = [
            t(lang, "event.list.row", name=discord.utils.escape_markdown(e.name), deals=len(e.codes))
            + " · "
            + shown.state_line(e, lang)
            for e in events
        ]
        embed = discord.Embed(
            title=t(lang, "event.list.title"),
            description=shown.fitted(lines, shown.DESCRIPTION_LIMIT, lambda n: t(lang, "event.list.more", count=n))
            or t(lang, "event.none"),
            colour=discord.Colour.gold(),
        )
        await answer.announce(embed=embed)


async def end_command(interaction: discord.Interaction, event_id: str | None, *, cancelled: bool) -> None:
    """/pyramide-admin event end|cancel: decided by the database (a second one, or the deadline a moment
    before, finds it over already)."""
    async with answering(interaction) as answer:
        lang, bot = answer.lang, answer.bot
        if await refused_here(answer, organising=True):
            return
        event = await pick(answer, event_id, running=True)
        if event is None:
            return
        if await bot.events.end(event.id, bot.clock(), cancelled=cancelled) is None:
            await answer.say(t(lang, "event.over", name=event.name))
            return
        await answer.say(t(lang, "event.cancelled" if cancelled else "event.ended", name=event.name))
        await announce_results(bot, event.id)  # in this flow: a stop waits for it


async def show_line(answer: Answer, event_id: int, position: int) -> None:
    """An ended event's deal: how it could have been won (the codes of a running event stay hidden)."""
    event = await answer.bot.events.event(event_id)
    guild_id = answer.place.guild_id if answer.place is not None else None
    if event is None or event.running or position >= len(event.codes) or event.guild_id != guild_id:
        await answer.say(t(answer.lang, "error.stale_board"))
        return
    await post_animation(answer, "line", event.codes[position])
