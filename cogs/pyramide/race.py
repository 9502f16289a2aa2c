"""Races between friends: two players, one deal, a private thread each, a scoreboard in the channel.

The scoreboard is edited as the games go, at most once every ``EDIT_SECONDS`` (Discord limits edits of
one message; a burst of presses becomes one edit showing the newest figures). The first player to clear
the pyramid wins; the database decides who was first. Ending one's game (its End button, or "Give up"
under the scoreboard) is giving up; the race is over when someone wins or nobody is left playing."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time

import discord

from pyramide import Game
from pyramide.bounded import LRU
from pyramide.i18n import t
from pyramide.labels import format_duration
from pyramide.rules import Rules
from pyramide_discord import controls, presenter
from pyramide_discord.failures import DISCORD_ERRORS, log_refusal
from pyramide_discord.host import Host
from pyramide_discord.words import mention
from pyramide_service import PLAYING, STUCK, WON, GameRecord, RaceRecord, inputs
from pyramide_service import outcomes as out
from pyramide_service.changes import Change, GameChanged
from pyramide_service.opening import Deal, Dealt, NotPosted, RaceOpened, open_race
from pyramide_service.tasks import Supervised

from ..answer import Answer, answering
from . import dealing
from .board import board_message
from .daily import missing_thread_permission
from .posting import AnswerBoards

log = logging.getLogger(__name__)

BY_GAME_SIZE = 50_000  # games whose race (or none) is remembered
EDIT_SECONDS = 4.0  # the least time between two edits of a scoreboard
THREAD_NEEDS = ("send_messages_in_threads", "attach_files")


class Scoreboards:
    """The scoreboards being kept up to date in this process (the game cog's own: made when it loads,
    closed when it unloads): which race a game belongs to (``None`` for most games, remembered so a press
    costs no query after the first), and one pending edit per race at most, its task watched. A race's
    bookkeeping goes once its last edit showed it over."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self.by_game: LRU[int, int | None] = LRU(BY_GAME_SIZE)
        self.last_edit: dict[int, float] = {}
        self.pending: dict[int, asyncio.Task[None]] = {}
        self._tasks = Supervised("race scoreboards")

    async def race_of(self, game_id: int) -> int | None:
        if game_id in self.by_game:
            return self.by_game.get(game_id)
        race = await self.bot.races.race_of_game(game_id)
        return self.by_game.put(game_id, race.id if race is not None else None)

    def started(self, race_id: int, game_ids: list[int]) -> None:
        """A race was just stored: its games are known to be its."""
        for game_id in game_ids:
            self.by_game.put(game_id, race_id)

    def posted(self, race_id: int) -> None:
        """The race's scoreboard was posted now (the first edit waits its turn after it)."""
        self.last_edit[race_id] = time.monotonic()

    def forget(self, game_ids: list[int]) -> None:
        for game_id in game_ids:
            self.by_game.pop(game_id)

    def schedule(self, race_id: int, lang: str) -> None:
        """Edit the race's scoreboard now, or when ``EDIT_SECONDS`` have passed since the last edit."""
        task = self.pending.get(race_id)
        if task is not None and not task.done():
            return  # the edit already waiting will show the newest figures
        wait = max(0.0, self.last_edit.get(race_id, 0.0) + EDIT_SECONDS - time.monotonic())
        task = self.pending[race_id] = self._tasks.spawn(self._edit(race_id, lang, wait), f"race {race_id}")
        task.add_done_callback(functools.partial(self._edited, race_id))

    def _edited(self, race_id: int, task: asyncio.Task[None]) -> None:
        if self.pending.get(race_id) is task:
            del self.pending[race_id]

    async def _edit(self, race_id: int, lang: str, wait: float) -> None:
        await asyncio.sleep(wait)
        try:
            race = await self.bot.races.race(race_id)
            if race is None or race.message_id is None:
                self.last_edit.pop(race_id, None)
                return
            channel = self.bot.get_partial_messageable(race.channel_id, guild_id=race.guild_id)
            content, view = await scoreboard(self.bot, race, lang)
            # Timed as it leaves (after the reads, however slow): the next edit reaches Discord no sooner
            # than ``EDIT_SECONDS`` after this one.
            self.last_edit[race_id] = time.monotonic()
            await channel.get_partial_message(race.message_id).edit(
                content=content, view=view, allowed_mentions=discord.AllowedMentions.none()
            )
        except DISCORD_ERRORS as error:
            log_refusal(f"race {race_id}: scoreboard edit", error)
            return
        except Exception:  # the database (or a bug): logged with its traceback; the next move's edit tries again
            log.exception("race %s: scoreboard not brought up to date", race_id)
            return
        if race.finished_at is not None:  # its final figures are shown: nothing of it is kept
            self.last_edit.pop(race_id, None)
            self.forget([game_id for _, game_id in race.players])

    async def changed(self, change: Change) -> None:
        """A listener of the application's changes (``pyramide_service.changes``): a game of a race changed,
        so its scoreboard is refreshed. (Who won, or that nobody did, was decided by the database in the
        transaction that closed the game.) A game just dealt changes no scoreboard (a race posts its own
        once its games are dealt)."""
        if isinstance(change, GameChanged) and not change.dealt:
            race_id = await self.race_of(change.game_id)
            if race_id is not None:
                self.schedule(race_id, change.lang)

    async def flush(self) -> None:
        """Wait for the edits scheduled so far (tests, and shutting down)."""
        await self._tasks.wait()

    async def close(self) -> None:
        """Drop the edits still waiting (the cog is unloading; the next press after a restart redoes them)."""
        await self._tasks.close()
        self.pending.clear()


def _status(record: GameRecord, race: RaceRecord, lang: str) -> str:
    if race.winner_id == record.owner_id:
        return t(lang, "race.won")
    if record.status == PLAYING:
        return t(lang, "race.playing")
    if record.status == STUCK:
        return t(lang, "race.stuck")
    if record.status == WON:  # cleared, but after the winner
        return t(lang, "race.cleared")
    return t(lang, "race.gave_up")


async def scoreboard(bot: Host, race: RaceRecord, lang: str) -> tuple[str, discord.ui.View | None]:
    """The scoreboard's text (one line a player: cards removed, moves, time, hints, status) and its
    "Give up" button while the race is on."""
    # Every answered move is stored: the figures are current.
    records = [(player, await bot.manager.record(game_id)) for player, game_id in race.players]
    # The scoreboard stays in the language it was posted in (its first game's), whoever pressed last.
    lang = next((record.locale for _, record in records if record is not None and record.locale), lang)
    names = " vs ".join(mention(player) for player, _ in race.players)
    lines = [t(lang, "race.title", players=names, code=race.code)]
    now = bot.clock()
    for player, record in records:
        if record is None:
            continue
        if record.seconds is not None:
            seconds = record.seconds
        elif record.started_at is not None:
            seconds = max(0.0, now - record.started_at)
        else:
            seconds = 0.0
        lines.append(
            t(
                lang,
                "race.row",
                player=mention(player),
                removed=record.removed,
                moves=record.moves,
                time=format_duration(seconds),
                hints=record.hints,
                status=_status(record, race, lang),
            )
        )
    if race.winner_id is not None:
        lines.append(t(lang, "race.winner", player=mention(race.winner_id)))
    elif race.finished_at is not None:
        lines.append(t(lang, "race.nobody"))
    if race.finished_at is not None:
        return "\n".join(lines)[:2000], None
    view = discord.ui.View(timeout=None)
    view.add_item(controls.race_give_up(race.id, label=t(lang, "race.give_up")))
    view.stop()
    return "\n".join(lines)[:2000], view


async def start_race(
    interaction: discord.Interaction,
    scoreboards: Scoreboards,
    opponent: discord.abc.User,
    code: str | None,
    rules: dict[str, bool | int | None],
) -> None:
    """/pyramide race: the same deal for both players, each in a private thread of their own, and a
    scoreboard here (kept up to date by ``scoreboards``)."""
    async with answering(interaction) as answer:
        lang, bot, place = answer.lang, answer.bot, answer.place
        channel = interaction.channel
        if place is not None and not place.threads:
            # Threads and an editable scoreboard need the bot as a member (not a DM, a group DM, or a
            # server that only a player's own install reached).
            await answer.say(t(lang, "race.needs_the_bot"))
            return
        if interaction.guild_id is None or not isinstance(channel, discord.TextChannel):
            await answer.say(t(lang, "race.needs_threads"))
            return
        if opponent.id == interaction.user.id or opponent.bot:
            await answer.say(t(lang, "race.bad_opponent"))
            return
        missing = missing_thread_permission(interaction, THREAD_NEEDS)
        if missing is not None:
            await answer.say(t(lang, "error.thread_permission", permission=missing))
            return
        if code:
            found = await dealing.deal_of_code(answer, code, rules, lang)
            if found is None:
                return
            game = found
        else:
            game = Game.new(Rules().with_options(**inputs.rules_of(rules)))
        peek = await answer.bot.admission.peeks(game, interaction.user.id)
        if peek is not None:
            await dealing.refuse_deal(answer, peek, game, None)
            return
        answer.private = False
        await answer.defer()
        players = (interaction.user, opponent)
        boards = RaceBoards(answer, scoreboards, players)
        deals = [
            Deal(game.copy(), interaction.guild_id, player.id, player.display_name, lang) for player in players
        ]
        try:
            opened = await open_race(bot.manager, boards, deals, channel.id, changes=bot.changes)
        except Exception:
            # Whatever failed, nothing of the race stayed half-made: its games, threads and scoreboard went.
            # The failure itself is logged by ``answering`` (a refusal at error level).
            boards.forget()
            raise
        if isinstance(opened, NotPosted) and not isinstance(opened.error, DISCORD_ERRORS):
            boards.forget()
            raise opened.error
        if not isinstance(opened, RaceOpened):
            boards.forget()
            log.warning("race not started: a thread could not be made or its board posted")
            await answer.say(t(lang, "error.thread_permission", permission="Create Private Threads"))
            return
        scoreboards.posted(opened.race_id)


class RaceBoards(AnswerBoards):
    """A race's ``pyramide_service.opening.RacePort``: a private thread and a board for each player, the
    scoreboard as the command's answer, and the scoreboards' bookkeeping of what it showed."""

    def __init__(self, answer: Answer, scoreboards: Scoreboards, players: tuple[discord.abc.User, ...]) -> None:
        lang = answer.lang

        async def lines(dealt: Dealt) -> list[str]:
            opponent = next(p for p in players if p.id != dealt.live.record.owner_id)
            return [t(lang, "race.board", opponent=mention(opponent.id))]

        def thread_name(player: discord.abc.User) -> str:
            return t(lang, "race.thread", player=player.display_name)

        super().__init__(answer, lines, thread_name=thread_name, players=players)
        self.scoreboards = scoreboards
        self.seats: list[tuple[int, int, int]] = []  # player, game, thread of each board posted
        self.race_id: int | None = None
        self.message: discord.Message | None = None

    async def post(self, dealt: Dealt) -> int:
        self.seats.append((dealt.live.record.owner_id, dealt.live.record.id, dealt.channel_id))
        return await super().post(dealt)

    async def post_scoreboard(self, race_id: int) -> int:
        self.race_id = race_id
        self.scoreboards.started(race_id, [game for _, game, _ in self.seats])
        bot, lang = self.answer.bot, self.answer.lang
        race = await bot.races.race(race_id)
        assert race is not None
        content, view = await scoreboard(bot, race, lang)
        links = " · ".join(f"{mention(player)}: <#{thread}>" for player, _, thread in self.seats)
        self.message = await self.answer.post(
            content=content + "\n" + links, view=view, allowed_mentions=discord.AllowedMentions(users=True)
        )
        return self.message.id

    async def remove_message(self, message_id: int) -> None:
        if self.message is None:
            return
        try:
            await self.message.delete()
        except DISCORD_ERRORS as error:
            log_refusal(f"removal of race scoreboard {message_id}", error)

    def forget(self) -> None:
        """A race that did not start: nothing of it is kept by the scoreboards."""
        self.scoreboards.forget([game for _, game, _ in self.seats])
        if self.race_id is not None:
            self.scoreboards.last_edit.pop(self.race_id, None)


async def give_up(answer: Answer, race_id: int) -> None:
    """The scoreboard's "Give up": the presser's own game in the race ends (``Plays.give_up``); the board in
    the player's thread shows the end (the scoreboard follows the change, as after any press)."""
    interaction, lang, bot = answer.interaction, answer.lang, answer.bot
    async with bot.plays.give_up(race_id, interaction.guild_id, interaction.user.id, lang) as outcome:
        match outcome:
            case out.GaveUp(live) if live.record.message_id is not None:
                thread = bot.get_partial_messageable(live.record.channel_id, guild_id=interaction.guild_id)
                message = await board_message(answer, live, lang, [t(lang, "race.gave_up_line")])
                file = message.pop("file")
                with contextlib.suppress(discord.HTTPException):
                    await thread.get_partial_message(live.record.message_id).edit(attachments=[file], **message)
    await answer.say(presenter.give_up_words(outcome, lang))
