"""The Activity's adapter onto the game: a tap, an undo and a hint are the application's ``Plays.play``
and ``Plays.hint`` (``pyramide_service.play``), the very calls a board button makes, with the same rules
and the same closed outcomes (a refusal is one of them, answered on the socket, which stays open); the
channel's board message is edited to follow.

Ending the game is ``Plays.end``, as the board's End button (its starter, or a moderator: the page knows
the player's Manage Messages only from the bot's cache of the server's members, which it does not ask
Discord for). A deal from the page is ``dealer.py``; a winning line and a replay ``playback.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from dataclasses import dataclass, field
from typing import Any

import discord

from pyramide import Game
from pyramide.bounded import LRU
from pyramide.i18n import card_spoken, language_for, t
from pyramide_discord import presenter
from pyramide_discord.board import drawn_board
from pyramide_discord.failures import DISCORD_ERRORS, log_refusal
from pyramide_discord.host import Host
from pyramide_discord.words import ending_lines
from pyramide_service import PLAYING, WON
from pyramide_service import outcomes as out
from pyramide_service.ending import Ending
from pyramide_service.finished import offers as finished_offers
from pyramide_service.manager import Live
from pyramide_service.play import Press
from pyramide_service.server_settings import settings_key

from .board_edits import BoardEdits
from .sessions import Session

log = logging.getLogger(__name__)
ACTIONS = frozenset({*(str(spot) for spot in range(28)), "w", "u", "s", "undo"})
SPOT_ACTIONS = {"waste": "w", "under": "u", "stock": "s"}


@dataclass
class Reply:
    """What the page that asked is told: words in its player's language, a hint's cards, whether its
    position was behind (it is sent the current one either way), a question, a line to step through."""

    words: list[str] = field(default_factory=list)
    highlight: tuple = ()
    stale: bool = False
    ask: dict[str, Any] | None = None  # "end the running game to deal?": its id, and whether this player may
    playback: dict[str, Any] | None = None  # a winning line or a replay, to step through (``playback``)


class PagePresses:
    """A page's presses handed to the application (``Plays``), their outcomes as the page's ``Reply``, and
    the channel's board message kept in step."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self.edits = BoardEdits(bot, self._draw_board)
        self._last: LRU[int, int] = LRU(10_000)  # channel -> its latest game, to show it once finished
        self._endings: LRU[int, Ending] = LRU(2_000)  # a finished game's ending, as its press worked it out
        self.names: LRU[int, str] = LRU(10_000)  # players by the names their pages signed in with

    async def close(self) -> None:
        await self.edits.close()

    def name(self, player_id: int, lang: str) -> str:
        """A player as the page names them: by the name their page signed in with, else as the game's starter."""
        return self.names.get(player_id) or t(lang, "activity.its_starter")

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
            game = await asyncio.to_thread(Game.replay, record.code, record.actions)  # (up to MAX_ACTIONS)
        except (ValueError, TypeError):
            return None
        game.started_at, game.finished_at = record.started_at, record.finished_at
        return Live(record, game)

    async def ending(self, live: Live, lang: str) -> list[str]:
        """The finished game's lines (result, the deal's verdict, achievements), as the board shows them."""
        return ending_lines(await self.ended(live, lang), lang)

    async def finished_view(self, live: Live, lang: str) -> tuple[list[str], dict[str, Any]]:
        """A finished game's lines, and the choices its board offers besides a new deal: a winning line
        (the deal known winnable), a replay (some move made), the counted daily's share line (an event's
        deal offers none of them: its code is revealed with the event's results)."""
        ending = await self.ended(live, lang)
        offered = finished_offers(live.record, ending.winnable)
        return ending_lines(ending, lang), {"line": offered.line, "replay": offered.replay, "share": ending.share}

    async def ended(self, live: Live, lang: str) -> Ending:
        """How the finished game ended: as its press worked it out, else read back (``Plays.read_back``)."""
        ending = self._endings.get(live.record.id)
        if ending is None:  # finished elsewhere (a button, another process)
            ending = await self.bot.plays.read_back(live, lang, None)
            if ending.verdict is not None or live.record.status == WON:
                self._endings.put(live.record.id, ending)
        return ending

    async def may_play(self, user_id: int, live: Live) -> bool:
        if user_id == live.record.owner_id:
            return True
        return (await self.bot.settings.get(settings_key(live.record))).anyone_can_play

    def manages(self, session: Session) -> bool:
        """Whether the player may manage messages in the page's channel (a moderator), as far as the bot's
        cache of the server knows them (no privileged intent: a moderator not seen is not known as one)."""
        guild = self.bot.get_guild(session.guild_id) if session.guild_id is not None else None
        member = guild.get_member(session.user_id) if guild is not None else None
        channel = guild.get_channel(session.channel_id) if guild is not None else None
        if member is None or not isinstance(channel, discord.abc.GuildChannel):
            return False
        return channel.permissions_for(member).manage_messages

    # ------------------------------------------------------------------ playing
    def _press(self, session: Session, version: int, lang: str) -> Press:
        live_id = self._last.get(session.channel_id)
        return Press(session.channel_id, session.user_id, lang, game_id=live_id, version=version)

    def _refusal(self, outcome: presenter.NotPlayed, lang: str) -> Reply:
        """A press that played nothing, in words (the page is sent the position as it is now either way)."""
        words = presenter.unplayed(outcome, lang, lambda player: self.name(player, lang), face="page")
        return Reply(words, stale=not isinstance(outcome, out.Busy | out.NotYours | out.MayNotEnd))

    async def move(self, session: Session, action: str, version: int, lang: str) -> Reply:
        """Tap a spot (``0``-``27``, ``waste``, ``under``, ``stock``) or undo, on the position ``version``."""
        action = SPOT_ACTIONS.get(action, action)
        if action not in ACTIONS:
            return Reply([t(lang, "effect.nothing_to_do")])
        move = (lambda game: game.undo()) if action == "undo" else presenter.tap_action(action)
        async with self.bot.plays.play(self._press(session, version, lang), move) as outcome:
            if not isinstance(outcome, out.Played):
                return self._refusal(outcome, lang)
            live = outcome.live
            if outcome.ending is not None:
                self._endings.put(live.record.id, outcome.ending)
            # Said to its player alone, in full, in the words the page speaks; the page shows a game's end itself.
            words = presenter.played_lines(outcome, lang, explained=True, ending=False, name=card_spoken)
            board_lang = language_for(live.record.locale)  # (the board adds the ending as it is drawn)
            self.edits.want(session.channel_id, presenter.played_lines(outcome, board_lang, ending=False))
        return Reply(words)

    async def hint(self, session: Session, version: int, lang: str) -> Reply:
        async with self.bot.plays.hint(self._press(session, version, lang)) as outcome:
            if not isinstance(outcome, out.Hinted):
                return self._refusal(outcome, lang)
            words, highlight, _dead = presenter.hint_words(outcome.hint, outcome.snapshot, lang, card_spoken)
        return Reply(words, tuple(str(spot) for spot in highlight))

    async def end(self, session: Session, version: int, lang: str) -> Reply:
        """The board's End on the position ``version`` (the page asked the player to confirm first)."""
        press = dataclasses.replace(self._press(session, version, lang), manage_messages=self.manages(session))
        async with self.bot.plays.end(press) as outcome:
            match outcome:
                case out.Ended(live, ending):
                    self._endings.put(live.record.id, ending)
                    self.edits.want(session.channel_id, [])  # (a finished board's lines are its ending's)
                case _:
                    return self._refusal(outcome, lang)
        return Reply()

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
