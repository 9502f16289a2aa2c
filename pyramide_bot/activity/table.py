"""The one way the Activity plays: the channel's stored game through the channel's turn
(``GameManager.turn``), with the rules a button press has (who may play, the daily's, races' and
events' rules, statistics and achievements), and the channel's board message edited to follow.

This module is the Activity's only adapter onto the game: when the application's single ``play(...)``
lands (issue #39), ``Table.move`` and ``Table.deal`` are what call it, and nothing else here changes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from cogs.answer import DISCORD_ERRORS, log_refusal
from cogs.common import Host
from cogs.pyramide.board import drawn_board, take_back_of
from cogs.pyramide.dealing import options as rule_options
from cogs.pyramide.dealing import winnable_game
from cogs.pyramide.hints import hint_words
from cogs.pyramide.places import settings_key
from cogs.pyramide.turns import QUIET_EVENTS, tap_action
from cogs.pyramide.words import code_problem, ending_lines
from pyramide import Game, InvalidCode, Rules
from pyramide import events as ev
from pyramide.bounded import LRU
from pyramide.errors import GameError
from pyramide.i18n import describe, language_for, t
from pyramide.manager import Live
from pyramide.rules import TooManyPasses
from pyramide.solving import SolverBusy
from pyramide.storage import PLAYING

from .board_edits import BoardEdits
from .sessions import Session

log = logging.getLogger(__name__)
ACTIONS = frozenset({*(str(spot) for spot in range(28)), "w", "u", "s", "undo"})
SPOT_ACTIONS = {"waste": "w", "under": "u", "stock": "s"}


@dataclass
class Reply:
    """What the page that asked is told: words in its player's language, a hint's cards, and whether its
    position was behind (it is sent the current one either way)."""

    words: list[str] = field(default_factory=list)
    highlight: tuple = ()
    stale: bool = False


class Table:
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self.edits = BoardEdits(bot, self._draw_board)
        self._last: LRU[int, int] = LRU(10_000)  # channel -> its latest game, to show it once finished
        self._endings: LRU[tuple[int, str], list[str]] = LRU(2_000)
        self.last_event: dict[int, ev.Event] = {}  # channel -> what its latest move did, for the watchers

    async def close(self) -> None:
        await self.edits.close()

    # ------------------------------------------------------------------ looking
    async def look(self, channel_id: int) -> Live | None:
        """The channel's game in play (a snapshot), else its latest game once finished, else ``None``."""
        live = await self.bot.manager.snapshot(channel_id)
        if live is not None:
            self._last.put(channel_id, live.record.id)
            return live
        game_id = self._last.get(channel_id)
        record = await self.bot.manager.record(game_id) if game_id is not None else None
        if record is None or record.channel_id != channel_id or record.status == PLAYING:
            return None
        try:
            game = Game.replay(record.code, record.actions)
        except (ValueError, TypeError):
            return None
        game.started_at, game.finished_at = record.started_at, record.finished_at
        return Live(record, game)

    async def ending(self, live: Live, lang: str) -> list[str]:
        """The finished game's lines (result, the deal's verdict, achievements), as the board shows them."""
        key = (live.record.id, lang)
        lines = self._endings.get(key)
        if lines is None:
            if not live.record.unlocked:
                unlocked = await self.bot.storage.unlocked(live.record.owner_id)
                live.record.unlocked = tuple(u.key for u in unlocked if u.game_id == live.record.id)
            lines = self._endings.put(key, await ending_lines(self.bot, live, lang, _nothing))
        return lines

    async def may_play(self, user_id: int, live: Live) -> bool:
        if user_id == live.record.owner_id:
            return True
        return (await self.bot.settings.get(settings_key(live.record))).anyone_can_play

    # ------------------------------------------------------------------ playing
    async def move(self, session: Session, action: str, version: int, lang: str) -> Reply:
        """Tap a spot (``0``-``27``, ``waste``, ``under``, ``stock``) or undo, on the position ``version``."""
        action = SPOT_ACTIONS.get(action, action)
        if action not in ACTIONS:
            return Reply([t(lang, "event.nothing_to_do")])
        async with self.bot.manager.turn(session.channel_id) as turn:
            live = turn.live
            if live is None:
                return Reply([t(lang, "error.no_game")], stale=True)
            if not await self.may_play(session.user_id, live):
                return Reply([t(lang, "activity.watching")])
            if version != live.game.version:
                return Reply([t(lang, "error.stale_board")], stale=True)
            try:
                result = await turn.apply(tap_action(action))
            except GameError as error:
                return Reply([t(lang, f"error.{error.key}")], stale=True)
            settings = await self.bot.settings.get(settings_key(live.record))
            event = result.event
            if not isinstance(event, QUIET_EVENTS):
                self.last_event[session.channel_id] = event
            words = [describe(event, lang, settings.error_help or isinstance(event, ev.Blocked | ev.SumNot13))]
            board_lang = language_for(live.record.locale)
            self.edits.want(session.channel_id, [describe(event, board_lang, settings.error_help)])
        await self.bot.scoreboards.progress(result.live.record, language_for(result.live.record.locale))
        if result.finished and result.live.record.event_id is not None:
            self.bot.dispatch("pyramide_event_changed", result.live.record.event_id)
        return Reply([w for w in words if w])

    async def hint(self, session: Session, version: int, lang: str) -> Reply:
        async with self.bot.manager.turn(session.channel_id) as turn:
            live = turn.live
            if live is None or version != live.game.version:
                return Reply([t(lang, "error.stale_board")], stale=True)
            if not await self.may_play(session.user_id, live):
                return Reply([t(lang, "activity.watching")])
            snapshot = live.game.copy()
        try:
            suggestion = await self.bot.manager.hint(live, snapshot)
        except SolverBusy:
            return Reply([t(lang, "error.solver_busy")])
        words, highlight, _dead = hint_words(suggestion, snapshot, lang)
        return Reply(words, tuple(str(spot) for spot in highlight))

    async def deal(self, session: Session, choice: dict[str, Any], lang: str) -> Reply:
        """A new deal in the channel, as ``/pyramide new`` (a code, the rule options, a winnable deal) or
        a finished board's "New game" / "Same deal again" (``again``: the code of ``game``)."""
        game = await self._chosen_deal(session, choice, lang)
        if isinstance(game, Reply):
            return game
        async with self.bot.manager.turn(session.channel_id) as turn:
            if turn.live is not None:
                return Reply([t(lang, "activity.game_running")], stale=True)
            live = await turn.start(
                guild_id=session.guild_id, owner_id=session.user_id, game=game, locale=lang if lang else None
            )
            self._last.put(session.channel_id, live.record.id)
            message = drawn_board(self.bot, live, lang, [])
            try:
                sent = await self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id).send(
                    **message
                )
            except DISCORD_ERRORS as error:
                log_refusal(f"board of game {live.record.id} in {session.channel_id}", error)
                await take_back_of(self.bot, live)
                return Reply([t(lang, "activity.board_refused")])
            live.record.message_id = sent.id
            await self.bot.storage.set_message(live.record.id, sent.id)
        return Reply()

    async def _chosen_deal(self, session: Session, choice: dict[str, Any], lang: str) -> Game | Reply:
        again = choice.get("again")
        if isinstance(again, int):
            record = await self.bot.manager.record(again)
            if record is None or record.channel_id != session.channel_id or record.event_id is not None:
                return Reply([t(lang, "error.stale_board")], stale=True)
            rules = Rules.from_token(record.rules)
            return Game.from_code(record.code) if choice.get("same") else Game.new(rules)
        try:
            given = {name: choice.get(name) for name in ("strict_win", "draw_with_waste", "pair_with_cover")}
            given = {k: v for k, v in given.items() if isinstance(v, bool)}
            if isinstance(choice.get("pass_limit"), int):
                given["pass_limit"] = choice["pass_limit"]
            rules = Rules().with_options(**rule_options(given))
        except TooManyPasses:
            return Reply([t(lang, "event.nothing_to_do")])
        code = choice.get("code")
        if isinstance(code, str) and code.strip():
            try:
                base = Game.from_code(code[:200])
            except InvalidCode as error:
                problem = code_problem(error, lang)
                return Reply([t(lang, "error.invalid_code", code=code.strip()[:60], problem=problem)])
            return Game(base.deal, base.rules.with_options(**rule_options(given)))
        if choice.get("winnable") is True:
            try:
                game, _notes = await winnable_game(self.bot.solver, rules, lang)
            except SolverBusy:
                return Reply([t(lang, "error.solver_busy")])
            return game
        return Game.new(rules)

    # ------------------------------------------------------------------ the board message
    async def _draw_board(self, channel_id: int, status: list[str]) -> None:
        """Edit the channel's board to the stored position, inside the channel's turn (so it never lands
        after a newer answer to a press)."""
        async with self.bot.manager.turn(channel_id) as turn:
            live = turn.live or await self.look(channel_id)
            if live is None or live.record.message_id is None:
                return
            lang = language_for(live.record.locale)
            if live.record.status != PLAYING:
                status = status + await self.ending(live, lang)
            message = drawn_board(self.bot, live, lang, status, game=live.game.copy())
            file = message.pop("file")
            channel = self.bot.get_partial_messageable(channel_id, guild_id=live.record.guild_id or None)
            try:
                await channel.get_partial_message(live.record.message_id).edit(attachments=[file], **message)
            except DISCORD_ERRORS as error:
                log_refusal(f"board of game {live.record.id} edited for the Activity", error)


async def _nothing() -> None:
    return None
