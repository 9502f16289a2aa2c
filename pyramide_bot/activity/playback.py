"""A finished game's "Show a winning line" and "Replay my game" in the Activity's page: the board posts an
animated picture; the page steps through the positions itself, drawn as it draws the game. The solver's
line is found in the solver service's animation worker (as the board's picture is, within the same time
limit); the positions are the board animation's frames (``pyramide.replay``), each sent as card indexes,
with one table of the deal's cards in the player's language.

The same rules as the board's buttons, asked of the application (``Admission.may_play_back``): a finished
game of this channel only, not an event's deal (its code is revealed with the event's results), not today's
daily deal until the day is over."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pyramide import UNDER, WASTE, Card, Game, Move
from pyramide.bounded import LRU
from pyramide.i18n import card_name, card_spoken, t
from pyramide.replay import Frame, action_frames, line_frames, winning_line
from pyramide_discord import presenter
from pyramide_discord.finders import LINE_SECONDS
from pyramide_discord.host import Host
from pyramide_service.finished import NotOfHere
from pyramide_service.solving import SolverBusy, wait_nodes

from .presses import Reply
from .sessions import Session

KINDS = ("line", "mine")


class Playbacks:
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self._lines: LRU[str, tuple[Move, ...]] = LRU(256)  # deal code -> the solver's winning line

    async def show(self, session: Session, kind: str, game_id: int, lang: str) -> Reply:
        bot = self.bot
        record = await bot.manager.record(game_id) if kind in KINDS else None
        try:
            refused = await bot.admission.may_play_back(record, session.channel_id)
            if refused is not None:
                return Reply([presenter.playback_refusal(refused, lang)], stale=isinstance(refused, NotOfHere))
            assert record is not None
            # (a replay grows with the game's actions, up to the cap: its frames are worked out off the event loop)
            if kind == "mine":
                frames = await asyncio.to_thread(action_frames, Game.from_code(record.code), record.actions)
                moves = len(record.actions)
            else:
                line = await self._line(record.code)
                if line is None:
                    return Reply([t(lang, "anim.none")])
                frames = await asyncio.to_thread(line_frames, Game.from_code(record.code), line)
                moves = len(line)
        except SolverBusy:
            return Reply([t(lang, "error.solver_busy")])
        words = t(lang, f"anim.alt_{kind}", code=record.code, moves=moves)
        return Reply([words], playback=playback(frames, kind, lang))

    async def _line(self, code: str) -> tuple[Move, ...] | None:
        """The solver's winning line of ``code``, found in the animation worker within the board's time limit
        (``None``: none found in time). Raises ``SolverBusy`` when too many wait."""
        line = self._lines.get(code)
        if line is None:
            if not self.bot.solver.has_room("animation"):
                raise SolverBusy()
            deadline = time.monotonic() + LINE_SECONDS
            line = await self.bot.solver.animate(winning_line, code, wait_nodes(Game.from_code(code).rules), deadline)
            if line is not None:
                self._lines.put(code, line)
        return line


def playback(frames: list[Frame], kind: str, lang: str) -> dict[str, Any]:
    """The positions to step through, each by card indexes (``cards`` names them once)."""
    cards: dict[str, dict[str, str]] = {}

    def index(card: Card | None) -> str | None:
        if card is None:
            return None
        key = str(card.index)
        if key not in cards:
            name, spoken = card_name(card, lang), card_spoken(card, lang)
            cards[key] = {"card": str(card), "name": name, "spoken": spoken, "index": key}
        return key

    shown = []
    for frame in frames:
        game = frame.game
        shown.append(
            {
                "pyramid": [index(card) for card in game.pyramid],
                "free": [str(spot) for spot in game.selectable_spots()],
                "waste": index(game.card_at(WASTE)),
                "under": index(game.card_at(UNDER)),
                "stock": len(game.stock),
                "can_turn": game.can_turn,
                "selected": str(game.selected) if game.selected is not None else None,
                "score": game.score,
                "moves": game.moves,
                "highlight": [str(spot) for spot in frame.highlight],
                "ms": frame.ms,
            }
        )
    return {"kind": kind, "cards": cards, "frames": shown}
