"""A server event as players see it: its announcement (the Play button and the standings), the standings
and results embeds, and the rule that keeps its codes hidden while it runs (no deal of a running event
is dealt elsewhere)."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from typing import Any, Final, Literal

import discord

from pyramide import Rules
from pyramide.i18n import t
from pyramide.labels import format_duration
from pyramide_discord import controls
from pyramide_discord.failures import DISCORD_ERRORS, log_refusal
from pyramide_discord.host import Host
from pyramide_discord.words import mention, rules_words
from pyramide_service import EventRecord, EventStanding
from pyramide_service.events import Entries, rank_of, ranked
from pyramide_service.tasks import Supervised

SHOWN = 10  # players listed on an announcement or a standings embed (Discord's embed limits hold)
EDIT_SECONDS = 4.0  # the least time between two edits of an announcement

log = logging.getLogger(__name__)


def player_name(standing: EventStanding) -> str:
    return discord.utils.escape_markdown(standing.name) if standing.name else mention(standing.player_id)


def standing_line(lang: str, place: int, standing: EventStanding) -> str:
    medal = {1: "🥇", 2: "🥈", 3: "🥉"}.get(place, f"{place}.")
    return t(
        lang,
        "event.row",
        medal=medal,
        player=player_name(standing),
        removed=standing.removed,
        score=standing.score,
        time=format_duration(standing.seconds),
        played=standing.played,
        hints=standing.hints,
    )


FIELD_LIMIT = 1024  # characters of an embed field's value (Discord's limit)
DESCRIPTION_LIMIT = 4096  # of an embed's description
TWO_EMBEDS = 1800  # a description of one of two embeds of a message (together under Discord's 6,000)


def fitted(lines: list[str], limit: int, more: Callable[[int], str], hidden: int = 0) -> str:
    """Whole lines, as many as fit within ``limit`` characters, then ``more(n)`` for the ``n`` left out
    (``hidden`` of them left out before): no line is cut."""
    kept: list[str] = []
    size = 0
    for i, line in enumerate(lines):
        left = len(lines) - i - 1 + hidden
        need = size + (1 if kept else 0) + len(line)
        if need + (len(more(left)) + 1 if left else 0) > limit:
            break
        kept.append(line)
        size = need
    left = len(lines) - len(kept) + hidden
    if left:
        kept.append(more(left))
    return "\n".join(kept)


def standings_text(lang: str, standings: list[EventStanding], limit: int = TWO_EMBEDS) -> str:
    """The first ``SHOWN`` players, one whole line each while they fit in ``limit``, then how many more."""
    if not standings:
        return t(lang, "event.no_results")
    lines = [standing_line(lang, place, s) for place, s in ranked(standings)[:SHOWN]]
    return fitted(lines, limit, lambda n: t(lang, "event.more", count=n), hidden=len(standings) - len(lines))


def rules_of(event: EventRecord, lang: str) -> str:
    rules = Rules.from_token(event.rules)
    words = rules_words(rules, lang) if not rules.is_default else t(lang, "event.rules_standard")
    if event.difficulty:
        words += " · " + t(lang, f"choice.tier.{event.difficulty}")
    return words


def state_line(event: EventRecord, lang: str) -> str:
    if event.cancelled:
        return t(lang, "event.state.cancelled")
    if event.ended_at is not None:
        return t(lang, "event.state.ended", when=f"<t:{int(event.ended_at)}:f>")
    return t(lang, "event.state.running", when=f"<t:{int(event.ends_at)}:R>", date=f"<t:{int(event.ends_at)}:f>")


def announcement(event: EventRecord, standings: list[EventStanding], lang: str) -> dict[str, Any]:
    """The announcement message: what the event is, how it is scored, the standings, and Play while it runs."""
    embed = discord.Embed(
        title=t(lang, "event.title", name=event.name)[:256],
        description="\n".join(
            (
                t(lang, "event.deals", deals=len(event.codes)),
                state_line(event, lang),
                t(lang, "event.rules", rules=rules_of(event, lang)),
            )
        ),
        colour=discord.Colour.gold(),
    )
    embed.add_field(name=t(lang, "event.scoring.title"), value=t(lang, "event.scoring"), inline=False)
    embed.add_field(
        name=t(lang, "event.standings.title"), value=standings_text(lang, standings, FIELD_LIMIT), inline=False
    )
    embed.set_footer(text=t(lang, "event.footer", players=len(standings)))
    view = discord.ui.View(timeout=None)
    if event.running:
        view.add_item(controls.event_play_button(event.id, label=t(lang, "event.button.play")))
    view.stop()
    return {"embed": embed, "view": view, "allowed_mentions": discord.AllowedMentions.none()}


def standings_embed(event: EventRecord, standings: list[EventStanding], lang: str, mine: str | None) -> discord.Embed:
    embed = discord.Embed(
        title=t(lang, "event.standings.of", name=event.name)[:256],
        description=standings_text(lang, standings),
        colour=discord.Colour.gold(),
    )
    embed.add_field(name="\u200b", value=state_line(event, lang), inline=False)
    if mine:
        embed.add_field(name=t(lang, "event.standings.mine"), value=mine[:300], inline=False)
    return embed


def results(event: EventRecord, standings: list[EventStanding], lang: str) -> tuple[discord.Embed, discord.ui.View]:
    """The final standings and the revealed codes, each with its winning line a press away."""
    embed = discord.Embed(
        title=t(lang, "event.results.title", name=event.name)[:256],
        description=standings_text(lang, standings),
        colour=discord.Colour.gold(),
    )
    codes = "\n".join(t(lang, "event.results.code", number=i + 1, code=code) for i, code in enumerate(event.codes))
    embed.add_field(name=t(lang, "event.results.codes"), value=codes[:1024], inline=False)
    view = discord.ui.View(timeout=None)
    for position in range(len(event.codes)):
        label = t(lang, "event.button.line", number=position + 1)
        view.add_item(controls.event_line_button(event.id, position, label=label))
    view.stop()
    return embed, view


async def mine_line(
    book: Entries, event: EventRecord, standings: list[EventStanding], player: int, lang: str
) -> str:
    """Where a player stands: their place and totals, or how many deals they have left."""
    entries = await book.event_entries(event.id, player)
    place = rank_of(standings, player)
    left = len(event.codes) - len(entries)
    if place is None:
        return t(lang, "event.mine.none", left=left)
    standing = standings[place - 1]
    words = t(lang, "event.mine", place=place, players=len(standings), removed=standing.removed)
    if left and event.running:
        words += " " + t(lang, "event.mine.left", left=left)
    return words


class Announcements:
    """The announcements being kept up to date by this process: one pending edit per event at most, at most
    one every ``EDIT_SECONDS`` (a burst of finished deals becomes one edit showing the newest figures), and
    the version of the standings each last showed (the loop redraws those another process changed, and
    those whose last edit failed on the way). An event's bookkeeping goes once it is over (``drop``)."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self.shown: dict[int, int] = {}
        self.last_edit: dict[int, float] = {}
        self.pending: dict[int, asyncio.Task[None]] = {}
        self.dirty: set[int] = set()  # events whose standings changed since their last edit began
        self.gone: set[int] = set()  # events whose announcement was deleted
        self._tasks = Supervised("event announcements")

    def schedule(self, event_id: int) -> None:
        """Redraw the announcement now, or once ``EDIT_SECONDS`` have passed since its last edit; a change
        arriving while an edit is on its way is drawn by a further edit (the newest figures always land)."""
        self.dirty.add(event_id)
        task = self.pending.get(event_id)
        if task is not None and not task.done():
            return  # the edit waiting (or the one after the edit under way) reads the newest figures
        wait = max(0.0, self.last_edit.get(event_id, 0.0) + EDIT_SECONDS - time.monotonic())
        task = self.pending[event_id] = self._tasks.spawn(self._edit(event_id, wait), f"event {event_id}")
        task.add_done_callback(functools.partial(self._edited, event_id))

    def _edited(self, event_id: int, task: asyncio.Task[None]) -> None:
        if self.pending.get(event_id) is task:
            del self.pending[event_id]

    async def _edit(self, event_id: int, wait: float) -> None:
        await asyncio.sleep(wait)
        while event_id in self.dirty:
            self.dirty.discard(event_id)
            self.last_edit[event_id] = time.monotonic()
            await self.redraw(event_id)
            if event_id in self.dirty:
                await asyncio.sleep(EDIT_SECONDS)

    async def redraw(self, event_id: int) -> None:
        if event_id in self.gone:
            return
        shown = await redraw(self.bot, event_id)
        if shown == GONE:
            self.gone.add(event_id)  # deleted: no more edits of it from this process
        elif isinstance(shown, int):  # (a failed edit is not shown: the loop's next check edits it again)
            self.shown[event_id] = shown

    def drop(self, event_id: int) -> None:
        """The event is over (its results announced, or cancelled): nothing of it is kept, no edit waits."""
        task = self.pending.pop(event_id, None)
        if task is not None:
            task.cancel()
        self.dirty.discard(event_id)
        self.gone.discard(event_id)
        self.shown.pop(event_id, None)
        self.last_edit.pop(event_id, None)

    def prune(self, running: set[int]) -> None:
        """Drop what is kept of every event no longer running (a change that arrived after its end)."""
        for event_id in {*self.shown, *self.last_edit, *self.pending, *self.dirty, *self.gone} - running:
            self.drop(event_id)

    async def flush(self) -> None:
        """Wait for the edits scheduled so far (tests, shut-down)."""
        await self._tasks.wait()

    async def close(self) -> None:
        await self._tasks.close()


GONE: Final = "gone"  # what ``redraw`` answers when the announcement was deleted


async def redraw(bot: Host, event_id: int) -> int | Literal["gone"] | None:
    """Edit an event's announcement to show its newest state: the version of the standings it shows,
    ``GONE`` when the announcement is gone (deleted, or its channel: the event goes on without it), or
    ``None`` when the edit failed otherwise (lost on the way, refused): tried again by the next check."""
    event = await bot.events.event(event_id)
    if event is None or event.message_id is None:
        return event.version if event is not None else GONE
    standings = await bot.events.standings(event_id)
    channel = bot.get_partial_messageable(event.channel_id, guild_id=event.guild_id)
    try:
        await channel.get_partial_message(event.message_id).edit(**announcement(event, standings, event.locale or "en"))
    except discord.NotFound:
        log.info("event %d: its announcement is gone; the event goes on without it", event_id)
        return GONE
    except DISCORD_ERRORS as error:  # not shown: the next check (or change) edits it again
        log_refusal(f"event {event_id}: announcement edit", error)
        return None
    return event.version
