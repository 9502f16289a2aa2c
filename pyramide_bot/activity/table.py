"""The Activity's adapter onto the game: a tap, an undo and a hint are the application's ``Table.play``
and ``Table.hint`` (``pyramide_service.play``), the very calls a board button makes, with the same rules
and the same one outcome; the channel's board message is edited to follow.

A deal from the page starts the channel's game through the channel's turn as ``open_deal`` would, with
the board posted by the bot token (``open_deal`` needs a surface that may make threads and knows which
failures may have shown the board; the Activity deals only in its own channel, so it keeps this path).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from cogs.answer import DISCORD_ERRORS, log_refusal
from cogs.common import Host
from cogs.pyramide.board import drawn_board
from cogs.pyramide.dealing import options as rule_options
from cogs.pyramide.dealing import winnable_game
from cogs.pyramide.hints import hint_words
from cogs.pyramide.turns import REFUSALS, tap_action
from cogs.pyramide.words import code_problem, ending_lines
from pyramide import Game, InvalidCode, Rules
from pyramide import effects as ev
from pyramide.bounded import LRU
from pyramide.i18n import describe, language_for, t
from pyramide.rules import TooManyPasses
from pyramide_service.ending import Ending, record_tier, share_line
from pyramide_service.listeners import Change
from pyramide_service.manager import Live
from pyramide_service.opening import show_at, take_back
from pyramide_service.play import Kind, Outcome, Press
from pyramide_service.server_settings import settings_key
from pyramide_service.solving import SolverBusy
from pyramide_service.storage import PLAYING, WON

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
        self._endings: LRU[int, Ending] = LRU(2_000)  # a finished game's ending, as its press worked it out

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
        ending = self._endings.get(live.record.id)
        if ending is None:  # finished elsewhere (a button, another process): read back as play reads it back
            record = live.record
            unlocked = await self.bot.storage.unlocked(record.owner_id)
            record.unlocked = tuple(u.key for u in unlocked if u.game_id == record.id)
            verdict = None if record.status == WON else self.bot.solver.known_verdict(record.code)
            tier = record_tier(record, self.bot.solver)
            share = share_line(record, record.picture, lang, tier) if record.daily and record.counted else None
            ending = Ending(record, verdict, tier, record.unlocked, share)
            if verdict is not None or record.status == WON:
                self._endings.put(record.id, ending)
        return ending_lines(ending, lang)

    async def may_play(self, user_id: int, live: Live) -> bool:
        if user_id == live.record.owner_id:
            return True
        return (await self.bot.settings.get(settings_key(live.record))).anyone_can_play

    # ------------------------------------------------------------------ playing
    def _press(self, session: Session, version: int, lang: str) -> Press:
        live_id = self._last.get(session.channel_id)
        return Press(session.channel_id, session.user_id, lang, game_id=live_id, version=version)

    def _refusal(self, outcome: Outcome, lang: str) -> Reply | None:
        if outcome.kind in REFUSALS:
            return Reply([t(lang, REFUSALS[outcome.kind])], stale=outcome.kind is not Kind.SOLVER_BUSY)
        if outcome.kind is Kind.NOT_YOURS:
            return Reply([t(lang, "activity.watching")])
        if outcome.kind in (Kind.REFRESH, Kind.MOVED_ON, Kind.SHOW_FINISHED, Kind.CLOSED_AT_LOAD):
            return Reply([t(lang, "error.stale_board")], stale=True)
        return None

    async def move(self, session: Session, action: str, version: int, lang: str) -> Reply:
        """Tap a spot (``0``-``27``, ``waste``, ``under``, ``stock``) or undo, on the position ``version``."""
        action = SPOT_ACTIONS.get(action, action)
        if action not in ACTIONS:
            return Reply([t(lang, "event.nothing_to_do")])
        move = (lambda game: game.undo()) if action == "undo" else tap_action(action)
        async with self.bot.table.play(self._press(session, version, lang), move) as outcome:
            refusal = self._refusal(outcome, lang)
            if refusal is not None:
                return refusal
            assert outcome.live is not None and outcome.settings is not None and outcome.effect is not None
            live, settings, event = outcome.live, outcome.settings, outcome.effect
            if outcome.ending is not None:
                self._endings.put(live.record.id, outcome.ending)
            words = [describe(event, lang, settings.error_help or _quiet(event))]
            board_lang = language_for(live.record.locale)
            self.edits.want(session.channel_id, [describe(event, board_lang, settings.error_help)])
        return Reply([w for w in words if w])

    async def hint(self, session: Session, version: int, lang: str) -> Reply:
        async with self.bot.table.hint(self._press(session, version, lang)) as outcome:
            refusal = self._refusal(outcome, lang)
            if refusal is not None:
                return refusal
            assert outcome.hint is not None and outcome.snapshot is not None
            words, highlight, _dead = hint_words(outcome.hint, outcome.snapshot, lang)
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
            message = await drawn_board(self.bot, live, lang, [], launch=self.bot.offers_activity)
            channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id or None)
            try:
                sent = await channel.send(**message)
            except DISCORD_ERRORS as error:
                log_refusal(f"board of game {live.record.id} in {session.channel_id}", error)
                await take_back(self.bot.manager, live)
                return Reply([t(lang, "activity.board_refused")])
            await show_at(self.bot.manager, live, sent.id)
        record = live.record
        change = Change(record.id, record.channel_id, live.game.version, False, PLAYING, record.event_id, lang, True)
        await self.bot.table.listeners.publish(change)
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
            message = await drawn_board(
                self.bot, live, lang, status, game=live.game.copy(), launch=self.bot.offers_activity
            )
            file = message.pop("file")
            channel = self.bot.get_partial_messageable(channel_id, guild_id=live.record.guild_id or None)
            try:
                await channel.get_partial_message(live.record.message_id).edit(attachments=[file], **message)
            except DISCORD_ERRORS as error:
                log_refusal(f"board of game {live.record.id} edited for the Activity", error)


def _quiet(event: object) -> bool:
    """A move that changed nothing is explained in full to the page that made it."""
    return isinstance(event, ev.Blocked | ev.SumNot13)
