"""The solver service: the questions the bot asks the solver (hints, end-of-game verdicts, winnable
deals, the daily's deal) and the animations it draws, each answered in a worker process of its kind
(``pyramide_service.workers``), admitted under a cap on waiting work, and kept once answered.

One service per bot, made and released by whoever owns it: the bot makes it with its ``Workers``, hands
it to the game manager and the cogs, and closes it (``close``) at shutdown, before the workers. A verdict
or a daily still being worked out when nobody waits for it any more is a supervised task: its failure is
logged, and the close ends it. A test gets a fresh one with a new bot.

Bounds (waiting or running at once, per kind; beyond them the player reads "busy, try again",
``SolverBusy``): hints 6, verdicts 8, winnable deals 4, animations 3; the daily's deal is asked once at a
time per day. A verdict is awaited at most ``VERDICT_WAIT`` seconds (it is answered inside a channel's
lock): later, or over its cap, the end line says the deal could not be decided, and a verdict still being
worked out is kept when it arrives (the next drawing of the board shows it).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from datetime import date
from typing import Any, Protocol, TypeVar

from pyramide.bounded import LRU
from pyramide.daily import daily_rating
from pyramide.difficulty import Rating, Tier, find_rated
from pyramide.errors import GameError
from pyramide.game import Game
from pyramide.rules import Rules
from pyramide.solver import Hint, Verdict, WinnablePick, compiled_for, first_winnable, hint, max_removable, solve

from .tasks import Supervised
from .workers import PoolClosed, WorkerPool, Workers

R = TypeVar("R")

HINT_SECONDS = 2.0  # wall-clock limit of one hint, from the moment it is asked
VERDICT_SECONDS = 2.5  # wall-clock limit of the "was this deal winnable" search, from the moment it is asked
VERDICT_WAIT = 3.0  # the longest a turn waits for a verdict inside the channel's lock, queue included
WINNABLE_SECONDS = 4.0  # wall-clock limit of the search for a winnable deal
RATED_SECONDS = 2.5  # wall-clock limit of the search for a winnable deal of a difficulty
WINNABLE_TRIES = 60
WINNABLE_BUDGET = 5  # times wait_nodes(rules), over all tries
# Node limits for a question a player waits for (a hint, the end-of-game verdict, a winnable deal):
# about the same wall time, a few seconds at most, for the Python search and the compiled core.
PYTHON_WAIT_NODES = 300_000
COMPILED_WAIT_NODES = 3_000_000
CACHE_SIZE = 512
RATINGS_SIZE = 4096
ANIMATION_CACHE_BYTES = 64 * 1024 * 1024
# Work waiting or running at once, per kind; more is refused as busy.
LIMITS = {"hint": 6, "verdict": 8, "winnable": 4, "animation": 3}

DealVerdict = tuple[Verdict, int | None]  # a deal's verdict, and the most cards it allowed (None: unknown)
UNDECIDED: DealVerdict = (Verdict.UNDECIDED, None)


class SolverBusy(GameError):
    """Too much work of this kind waits already: try again in a moment."""

    key = "solver_busy"


def wait_nodes(rules: Rules) -> int:
    """The node limit for a question a player waits for under these rules."""
    return COMPILED_WAIT_NODES if compiled_for(rules) else PYTHON_WAIT_NODES


def deal_verdict(code: str, deadline: float | None = None) -> DealVerdict:
    """Whether a deal was winnable from the start, and the most cards it allowed (``None`` if unknown)."""
    game = Game.from_code(code)
    result = solve(game, wait_nodes(game.rules), deadline)
    if result.won:
        return result.verdict, 28
    if result.verdict is Verdict.IMPOSSIBLE:
        return result.verdict, max_removable(game, wait_nodes(game.rules), deadline)
    return result.verdict, None


def winnable_pick(start: int, rules: Rules, deadline: float) -> WinnablePick | None:
    """The first deal from ``start`` that the solver proves winnable, within the limits a player waits for."""
    limit = wait_nodes(rules)
    return first_winnable(start, rules, limit, WINNABLE_TRIES, WINNABLE_BUDGET * limit, deadline)


class _Sized(Protocol):
    @property
    def data(self) -> bytes: ...


def _size(animation: _Sized) -> int:
    return len(animation.data)


class SolverService:
    """The solver's questions and the animations, over ``workers`` (which the caller owns and closes)."""

    def __init__(self, workers: Workers, limits: dict[str, int] | None = None) -> None:
        self.workers = workers
        self.limits = dict(LIMITS if limits is None else limits)
        # Finished animations by (kind, deal code or game, language, style), kept by the cogs, by what they drew.
        self.animations: LRU[tuple[object, ...], Any] = LRU(ANIMATION_CACHE_BYTES, _size)
        self._waiting: Counter[str] = Counter()
        self._hint_locks: dict[int, tuple[asyncio.Lock, list[int]]] = {}
        self._hints: LRU[tuple[int, int], Hint] = LRU(CACHE_SIZE)
        self._verdicts: LRU[str, DealVerdict] = LRU(CACHE_SIZE)
        # Ratings of the deals this service rated (chosen by difficulty, the dailies): the board names a
        # deal's tier when it is known here, so drawing a board never waits for one.
        self._ratings: LRU[str, Rating] = LRU(RATINGS_SIZE)
        self._verdicts_asked: dict[str, asyncio.Task[DealVerdict]] = {}
        self._dailies: dict[tuple[date, bytes | None], asyncio.Task[Rating]] = {}
        # The verdicts and dailies being worked out: an asker may stop waiting (a bounded wait, a cancelled
        # flow), so the tasks are kept and watched here, and ended by close().
        self._tasks = Supervised("solver")

    async def close(self) -> None:
        """Shutdown: the verdicts and dailies still being worked out are cancelled and waited for."""
        await self._tasks.close()

    def waiting(self, kind: str) -> int:
        """Work of ``kind`` waiting for its worker or being worked out."""
        return self._waiting[kind]

    @property
    def waiting_hints(self) -> int:
        return self._waiting["hint"]

    def has_room(self, kind: str) -> bool:
        """Whether work of ``kind`` would be taken now (ask before a deferral that promises an answer)."""
        return self._waiting[kind] < self.limits[kind]

    async def _run(self, kind: str, pool: WorkerPool, function: Callable[..., R], *args: object) -> R:
        """``function(*args)`` in ``pool``, counted as ``kind``; ``SolverBusy`` beyond the kind's limit or
        when the worker cannot take it (it crashed, or the bot is stopping)."""
        if not self.has_room(kind):
            raise SolverBusy()
        self._waiting[kind] += 1
        try:
            return await pool.run(function, *args)
        except (BrokenProcessPool, PoolClosed) as error:
            raise SolverBusy() from error
        finally:
            self._waiting[kind] -= 1

    # ------------------------------------------------------------------ hints
    @asynccontextmanager
    async def _one_hint_at_a_time(self, game_id: int) -> AsyncIterator[None]:
        lock, users = self._hint_locks.setdefault(game_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._hint_locks[game_id]

    async def hint(self, game_id: int, game: Game) -> Hint:
        """A hint for ``game`` (a snapshot of game ``game_id``'s position). At most one hint per game is
        worked out at a time, and the answer for a position is kept, so asking again costs nothing.
        Raises ``SolverBusy`` when too many hints wait overall."""
        key = (game_id, game.version)
        async with self._one_hint_at_a_time(game_id):
            known = self._hints.get(key)
            if known is None:
                deadline = time.monotonic() + HINT_SECONDS
                known = await self._run("hint", self.workers.hints, hint, game, wait_nodes(game.rules), deadline)
                self._hints.put(key, known)
        return known

    # ---------------------------------------------------------------- ratings
    def known_rating(self, code: str) -> Rating | None:
        """The rating of a deal (by code, rules included) when this service rated it: a deal chosen by
        difficulty, a daily. ``None`` for any other deal: nothing is rated to draw a board."""
        return self._ratings.get(code)

    # --------------------------------------------------------------- verdicts
    def known_verdict(self, code: str) -> DealVerdict | None:
        return self._verdicts.get(code)

    async def verdict(self, code: str) -> DealVerdict:
        """Whether a deal was winnable from its start, and the most cards it allowed (decided answers kept).
        Waits at most ``VERDICT_WAIT`` seconds; later, or with too many verdicts waiting, undecided."""
        known = self._verdicts.get(code)
        if known is not None:
            return known
        asked = self._verdict_asked(code)
        if asked is None:
            return UNDECIDED
        try:
            return await asyncio.wait_for(asyncio.shield(asked), VERDICT_WAIT)
        except TimeoutError:
            return UNDECIDED  # still worked out: kept when it arrives

    async def settled_verdict(self, code: str) -> DealVerdict:
        """The verdict however long the solver takes (up to its own deadline, then undecided): for a
        follow-up outside any lock, never for a press. Raises ``SolverBusy`` when too many verdicts wait."""
        known = self._verdicts.get(code)
        if known is not None:
            return known
        asked = self._verdict_asked(code)
        if asked is None:
            raise SolverBusy()
        return await asyncio.shield(asked)

    def _verdict_asked(self, code: str) -> asyncio.Task[DealVerdict] | None:
        """The verdict being worked out for ``code``, asked now if it is not (``None``: no room)."""
        asked = self._verdicts_asked.get(code)
        if asked is None and self.has_room("verdict"):
            asked = self._verdicts_asked[code] = self._tasks.spawn(self._solve_verdict(code), f"verdict {code}")
        return asked

    async def _solve_verdict(self, code: str) -> DealVerdict:
        try:
            deadline = time.monotonic() + VERDICT_SECONDS
            found = await self._run("verdict", self.workers.verdicts, deal_verdict, code, deadline)
        except SolverBusy:
            return UNDECIDED
        finally:
            self._verdicts_asked.pop(code, None)
        if found[0] is not Verdict.UNDECIDED:
            self._verdicts.put(code, found)
        return found

    # ------------------------------------------------------------------ deals
    async def winnable(self, start: int, rules: Rules) -> WinnablePick | None:
        """The first deal from ``start`` proved winnable under ``rules`` within a few seconds (``None``:
        none found in time). Raises ``SolverBusy`` when too many searches wait."""
        deadline = time.monotonic() + WINNABLE_SECONDS
        return await self._run("winnable", self.workers.deals, winnable_pick, start, rules, deadline)

    async def rated(self, start: int, rules: Rules, tier: Tier) -> tuple[int, Rating] | None:
        """The first deal from ``start`` proved winnable and rated ``tier`` within ``RATED_SECONDS``
        (``None``: none found in time), solved and rated in the deals worker; its rating is remembered
        here for the board's status line. Raises ``SolverBusy`` when too many searches wait."""
        deadline = time.monotonic() + RATED_SECONDS
        found = await self._run(
            "winnable", self.workers.deals, find_rated, start, rules, tier, wait_nodes(rules), None, deadline
        )
        if found is not None:
            self._ratings.put(found[1].code, found[1])
        return found

    async def daily(self, day: date, secret: bytes | None) -> Rating:
        """The day's deal for this deployment and its rating, worked out once however many ask at the same
        time (and remembered here, so that its boards name its tier)."""
        key = (day, secret)
        asked = self._dailies.get(key)
        if asked is None:
            asked = self._dailies[key] = self._tasks.spawn(self._solve_daily(day, secret), f"daily {day}")
            asked.add_done_callback(lambda _: self._dailies.pop(key, None))
        return await asyncio.shield(asked)

    async def _solve_daily(self, day: date, secret: bytes | None) -> Rating:
        try:
            # On the verdicts' worker, never behind winnable searches (the search by tier takes at most
            # about 1.5 s, bench/difficulty.py search).
            rating = await self.workers.verdicts.run(daily_rating, day, secret)
        except (BrokenProcessPool, PoolClosed) as error:
            raise SolverBusy() from error
        self._ratings.put(rating.code, rating)
        return rating

    # ------------------------------------------------------------- animations
    async def animate(self, function: Callable[..., R], *args: object) -> R:
        """``function(*args)`` in the animation worker (a winning line or a replay: solved, drawn and
        encoded there). Raises ``SolverBusy`` when too many wait."""
        return await self._run("animation", self.workers.animations, function, *args)
