"""A deal from the Activity's page, as ``/pyramide new`` and a finished board's "New game" / "Same deal
again" make one: through the application's ``open_deal`` (the channel's turn, the game started, its board
posted, anything half-made taken back), with the board's rules for a game already running there (the
player is asked first; its starter or a moderator may end it, anyone once it sat idle past the server's
limit) and for the cards nobody may deal yet (today's daily, a running event's deal).

The page deals in its own channel only: the Activity plays the channel's game, so a deal in a thread of
its own (``/pyramide new thread``) would leave the page with nothing to play; the page does not offer it
(docs/activity.md). Outside servers, where ``anyone`` is an option, the Activity does not sign in.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from cogs.answer import DISCORD_ERRORS, log_refusal, lost
from cogs.common import Host
from cogs.pyramide.board import drawn_board
from cogs.pyramide.dealing import options as rule_options
from cogs.pyramide.dealing import rated_finder, winnable_game
from cogs.pyramide.words import code_problem, rules_words
from pyramide import Game, InvalidCode, Rules
from pyramide.daily import day_key, today
from pyramide.difficulty import Tier
from pyramide.i18n import t
from pyramide.rules import TooManyPasses
from pyramide_service.manager import Live
from pyramide_service.opening import Deal, Dealt, Here, NotPosted, Opened, open_deal
from pyramide_service.server_settings import settings_key
from pyramide_service.solving import SolverBusy
from pyramide_service.storage import ABANDONED, ENDED, GameStatus

from .sessions import Session
from .table import Reply

log = logging.getLogger(__name__)
RULE_SWITCHES = ("strict_win", "draw_with_waste", "pair_with_cover")
Chosen = tuple[Game, tuple[str, ...]]  # a deal, and the notes its search left (none of that difficulty)


async def todays_deal(bot: Host) -> Game:
    """Today's daily deal (its cards are dealt nowhere else, and shown nowhere, until the day is over)."""
    return Game.from_code(await bot.dailies.code(today(datetime.fromtimestamp(bot.clock(), UTC))))


class Boards:
    """``opening.Table`` for the Activity: the board posted in the page's channel by the bot token."""

    def __init__(self, bot: Host, lang: str, notes: tuple[str, ...]) -> None:
        self.bot, self.lang, self.notes = bot, lang, notes

    async def make_thread(self, owner_id: int) -> int | None:
        return None  # (never asked: the page deals Here)

    async def post(self, dealt: Dealt) -> int:
        live, lang = dealt.live, self.lang
        status = [t(lang, "new.dealt"), *self.notes]
        if dealt.broken:
            status.insert(0, t(lang, "new.broken_closed"))
        if not live.game.rules.is_default:
            status.append(t(lang, "new.rules", rules=rules_words(live.game.rules, lang)))
        message = await drawn_board(self.bot, live, lang, status, launch=self.bot.offers_activity)
        channel = self.bot.get_partial_messageable(dealt.channel_id, guild_id=live.record.guild_id or None)
        return (await channel.send(**message)).id

    def may_have_shown(self, error: BaseException) -> bool:
        return lost(error)

    async def remove_thread(self, channel_id: int) -> None:
        return None


class Dealer:
    def __init__(self, bot: Host, owner_name: Any) -> None:
        self.bot = bot
        self.owner_name = owner_name  # a game's starter by name, as the page shows players (no mention there)

    async def deal(self, session: Session, choice: dict[str, Any], lang: str, manages: bool) -> Reply:
        """Deal ``choice`` (``/pyramide new``'s options, or ``again``: a finished game's id with ``same``)
        in the page's channel. ``replace``: the id of the running game the player agreed to end for it."""
        bot = self.bot
        replace = choice.get("replace") if isinstance(choice.get("replace"), int) else None
        running = await bot.manager.snapshot(session.channel_id)
        if running is not None and running.record.id != replace:  # asked before any search for a deal
            return await self._ask(running, session, lang, manages)
        chosen = await self._chosen(session, choice, lang)
        if isinstance(chosen, Reply):
            return chosen
        game, notes = chosen
        said: list[Reply] = []

        async def admit(running: Live | None) -> GameStatus | None:
            ending: GameStatus = ENDED
            if running is not None:
                if running.record.id != replace:
                    said.append(await self._ask(running, session, lang, manages))
                    return None
                allowed, ending = await bot.table.may_replace(running, session.user_id, manages)
                if not allowed:
                    said.append(Reply([self._not_allowed(running, lang)]))
                    return None
            if await self._peeks_at_the_daily(game, session.user_id):
                said.append(Reply([t(lang, "error.daily_peek")]))
                return None
            if await bot.events.is_running_deal(game):
                said.append(Reply([t(lang, "event.peek")]))
                return None
            return ending

        asked = Deal(game, session.guild_id, session.user_id, session.name, lang)
        try:
            boards, here = Boards(bot, lang, notes), Here(session.channel_id)
            opened = await open_deal(bot.manager, boards, asked, here, admit, changes=bot.changes)
        except SolverBusy:  # (today's deal worked out for the check: nothing was dealt)
            return Reply([t(lang, "error.solver_busy")])
        if not isinstance(opened, Opened | NotPosted):  # Busy (``admit`` said why); never NoThread (Here)
            return said[0] if said else Reply([t(lang, "error.prompt_used")], stale=True)
        if isinstance(opened, NotPosted):
            if not isinstance(opened.error, DISCORD_ERRORS):
                raise opened.error
            log_refusal(f"board of game {opened.dealt.live.record.id} in {session.channel_id}", opened.error)
            return Reply([t(lang, "activity.board_refused")])
        return Reply()

    async def _ask(self, running: Live, session: Session, lang: str, manages: bool) -> Reply:
        """The board's question: a game is running here; end it and deal, or keep it (and who may end it)."""
        allowed, ending = await self.bot.table.may_replace(running, session.user_id, manages)
        settings = await self.bot.settings.get(settings_key(running.record))
        words = [t(lang, "error.game_exists")]
        if ending == ABANDONED:
            words.append(t(lang, "error.idle_game", minutes=settings.idle_minutes))
        elif not allowed:
            words.append(self._not_allowed(running, lang))
            words.append(t(lang, "error.idle_later", minutes=settings.idle_minutes))
        return Reply(words, ask={"game": running.record.id, "allowed": allowed})

    def _not_allowed(self, running: Live, lang: str) -> str:
        owner = self.owner_name(running.record.owner_id) or t(lang, "activity.its_starter")
        return t(lang, "error.end_not_allowed", owner=owner)

    async def _peeks_at_the_daily(self, game: Game, player_id: int) -> bool:
        """Whether ``game`` deals today's daily cards to a player whose counted attempt is not finished."""
        if game.deal != (await todays_deal(self.bot)).deal:
            return False
        day = today(datetime.fromtimestamp(self.bot.clock(), UTC))
        attempt = await self.bot.daily_attempts.attempt(day_key(day), player_id)
        return attempt is None or attempt.status is None

    async def _chosen(self, session: Session, choice: dict[str, Any], lang: str) -> Chosen | Reply:
        again = choice.get("again")
        if isinstance(again, int):
            record = await self.bot.manager.record(again)
            if record is None or record.channel_id != session.channel_id or record.event_id is not None:
                return Reply([t(lang, "error.stale_board")], stale=True)
            rules = Rules.from_token(record.rules)
            return (Game.from_code(record.code) if choice.get("same") else Game.new(rules)), ()
        try:
            given: dict[str, Any] = {k: choice[k] for k in RULE_SWITCHES if isinstance(choice.get(k), bool)}
            if isinstance(choice.get("pass_limit"), int):
                given["pass_limit"] = choice["pass_limit"]
            rules = Rules().with_options(**rule_options(given))
        except TooManyPasses:
            return Reply([t(lang, "effect.nothing_to_do")])
        code = choice.get("code")
        code = code.strip() if isinstance(code, str) else ""
        difficulty = choice.get("difficulty")
        if difficulty is not None:
            if difficulty not in {tier.value for tier in Tier}:
                return Reply([t(lang, "effect.nothing_to_do")])
            if code or not rules.is_default:
                return Reply([t(lang, "error.difficulty_code" if code else "error.difficulty_rules")])
        if code:
            try:
                base = Game.from_code(code[:200])
            except InvalidCode as error:
                return Reply([t(lang, "error.invalid_code", code=code[:60], problem=code_problem(error, lang))])
            return Game(base.deal, base.rules.with_options(**rule_options(given))), ()
        try:
            if difficulty is not None:
                return await rated_finder(Tier(difficulty))(self.bot.solver, rules, lang)
            if choice.get("winnable") is True:
                return await winnable_game(self.bot.solver, rules, lang)
        except SolverBusy:
            return Reply([t(lang, "error.solver_busy")])
        return Game.new(rules), ()
