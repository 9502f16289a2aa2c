"""The perfect losses still owed, paid once the solver's verdict on their deal is known.

A game that was not won stores, as it is closed, that it owes a verdict (``storage.owed``). The press that
closed it pays it when the verdict comes within its bounded wait; otherwise (a slow verdict, a busy
solver) a follow-up here waits for it in the background, and one started after a restart pays what a
stopped process left, or a busy solver could not take (``resume``: at start, and in the housekeeping
loop), as the crediting of old games is (``credits``). Paying is one
transaction that deletes the row and awards the achievement: whoever deletes it awards, once."""

from __future__ import annotations

import asyncio
import logging

from pyramide.achievements import perfect_loss
from pyramide.solver import Verdict

from .solving import DealVerdict, SolverBusy, SolverService
from .storage import STUCK, Storage
from .storage.owed import OwedVerdict

log = logging.getLogger(__name__)


def is_perfect(verdict: DealVerdict, removed: int) -> bool:
    most = verdict[1]
    return perfect_loss(STUCK, verdict[0] is Verdict.IMPOSSIBLE, most, removed)


class OwedVerdicts:
    """The follow-ups of this process, one per game at most; whoever makes one closes it."""

    def __init__(self, storage: Storage, solver: SolverService | None) -> None:
        self.storage = storage
        self.solver = solver
        self._tasks: dict[int, asyncio.Task[bool]] = {}

    async def pay(self, owed: OwedVerdict, verdict: DealVerdict) -> bool:
        """Pay ``owed`` with a decided ``verdict`` (an undecided one leaves it to a follow-up); returns
        whether this call unlocked the perfect loss."""
        if verdict[0] is Verdict.UNDECIDED:
            self.follow(owed)
            return False
        return await self.storage.pay_verdict(owed.game_id, is_perfect(verdict, owed.removed))

    def follow(self, owed: OwedVerdict) -> asyncio.Task[bool]:
        """Pay ``owed`` in the background once its verdict is known, unless that is under way already."""
        task = self._tasks.get(owed.game_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._settle(owed), name=f"verdict-{owed.game_id}")
            self._tasks[owed.game_id] = task
            task.add_done_callback(lambda done: self._done(owed.game_id, done))
        return task

    async def resume(self) -> int:
        """Follow every verdict still owed (left by a stopped process, or by a busy solver); how many."""
        owed = await self.storage.owed_verdicts()
        for one in owed:
            self.follow(one)
        return len(owed)

    async def _settle(self, owed: OwedVerdict) -> bool:
        if self.solver is None:
            return False
        try:
            verdict = await self.solver.settled_verdict(owed.code)
        except SolverBusy:  # too many verdicts wait: the row stays, followed again by the next ``resume``
            return False
        # Undecided within the solver's own deadline: no verdict will ever say it was a perfect loss.
        return await self.storage.pay_verdict(owed.game_id, is_perfect(verdict, owed.removed))

    def _done(self, game_id: int, task: asyncio.Task[bool]) -> None:
        if self._tasks.get(game_id) is task:
            del self._tasks[game_id]
        if not task.cancelled() and task.exception() is not None:  # the row stays: paid after the next start
            log.error("game %s: the perfect loss it owes was not paid", game_id, exc_info=task.exception())

    @property
    def running(self) -> int:
        return len(self._tasks)

    async def wait(self) -> None:
        """Wait for the follow-ups under way (tests, and shutting down)."""
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
