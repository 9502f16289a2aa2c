"""The /pyramide event and /pyramide-admin event command groups, the events' buttons, and the cog that owns
the announcements and finds the events that are due (at start and every minute: nothing waits in memory
only, and the database decides who ends and who announces)."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands, tasks

from pyramide_discord import controls, finders, presenter
from pyramide_discord.host import DynamicButton, Host
from pyramide_service import inputs
from pyramide_service.changes import Change, EventFinal, GameChanged
from pyramide_service.events import DEFAULT_DEALS
from pyramide_service.inputs import check

from ..answer import answering
from ..common import text
from ..tasks import stop_loop
from . import announcements as shown
from . import events
from .declared import DEALS, DURATION, EVENT, NAME, choices_of

log = logging.getLogger(__name__)

MAX_ID = 2**63 - 1
PASS_CHOICES = choices_of("passes")
TIER_CHOICES = choices_of("difficulty")


class EventPlay(DynamicButton, template=controls.EVENT_PLAY):
    """Play: under an event's announcement, and under a finished deal of it."""

    def __init__(self, event_id: int) -> None:
        super().__init__(controls.event_play_button(event_id))
        self.event_id = event_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> EventPlay:
        return cls(controls.row_id(match["event"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await events.play_event(interaction, self.event_id)


class EventLine(DynamicButton, template=controls.EVENT_LINE):
    """Under an ended event's results: how one of its deals could have been won."""

    def __init__(self, event_id: int, position: int) -> None:
        super().__init__(controls.event_line_button(event_id, position))
        self.event_id, self.position = event_id, position

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> EventLine:
        return cls(controls.row_id(match["event"]), int(match["position"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async with answering(interaction, private=False) as answer:
            await events.show_line(answer, self.event_id, self.position)


DYNAMIC_ITEMS = (EventPlay, EventLine)


class EventCommands(app_commands.Group):
    """/pyramide event: play, standings, list."""

    def __init__(self) -> None:
        super().__init__(name="event", description=text("cmd.event"))

    @app_commands.command(name="play", description=text("cmd.event.play"))
    async def play(self, interaction: discord.Interaction) -> None:
        await events.play_event(interaction)

    @app_commands.command(name="standings", description=text("cmd.event.standings"))
    @app_commands.rename(event=text("opt.event"))
    @app_commands.describe(event=text("cmd.event.event"))
    async def standings(
        self, interaction: discord.Interaction, event: app_commands.Range[str, EVENT.low, EVENT.high] | None = None
    ) -> None:
        check("event", event)
        await events.show_standings(interaction, event)

    @standings.autocomplete("event")
    async def standings_choices(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return [Choice(name=n, value=v) for n, v in await events.event_choices(interaction, current, running=False)]

    @app_commands.command(name="list", description=text("cmd.event.list"))
    async def list_events(self, interaction: discord.Interaction) -> None:
        await events.show_list(interaction)


class EventAdminCommands(app_commands.Group):
    """/pyramide-admin event: start, end, cancel (Manage Server, checked inside each command as well)."""

    def __init__(self) -> None:
        super().__init__(name="event", description=text("cmd.admin.event"))

    @app_commands.command(name="start", description=text("cmd.event.start"))
    @app_commands.rename(
        name=text("opt.name"),
        deals=text("opt.deals"),
        duration=text("opt.duration"),
        strict=text("opt.strict"),
        passes=text("opt.passes"),
        draw_with_waste=text("opt.draw_with_waste"),
        card_with_cover=text("opt.card_with_cover"),
        difficulty=text("opt.difficulty"),
    )
    @app_commands.describe(
        name=text("cmd.event.name"),
        deals=text("cmd.event.deals"),
        duration=text("cmd.event.duration"),
        strict=text("cmd.new.strict"),
        passes=text("cmd.new.passes"),
        draw_with_waste=text("cmd.new.draw_with_waste"),
        card_with_cover=text("cmd.new.card_with_cover"),
        difficulty=text("cmd.new.difficulty"),
    )
    @app_commands.choices(passes=PASS_CHOICES)
    @app_commands.choices(difficulty=TIER_CHOICES)
    async def start(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, NAME.low, NAME.high],
        deals: app_commands.Range[int, DEALS.low, DEALS.high] = DEFAULT_DEALS,
        duration: app_commands.Range[str, DURATION.low, DURATION.high] = "7d",
        strict: bool | None = None,
        passes: int | None = None,
        draw_with_waste: bool | None = None,
        card_with_cover: bool | None = None,
        difficulty: str | None = None,
    ) -> None:
        # Every value checked before any permission, lookup or search (the deal count sizes the search).
        hours = inputs.event_terms(name, deals, duration)
        given = inputs.rule_options(strict, passes, draw_with_waste, card_with_cover)
        choice = inputs.free_deal(given, None, inputs.tier(difficulty), False)  # (each deal found as a free one)
        if not isinstance(choice, inputs.FreeDeal):
            async with answering(interaction) as answer:
                await answer.say(presenter.free_deal_refusal(choice, answer.lang))
            return
        finder = finders.rated_finder(choice.tier) if choice.tier is not None else None
        await events.start_event(interaction, name, deals, hours, choice.rules, difficulty, finder)

    @app_commands.command(name="end", description=text("cmd.event.end"))
    @app_commands.rename(event=text("opt.event"))
    @app_commands.describe(event=text("cmd.event.event"))
    async def end(
        self, interaction: discord.Interaction, event: app_commands.Range[str, EVENT.low, EVENT.high] | None = None
    ) -> None:
        check("event", event)
        await events.end_command(interaction, event, cancelled=False)

    @app_commands.command(name="cancel", description=text("cmd.event.cancel"))
    @app_commands.rename(event=text("opt.event"))
    @app_commands.describe(event=text("cmd.event.event"))
    async def cancel(
        self, interaction: discord.Interaction, event: app_commands.Range[str, EVENT.low, EVENT.high] | None = None
    ) -> None:
        check("event", event)
        await events.end_command(interaction, event, cancelled=True)

    @end.autocomplete("event")
    @cancel.autocomplete("event")
    async def running_choices(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return [Choice(name=n, value=v) for n, v in await events.event_choices(interaction, current, running=True)]


class Events(commands.Cog):
    """Owns the announcements of this process and the minute loop that ends and announces due events."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self.announcements = shown.Announcements(bot)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(*DYNAMIC_ITEMS)
        self._unsubscribe = self.bot.changes.subscribe(self.changed)
        self.due.start()

    async def cog_unload(self) -> None:
        self._unsubscribe()
        await stop_loop(self.due)
        await self.announcements.close()
        self.bot.remove_dynamic_items(*DYNAMIC_ITEMS)

    @tasks.loop(minutes=1)
    async def due(self) -> None:
        try:
            await self.check()
        except Exception as error:  # a busy database is tried again in a minute
            log.warning("event check failed, tried again in a minute: %s", error)

    @due.before_loop
    async def before_due(self) -> None:
        await self.bot.wait_until_ready()

    async def check(self) -> None:
        """End the events past their deadline, announce the ended ones not announced yet (of the servers of
        this process's shards), and redraw announcements whose standings another process changed."""
        now = self.bot.clock()
        # Only this process's servers: another process's shards announce theirs.
        due = [(e, g) for e, g in await self.bot.events.due(now) if self.bot.get_guild(g) is not None]
        if due or self.due.current_loop == 0:
            log.info("events checked: %d due", len(due))
        for event_id, _ in due:
            event = await self.bot.events.event(event_id)
            if event is not None and event.running:
                await self.bot.events.end(event_id, min(now, event.ends_at))  # frozen as of the deadline
            await events.announce_results(self.bot, event_id)
            self.announcements.drop(event_id)  # over: no more edits of its announcement from here
        running = await self.bot.events.running()
        self.announcements.prune({event.id for event in running})
        for event in running:
            if (
                self.bot.get_guild(event.guild_id) is not None
                and self.announcements.shown.get(event.id) != event.version
            ):
                self.announcements.schedule(event.id)

    async def changed(self, change: Change) -> None:
        """The application's changes (``pyramide_service.changes``): a finished deal of an event changed its
        standings; an event whose results are out is drawn no more."""
        match change:
            case GameChanged(event_id=int(event_id), finished=True):
                self.announcements.schedule(event_id)
            case EventFinal(event_id=event_id):
                self.announcements.drop(event_id)
