"""Who may deal what, where: each rule of a new deal written once, for every face.

- A game running where the deal goes is replaced only by its starter or a moderator (recorded as ended),
  or by anyone once it sat idle past the server's limit (recorded as abandoned); the player is asked first,
  and the answer names the game it was about (a question about a game no longer running is used up).
- No peeking: today's daily cards are dealt to nobody whose counted attempt is not finished, and a running
  event's deal to nobody before the event is over (under any rules).

Each refusal is a value (``AskFirst``, ``PromptUsed``, ``MayNotReplace``, ``PeeksAtDaily``,
``PeeksAtEvent``, ``Busy``), read by the faces with ``match``; ``opening.open_deal`` asks these rules under
the channel's lock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from pyramide.daily import day_key, today
from pyramide.game import Game
from pyramide.rules import Rules

from .dailies import DailyAttempts, DailyDeals
from .events import Events
from .finished import DailyWaits, EventHidden, NotFinished, NotOfHere, PlaybackRefusal
from .live import Live
from .manager import GameManager
from .outcomes import Busy
from .server_settings import ServerSettings, settings_key
from .solving import SolverBusy
from .storage import ABANDONED, ENDED, PLAYING, GameRecord, GameStatus


@dataclass(frozen=True, slots=True)
class AskFirst:
    """A game runs where the deal would go: the player is asked whether to end it, and told who may."""

    running: Live
    allowed: bool  # whether this player may end it now
    abandons: bool  # it sat idle past the server's limit: replaced as abandoned, by anyone
    idle_minutes: int  # the server's limit


@dataclass(frozen=True, slots=True)
class PromptUsed:
    """The player agreed to end a game that no longer runs there (``running``: the one that does now)."""

    running: Live | None


@dataclass(frozen=True, slots=True)
class MayNotReplace:
    """Neither the running game's starter nor a moderator, and it has not sat idle long enough."""

    running: Live


@dataclass(frozen=True, slots=True)
class PeeksAtDaily:
    """Today's daily cards, to a player whose counted attempt is not finished."""


@dataclass(frozen=True, slots=True)
class PeeksAtEvent:
    """A running event's deal, before the event is over."""


Peek = PeeksAtDaily | PeeksAtEvent
Refused = AskFirst | PromptUsed | MayNotReplace | PeeksAtDaily | PeeksAtEvent | Busy


@dataclass(frozen=True, slots=True)
class Replacing:
    """A free deal's player, as the rules over a running game need them: who, with the Manage Messages
    permission or not, and the running game they agreed to end (``None``: not asked yet)."""

    player_id: int
    manage_messages: bool = False
    replace: int | None = None


def deal_again(record: GameRecord, same: bool) -> tuple[Game, int | None]:
    """A finished board's "Same deal again" (``same``) or "New game": the same cards, or new ones under
    its rules (a daily's deal again is an ordinary game: it never counts), and the game it replaces: the
    board's own, only while it still plays (a board where nothing can be removed any more)."""
    game = Game.from_code(record.code) if same else Game.new(Rules.from_token(record.rules))
    return game, record.id if record.status == PLAYING else None


def may_end(record: GameRecord, player_id: int, manage_messages: bool) -> bool:
    """Who may end a game (or end it to deal another): its starter, or a moderator (Manage Messages)."""
    return player_id == record.owner_id or manage_messages


class Admission:
    """The rules of a deal, over the games in play (the manager), the servers' settings (the idle limit),
    today's daily and its attempts, and the running events."""

    def __init__(
        self,
        manager: GameManager,
        settings: ServerSettings,
        dailies: DailyDeals,
        attempts: DailyAttempts,
        events: Events,
    ) -> None:
        self.manager, self.settings = manager, settings
        self.dailies, self.attempts, self.events = dailies, attempts, events

    async def may_replace(self, live: Live, player_id: int, manage_messages: bool) -> tuple[bool, GameStatus]:
        """Whether a player may end ``live`` to deal a new game, and how it is recorded: its starter or a
        moderator ends it; anyone in the channel may replace it once it sat idle past the server's limit
        (recorded as abandoned: played, not won)."""
        if may_end(live.record, player_id, manage_messages):
            return True, ENDED
        settings = await self.settings.get(settings_key(live.record))
        last = await self.manager.last_action_at(live.record.id) or live.record.created_at
        if (self.manager.clock() - last) / 60 >= settings.idle_minutes:
            return True, ABANDONED
        return False, ENDED

    async def question(self, running: Live, player_id: int, manage_messages: bool) -> AskFirst:
        """What the player is asked before a deal replaces ``running``."""
        allowed, ending = await self.may_replace(running, player_id, manage_messages)
        settings = await self.settings.get(settings_key(running.record))
        return AskFirst(running, allowed, ending == ABANDONED, settings.idle_minutes)

    async def ask_first(self, channel_id: int, replacing: Replacing) -> AskFirst | None:
        """The question to ask before any search for a deal (a winnable one, one of a difficulty): whether
        a game other than the one the player agreed to end runs in the channel."""
        running = await self.manager.snapshot(channel_id)
        if running is None or running.record.id == replacing.replace:
            return None
        return await self.question(running, replacing.player_id, replacing.manage_messages)

    async def admit(self, running: Live | None, game: Game, replacing: Replacing) -> GameStatus | Refused:
        """Asked under the channel's lock: how to end ``running`` to deal ``game`` there, or why not."""
        ending: GameStatus = ENDED
        if replacing.replace is not None and (running is None or running.record.id != replacing.replace):
            return PromptUsed(running)
        if running is not None:
            if replacing.replace is None:
                return await self.question(running, replacing.player_id, replacing.manage_messages)
            allowed, ending = await self.may_replace(running, replacing.player_id, replacing.manage_messages)
            if not allowed:
                return MayNotReplace(running)
        return await self.peeks(game, replacing.player_id) or ending

    async def peeks(self, game: Game, player_id: int) -> Peek | Busy | None:
        """Whether ``game`` deals cards nobody may be dealt yet: today's daily to ``player_id`` (whose counted
        attempt is not finished), or a running event's deal; ``Busy`` when today's deal is still to be
        worked out and the solver has no room."""
        try:
            if await self.is_todays(game):
                day = today(datetime.fromtimestamp(self.dailies.clock(), UTC))
                attempt = await self.attempts.attempt(day_key(day), player_id)
                if attempt is None or attempt.status is None:
                    return PeeksAtDaily()
        except SolverBusy:
            return Busy()
        if await self.events.is_running_deal(game):
            return PeeksAtEvent()
        return None

    async def may_play_back(self, record: GameRecord | None, channel_id: int) -> PlaybackRefusal | None:
        """Whether ``record``'s game may be played back in ``channel_id`` (its winning line, its replay): a
        finished game of that channel, not an event's deal, not today's daily deal; ``None`` when it may.
        Raises ``SolverBusy`` when today's deal is still to be worked out and cannot be now."""
        if record is None or record.channel_id != channel_id:
            return NotOfHere()
        if record.status == PLAYING:
            return NotFinished()
        if record.event_id is not None:
            return EventHidden()
        if await self.is_todays(Game.from_code(record.code)):
            return DailyWaits()
        return None

    async def is_todays(self, game: Game) -> bool:
        """Whether ``game`` deals today's daily cards (under any rules): its line and its code wait until the
        day is over. Raises ``SolverBusy`` when today's deal is still to be worked out and cannot be now."""
        day = today(datetime.fromtimestamp(self.dailies.clock(), UTC))
        return game.deal == Game.from_code(await self.dailies.code(day)).deal
