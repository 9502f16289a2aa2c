"""A database outage as the log tells it: one warning when it ends, with how long it lasted.

The first call that finds the database gone or stalled starts an outage (an info line); the first call
answered after it ends it with one warning (its duration, how many calls failed). asyncpg's own pool
warnings during an outage ("Failed to restore the pool connection floor; retrying", with their
tracebacks) are counted into it instead of printed: a filter on asyncpg's logger (``logging``'s public
API), added when the storage opens and removed when it closes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)
ASYNCPG_POOL_LOGGER = "asyncpg.pool"


class Outage:
    """The outage of one database (``where``, its URL without a password), if one is under way."""

    def __init__(self, where: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.where = where
        self.clock = clock
        self.since: float | None = None
        self.failures = 0
        self.folded = 0  # asyncpg's pool warnings counted into it
        self.first: str = ""
        self._logger: logging.Logger | None = None

    @property
    def under_way(self) -> bool:
        return self.since is not None

    def failed(self, reason: str, since: float | None = None) -> None:
        """A call (begun at ``since`` on ``clock``) found the database unreachable or stalled (``reason``)."""
        self._start(reason, since)
        self.failures += 1

    def _start(self, reason: str, since: float | None = None) -> None:
        if self.since is None:
            self.since, self.failures, self.folded, self.first = since or self.clock(), 0, 0, reason
            log.info("the database %s stopped answering (%s)", self.where, reason)

    def answered(self) -> None:
        """A call was answered: an outage under way is over (its one warning)."""
        if self.since is None:
            return
        lasted = self.clock() - self.since
        log.warning(
            "the database %s did not answer for %.1f s (%s; %d calls failed, %d pool warnings folded in)",
            self.where,
            lasted,
            self.first,
            self.failures,
            self.folded,
        )
        self.since = None

    def filter(self, record: logging.LogRecord) -> bool:
        """asyncpg's pool warnings (a connection it could not make) are a failure of this outage."""
        if record.levelno > logging.WARNING:
            return True
        self._start("the pool could not connect")
        self.folded += 1
        return False

    def watch_asyncpg(self) -> None:
        if self._logger is None:
            self._logger = logging.getLogger(ASYNCPG_POOL_LOGGER)
            self._logger.addFilter(self.filter)

    def unwatch_asyncpg(self) -> None:
        if self._logger is not None:
            self._logger.removeFilter(self.filter)
            self._logger = None
