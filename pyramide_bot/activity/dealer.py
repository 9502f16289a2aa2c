"""A deal from the Activity's page, as ``/pyramide new`` and a finished board's "New game" / "Same deal
again" make one: through the application's ``open_deal`` (the channel's turn, the game started, its board
posted, anything half-made taken back), under the application's rules for a deal (``admission``: a game
already running there, the cards nobody may deal yet), the very rules of the board.

The page deals in its own channel only: the Activity plays the channel's game, so a deal in a thread of
its own (``/pyramide new thread``) would leave the page with nothing to play; the page does not offer it
(docs/activity.md). Outside servers, where ``anyone`` is an option, the Activity does not sign in.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pyramide import Game
from pyramide.difficulty import Tier
from pyramide.i18n import t
from pyramide.rules import TooManyPasses
from pyramide_discord import presenter
from pyramide_discord.board import drawn_board
from pyramide_discord.failures import DISCORD_ERRORS, log_refusal, lost
from pyramide_discord.finders import rated_finder, winnable_game
from pyramide_discord.host import Host
from pyramide_discord.words import rules_words
from pyramide_service import inputs
from pyramide_service.admission import AskFirst, PromptUsed, Refused, Replacing, deal_again
from pyramide_service.opening import Deal, Dealt, Here, NoThread, NotPosted, Opened, open_free_deal
from pyramide_service.solving import SolverBusy

from .presses import Reply
from .sessions import Session

log = logging.getLogger(__name__)
RULE_SWITCHES = ("strict_win", "draw_with_waste", "pair_with_cover")
Chosen = tuple[Game, tuple[str, ...]]  # a deal, and the notes its search left (none of that difficulty)


class Boards:
    """``opening.BoardPort`` for the Activity: the board posted in the page's channel by the bot token."""

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
    def __init__(self, bot: Host, owner_name: Callable[[int], str | None]) -> None:
        self.bot = bot
        self.owner_name = owner_name  # a game's starter by name, as the page shows players (no mention there)

    async def deal(self, session: Session, choice: dict[str, Any], lang: str, manages: bool) -> Reply:
        """Deal ``choice`` (``/pyramide new``'s options, or ``again``: a finished game's id with ``same``)
        in the page's channel. ``replace``: the id of the running game the player agreed to end for it."""
        bot = self.bot
        replace = choice.get("replace") if isinstance(choice.get("replace"), int) else None
        again = choice.get("again")
        if isinstance(again, int):  # a finished board's choice: the game it replaces is the board's rule
            record = await self.bot.manager.record(again)
            if record is None or record.channel_id != session.channel_id or record.event_id is not None:
                return Reply([t(lang, "error.stale_board")], stale=True)
            game, replace = deal_again(record, same=bool(choice.get("same")))
        replacing = Replacing(session.user_id, manages, replace)
        asked = await bot.admission.ask_first(session.channel_id, replacing)
        if asked is not None:  # asked before any search for a deal
            return self._refused(asked, lang)
        notes: tuple[str, ...] = ()
        if not isinstance(again, int):
            chosen = await self.chosen(choice, lang)
            if isinstance(chosen, Reply):
                return chosen
            game, notes = chosen
        deal = Deal(game, session.guild_id, session.user_id, session.name, lang)
        boards, here = Boards(bot, lang, notes), Here(session.channel_id)
        opened = await open_free_deal(bot.admission, boards, deal, here, replacing, changes=bot.changes)
        match opened:
            case Opened():
                return Reply()
            case NotPosted(dealt, error):
                if not isinstance(error, DISCORD_ERRORS):
                    raise error
                log_refusal(f"board of game {dealt.live.record.id} in {session.channel_id}", error)
                return Reply([t(lang, "activity.board_refused")])
            case NoThread():  # (never: the page deals Here)
                return Reply([t(lang, "error.no_thread")])
            case _:
                return self._refused(opened, lang)

    def _refused(self, refused: Refused, lang: str) -> Reply:
        """A deal the application's rules refused, in the page's words (a question: with its choices)."""
        starter = t(lang, "activity.its_starter")
        words = presenter.deal_refusal(refused, lang, lambda player: self.owner_name(player) or starter)
        match refused:
            case AskFirst(running, allowed):
                return Reply(words, ask={"game": running.record.id, "allowed": allowed})
            case PromptUsed():
                return Reply(words, stale=True)
        return Reply(words)

    async def chosen(self, choice: dict[str, Any], lang: str) -> Chosen | Reply:
        """``/pyramide new``'s options: the rules, a code, a difficulty or a winnable deal, as the
        application reads them (``inputs.free_deal``)."""
        given: dict[str, Any] = {k: choice[k] for k in RULE_SWITCHES if isinstance(choice.get(k), bool)}
        if isinstance(choice.get("pass_limit"), int):
            given["pass_limit"] = choice["pass_limit"]
        code = choice["code"] if isinstance(choice.get("code"), str) else None
        difficulty = choice.get("difficulty")
        if difficulty is not None and difficulty not in {tier.value for tier in Tier}:
            return Reply([t(lang, "effect.nothing_to_do")])
        tier = Tier(difficulty) if difficulty is not None else None
        try:
            asked = inputs.free_deal(given, code, tier, choice.get("winnable") is True)
        except TooManyPasses:
            return Reply([t(lang, "effect.nothing_to_do")])
        if not isinstance(asked, inputs.FreeDeal):
            return Reply([presenter.free_deal_refusal(asked, lang)])
        if asked.game is not None:
            return asked.game, ()
        try:
            if asked.tier is not None:
                return await rated_finder(asked.tier)(self.bot.solver, asked.rules, lang)
            if asked.winnable:
                return await winnable_game(self.bot.solver, asked.rules, lang)
        except SolverBusy:
            return Reply([t(lang, "error.solver_busy")])
        return Game.new(asked.rules), ()
