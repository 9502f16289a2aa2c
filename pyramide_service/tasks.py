"""Background tasks kept and watched: whoever starts one keeps it in a ``Supervised`` set, which logs a
failure with its traceback, drops a task once it is done, and at shutdown waits for or cancels each one.
(A task nobody holds may be collected mid-flight, and its failure only ever reads "Task exception was
never retrieved".)"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class Supervised:
    """The background tasks of one owner (``what`` names it in the log)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """Run ``work`` in the background, kept until it ends; a failure is logged with its traceback."""
        task = asyncio.get_running_loop().create_task(work, name=f"{self.what}: {name}")
        self._tasks.add(task)
        task.add_done_callback(self._ended)
        return task

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("background task %s failed", task.get_name(), exc_info=error)

    def __len__(self) -> int:
        return len(self._tasks)

    async def wait(self) -> None:
        """Until every task kept now (and any they start meanwhile) has ended; failures are logged, not raised."""
        while self._tasks:  # a task kept until its done callbacks (its keeper's, its spawner's) have run
            running = [task for task in self._tasks if not task.done()]
            if running:
                await asyncio.gather(*running, return_exceptions=True)
            else:
                await asyncio.sleep(0)

    async def close(self, grace: float = 0.0) -> None:
        """Shutdown: the tasks get ``grace`` seconds to end, then each one still running is cancelled and
        waited for."""
        if not self._tasks:
            return
        if grace > 0:
            await asyncio.wait(set(self._tasks), timeout=grace)
        running = set(self._tasks)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
