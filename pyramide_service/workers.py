"""Worker processes for the engine's slow work (the solver's searches, drawing animations), which never
outlive the process that started them.

A search in pure Python holds the GIL for its whole run; in a thread it would slow every await of the
event loop (measured: one hard hint delayed other channels' answers by 1.2 s), in a process of its own it
cannot. Each ``WorkerPool`` is one such process (``spawn``: nothing of the bot's memory is copied).

Dying with the parent, ``kill -9`` included: a worker asks the kernel for SIGKILL when its parent dies
(``PR_SET_PDEATHSIG``, Linux), checks right after that its parent is still the process that started it
(the parent may have died between the fork and the request), and keeps a watchdog thread polling its
parent (other systems, and a second line of defence). multiprocessing's resource tracker, also started
by the parent, stops by itself once the parent and every worker are gone (the end of its pipe), so
nothing keeps the bot's stdout and stderr open after it died.

Nothing here is a module singleton: whoever makes a ``Workers`` closes it (the bot, at a clean stop).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from pyramide.worker_start import die_with_parent, start_worker

__all__ = ["PoolClosed", "WorkerPool", "Workers", "die_with_parent"]

log = logging.getLogger(__name__)
R = TypeVar("R")


class PoolClosed(RuntimeError):
    """Work handed to a pool after it was closed (the bot is stopping)."""


class WorkerPool:
    """One worker process, started on first use (or by ``start``) and replaced when it crashes.

    The process is spawned from the thread that first hands it work, and ``PR_SET_PDEATHSIG`` fires when
    that thread ends: hand work from the event loop's thread (as ``run`` does), never from a passing one."""

    def __init__(self, name: str, setup: Callable[[], None] | None = None) -> None:
        self.name = name
        self.setup = setup
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False

    def executor(self) -> ProcessPoolExecutor:
        if self._closed:
            raise PoolClosed(self.name)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(), self.setup),
            )
        return self._pool

    def start(self) -> None:
        """Start the worker now, so the first question does not wait for it."""
        self.executor().submit(os.getpid)

    async def run(self, function: Callable[..., R], *args: object) -> R:
        """``function(*args)`` in the worker. Raises ``BrokenProcessPool`` if the worker died (the next
        call starts a new one) and ``PoolClosed`` once the pool is closed."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor(), function, *args)
        except BrokenProcessPool:
            log.error("worker %s stopped; starting a new one", self.name)
            self._pool = None
            raise

    def close(self) -> None:
        """No more work: what waits is cancelled, the worker ends after its current task."""
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class Workers:
    """The engine's worker processes, one per kind of work, so that no kind waits behind another:
    hints (a player asked); end-of-game verdicts (awaited inside a channel's lock, so behind nothing
    unbounded) and the day's daily deal (once a day, asked by every new game); winnable deals (seconds
    each, as many as players ask); animations (solved, drawn and encoded).

    ``start`` starts the two that ordinary play meets; the others start on first use. About 26 MB each.
    ``setup`` runs in each worker as it starts (a module-level function: it is sent by name)."""

    def __init__(self, setup: Callable[[], None] | None = None) -> None:
        self.hints = WorkerPool("hints", setup)
        self.verdicts = WorkerPool("verdicts", setup)
        self.deals = WorkerPool("deals", setup)
        self.animations = WorkerPool("animations", setup)

    def start(self) -> None:
        self.hints.start()
        self.verdicts.start()

    def close(self) -> None:
        for pool in (self.hints, self.verdicts, self.deals, self.animations):
            pool.close()
