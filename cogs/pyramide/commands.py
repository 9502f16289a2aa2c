"""The /pyramide command group: thin commands over the adapters, dealing, the records and the daily."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from pyramide import STOCK
from pyramide.i18n import t
from pyramide_discord import presenter
from pyramide_discord.host import Host
from pyramide_service import inputs
from pyramide_service.inputs import check

from ..answer import Answer, answering
from ..common import text
from ..refused import refused_value
from . import adapters, buttons, daily, dealing, looks, profile, records
from .declared import CARD, CODE, IDLE_MINUTES, choices_of
from .event_commands import EventAdminCommands, EventCommands
from .race import Scoreboards, start_race

log = logging.getLogger(__name__)

PASS_CHOICES = choices_of("passes")
PERIOD_CHOICES = choices_of("period")
DYNAMIC_ITEMS = (
    buttons.BoardButton,
    buttons.NewGameChoice,
    buttons.ShareButton,
    buttons.AnimationButton,
    buttons.RaceGiveUp,
    buttons.LeaderboardPage,
    buttons.ResetChoice,
    buttons.ForgetChoice,
)
RULES_CHOICES = choices_of("rules")
TIER_CHOICES = choices_of("difficulty")
MONTH_CHOICES = choices_of("month")
WHO_CHOICES = choices_of("who_can_play")
DECK_CHOICES = choices_of("deck")
CORNER_CHOICES = choices_of("corners")
TABLE_CHOICES = choices_of("table")


F = TypeVar("F", bound=Callable[..., Any])
DEAL_OPTIONS = ("code", "strict", "passes", "draw_with_waste", "card_with_cover")


def deal_options(command: F) -> F:
    """The options that choose a deal and its rules, named and described alike wherever they appear."""
    command = app_commands.rename(**{name: text(f"opt.{name}") for name in DEAL_OPTIONS})(command)
    command = app_commands.describe(**{name: text(f"cmd.new.{name}") for name in DEAL_OPTIONS})(command)
    return app_commands.choices(passes=PASS_CHOICES)(command)


# Playable everywhere: servers that invited the bot, and a player's own install (the bot's DM, group DMs,
# other users' DMs, servers without the bot). Discord reads these on top-level commands only.
@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class Pyramide(commands.GroupCog, group_name="pyramide", group_description=text("cmd.pyramide")):
    daily = app_commands.Group(name="daily", description=text("cmd.daily"))
    event = EventCommands()

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        # The race scoreboards are this cog's: they follow every change the application tells.
        self.scoreboards = Scoreboards(self.bot)
        self._unsubscribe = self.bot.changes.subscribe(self.scoreboards.changed)
        self.bot.add_dynamic_items(*DYNAMIC_ITEMS)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(*DYNAMIC_ITEMS)
        self._unsubscribe()
        await self.scoreboards.close()

    # ------------------------------------------------------------------ playing
    @app_commands.command(name="new", description=text("cmd.new"))
    @deal_options
    @app_commands.rename(
        winnable=text("opt.winnable"),
        thread=text("opt.thread"),
        difficulty=text("opt.difficulty"),
        anyone=text("opt.anyone"),
    )
    @app_commands.describe(
        winnable=text("cmd.new.winnable"),
        thread=text("cmd.new.thread"),
        difficulty=text("cmd.new.difficulty"),
        anyone=text("cmd.new.anyone"),
    )
    @app_commands.choices(difficulty=TIER_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction,
        code: app_commands.Range[str, CODE.low, CODE.high] | None = None,
        strict: bool | None = None,
        passes: int | None = None,
        draw_with_waste: bool | None = None,
        card_with_cover: bool | None = None,
        winnable: bool = False,
        thread: bool | None = None,
        difficulty: str | None = None,
        anyone: bool | None = None,
    ) -> None:
        check("code", code)
        rules = inputs.rule_options(strict, passes, draw_with_waste, card_with_cover)
        choice = inputs.free_deal(rules, code, inputs.tier(difficulty), winnable)
        if not isinstance(choice, inputs.FreeDeal):
            async with answering(interaction) as answer:
                await answer.say(presenter.free_deal_refusal(choice, answer.lang))
            return
        await dealing.new_game(interaction, choice=choice, thread=thread, anyone=anyone)

    @app_commands.command(name="race", description=text("cmd.race"))
    @deal_options
    @app_commands.rename(opponent=text("opt.opponent"))
    @app_commands.describe(opponent=text("cmd.race.opponent"))
    @app_commands.guild_only()
    async def race(
        self,
        interaction: discord.Interaction,
        opponent: discord.User,
        code: app_commands.Range[str, CODE.low, CODE.high] | None = None,
        strict: bool | None = None,
        passes: int | None = None,
        draw_with_waste: bool | None = None,
        card_with_cover: bool | None = None,
    ) -> None:
        check("code", code)
        rules = inputs.rule_options(strict, passes, draw_with_waste, card_with_cover)
        await start_race(interaction, self.scoreboards, opponent, code, rules)

    @app_commands.command(name="tap", description=text("cmd.tap"))
    @app_commands.rename(card=text("opt.card"))
    @app_commands.describe(card=text("cmd.tap.card"))
    async def tap(self, interaction: discord.Interaction, card: app_commands.Range[str, CARD.low, CARD.high]) -> None:
        check("card", card)
        await adapters.command_move(interaction, lambda lang: adapters.card_action(card, lang))

    @tap.autocomplete("card")
    async def tap_autocomplete(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return [Choice(name=name, value=value) for name, value in await adapters.card_choices(interaction, current)]

    @app_commands.command(name="draw", description=text("cmd.draw"))
    async def draw(self, interaction: discord.Interaction) -> None:
        await adapters.command_move(interaction, lambda lang: lambda game: game.tap(STOCK))

    @app_commands.command(name="undo", description=text("cmd.undo"))
    async def undo(self, interaction: discord.Interaction) -> None:
        await adapters.command_move(interaction, lambda lang: lambda game: game.undo())

    @app_commands.command(name="hint", description=text("cmd.hint"))
    async def hint(self, interaction: discord.Interaction) -> None:
        await adapters.command_hint(interaction)

    @app_commands.command(name="code", description=text("cmd.code"))
    async def code(self, interaction: discord.Interaction) -> None:
        await adapters.command_code(interaction)

    @app_commands.command(name="end", description=text("cmd.end"))
    async def end(self, interaction: discord.Interaction) -> None:
        await adapters.command_end(interaction)

    @app_commands.command(name="rules", description=text("cmd.rules"))
    async def rules(self, interaction: discord.Interaction) -> None:
        async with answering(interaction) as answer:
            await answer.say(t(answer.lang, "rules.text"))

    # --------------------------------------------------------------- statistics
    @app_commands.command(name="stats", description=text("cmd.stats.show"))
    @app_commands.rename(player=text("opt.player"))
    @app_commands.describe(player=text("cmd.stats.player"))
    async def stats(self, interaction: discord.Interaction, player: discord.User | None = None) -> None:
        await records.show_stats(interaction, player)

    @app_commands.command(name="achievements", description=text("cmd.achievements"))
    @app_commands.rename(player=text("opt.player"))
    @app_commands.describe(player=text("cmd.achievements.player"))
    async def achievements(self, interaction: discord.Interaction, player: discord.User | None = None) -> None:
        await profile.show_achievements(interaction, player)

    @app_commands.command(name="leaderboard", description=text("cmd.leaderboard"))
    @app_commands.rename(period=text("opt.period"), rules=text("opt.rules"))
    @app_commands.describe(period=text("cmd.leaderboard.period"), rules=text("cmd.leaderboard.rules"))
    @app_commands.choices(period=PERIOD_CHOICES, rules=RULES_CHOICES)
    async def leaderboard(
        self, interaction: discord.Interaction, period: str = "all", rules: str | None = None
    ) -> None:
        inputs.checked(period=period, rules=rules)
        await records.show_leaderboard(interaction, period, rules)

    @app_commands.command(name="style", description=text("cmd.style"))
    @app_commands.rename(deck=text("opt.deck"), corners=text("opt.corners"), table=text("opt.table"))
    @app_commands.describe(
        deck=text("cmd.style.deck"), corners=text("cmd.style.corners"), table=text("cmd.style.table")
    )
    @app_commands.choices(deck=DECK_CHOICES, corners=CORNER_CHOICES, table=TABLE_CHOICES)
    async def style(
        self,
        interaction: discord.Interaction,
        deck: str | None = None,
        corners: str | None = None,
        table: str | None = None,
    ) -> None:
        async with answering(interaction) as answer:
            await looks.choose_style(answer, deck, corners, table)

    @app_commands.command(name="forget-me", description=text("cmd.forget_me"))
    async def forget_me(self, interaction: discord.Interaction) -> None:
        await records.ask_forget(interaction)

    @daily.command(name="play", description=text("cmd.daily.play"))
    async def daily_play(self, interaction: discord.Interaction) -> None:
        await daily.play_daily(interaction)

    @daily.command(name="month", description=text("cmd.daily.month"))
    @app_commands.rename(month=text("opt.month"))
    @app_commands.describe(month=text("cmd.daily.month.month"))
    @app_commands.choices(month=MONTH_CHOICES)
    async def daily_month(self, interaction: discord.Interaction, month: str = "this") -> None:
        check("month", month)
        await daily.show_month(interaction, last=month == "last")

    @daily.command(name="leaderboard", description=text("cmd.daily.leaderboard"))
    async def daily_leaderboard(self, interaction: discord.Interaction) -> None:
        await daily.show_daily_leaderboard(interaction)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)


async def report_error(interaction: discord.Interaction, error: Exception) -> None:
    """A command that failed before its flow began (a check, an option): logged, and the player told that
    nothing was lost (every answered move is stored). A value outside the command's limits is not a
    failure: the tree answers it (cogs.stale)."""
    if refused_value(error) is not None:
        return
    log.error("command failed", exc_info=error)
    async with answering(interaction) as answer:
        await answer.rescue(t(answer.lang, "error.generic"))


@app_commands.guild_only()
@app_commands.allowed_installs(guilds=True, users=False)
@app_commands.allowed_contexts(guilds=True, dms=False, private_channels=False)
@app_commands.default_permissions(manage_guild=True)
class PyramideAdmin(commands.GroupCog, group_name="pyramide-admin", group_description=text("cmd.admin")):
    """Server settings and statistics resets: a top-level command of its own, because Discord applies
    ``default_member_permissions`` only to top-level commands (inside /pyramide every member would see
    them). The Manage Server check stays inside each command as well."""

    event = EventAdminCommands()

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="settings", description=text("cmd.settings"))
    @app_commands.rename(
        error_help=text("opt.error_help"),
        who_can_play=text("opt.who_can_play"),
        idle_minutes=text("opt.idle_minutes"),
        new_in_thread=text("opt.new_in_thread"),
    )
    @app_commands.describe(
        error_help=text("cmd.settings.error_help"),
        who_can_play=text("cmd.settings.who_can_play"),
        idle_minutes=text("cmd.settings.idle_minutes"),
        new_in_thread=text("cmd.settings.new_in_thread"),
    )
    @app_commands.choices(who_can_play=WHO_CHOICES)
    async def settings(
        self,
        interaction: discord.Interaction,
        error_help: bool | None = None,
        who_can_play: str | None = None,
        idle_minutes: app_commands.Range[int, IDLE_MINUTES.low, IDLE_MINUTES.high] | None = None,
        new_in_thread: bool | None = None,
    ) -> None:
        inputs.checked(who_can_play=who_can_play, idle_minutes=idle_minutes)  # before any permission or lookup
        async with answering(interaction) as answer:
            await self._settings(answer, error_help, who_can_play, idle_minutes, new_in_thread)

    async def _settings(
        self,
        answer: Answer,
        error_help: bool | None,
        who_can_play: str | None,
        idle_minutes: int | None,
        new_in_thread: bool | None,
    ) -> None:
        interaction, lang = answer.interaction, answer.lang
        if not interaction.permissions.manage_guild:
            await answer.say(t(lang, "error.manage_server"))
            return
        guild_id = interaction.guild_id or 0
        current = await answer.settings(guild_id)
        changed = inputs.settings_update(
            current,
            error_help=error_help,
            who_can_play=who_can_play,
            idle_minutes=idle_minutes,
            new_in_thread=new_in_thread,
        )
        lines = []
        if changed != current:
            await self.bot.settings.save(guild_id, changed)
            lines.append(t(lang, "settings.saved"))
        lines.append(
            t(
                lang,
                "settings.show",
                help=t(lang, "settings.on" if changed.error_help else "settings.off"),
                who=t(lang, "settings.who.anyone" if changed.anyone_can_play else "settings.who.owner"),
            )
        )
        lines.append(t(lang, "settings.idle", minutes=changed.idle_minutes))
        lines.append(t(lang, "settings.thread.on" if changed.new_in_thread else "settings.thread.off"))
        await answer.say("\n".join(lines))

    @app_commands.command(name="reset-stats", description=text("cmd.stats.reset"))
    @app_commands.rename(player=text("opt.player"))
    @app_commands.describe(player=text("cmd.stats.player"))
    async def reset_stats(self, interaction: discord.Interaction, player: discord.User | None = None) -> None:
        await records.ask_reset(interaction, player)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)
