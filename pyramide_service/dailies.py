"""The daily deals of this deployment: each day's deal worked out once (found by difficulty and rated, in
the solver's worker: up to a second or two), kept, and tomorrow's worked out in the background in the last
hour of a UTC day, so that no player waits for it."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from .solving import SolverBusy, SolverService
from .storage import Storage
from .tasks import Supervised

log = logging.getLogger(__name__)


class DailyDeals:
    """The days' deal codes, the secret they are drawn with (chosen once at start: ``DAILY_SECRET``, or
    one kept in the database) and the background task that works out tomorrow's."""

    def __init__(self, solver: SolverService, clock: Callable[[], float], configured: str | None = None) -> None:
        self.solver = solver
        self.clock = clock
        self._configured = configured
        self.secret: bytes | None = None
        self.codes: dict[date, str] = {}
        self._tasks = Supervised("daily deals")

    async def choose_secret(self, storage: Storage) -> None:
        """The configured secret, else the one the database keeps (the first process to ask stores a fresh
        one): every process of a deployment deals the same daily."""
        chosen = self._configured or await storage.daily_secret(secrets.token_hex(32))
        self.secret = chosen.encode()

    async def code(self, day: date) -> str:
        """``day``'s deal code, worked out now if it was not ready."""
        code = self.codes.get(day)
        if code is None:
            code = self.codes[day] = (await self.solver.daily(day, self.secret)).code
        return code

    async def prepare(self, day: date) -> None:
        """Work out ``day``'s deal ahead of the players; a failure is logged and the deal worked out when asked."""
        if day in self.codes:
            return
        try:
            await self.code(day)
        except SolverBusy:
            log.warning("the daily deal of %s could not be worked out in advance; it will be when asked", day)
        except Exception:  # a broken worker, a bug: logged with its traceback; a player's ask tries again
            log.exception("the daily deal of %s failed to be worked out in advance; it will be when asked", day)

    def prepare_tomorrow(self) -> None:
        """In the last hour of a UTC day, tomorrow's daily is worked out in the background."""
        now = datetime.fromtimestamp(self.clock(), UTC)
        if now.hour == 23:
            tomorrow = now.date() + timedelta(days=1)
            self._tasks.spawn(self.prepare(tomorrow), f"prepare {tomorrow}")

    async def close(self, grace: float = 0.0) -> None:
        """Shutdown: tomorrow's deal, if being worked out, gets ``grace`` seconds, then is cancelled."""
        await self._tasks.close(grace)
