"""The daily deals of this deployment: each day's deal worked out once (found by difficulty and rated, in
the solver's worker: up to a second or two), kept, and tomorrow's worked out in the background in the last
hour of a UTC day, so that no player waits for it; and the players' attempts at them, as the Discord layer
reads them (by day keys, ``pyramide.daily.day_key``, and ids)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from .solving import SolverBusy, SolverService
from .stats import day_streaks
from .storage import Storage
from .stored import DailyAttempt, DailyRow
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


class DailyAttempts:
    """The players' counted attempts at the daily, over ``storage``."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def attempt(self, day: str, player_id: int) -> DailyAttempt | None:
        """``player_id``'s attempt at the daily of ``day`` (its status ``None`` while it is played)."""
        return await self.storage.daily_attempt(day, player_id)

    async def rows(self, day: str, guild_id: int) -> list[DailyRow]:
        """The day's finished attempts in a server, best first."""
        return await self.storage.daily_rows(day, guild_id)

    async def totals(self, day: str) -> tuple[int, int]:
        """How many played the day's daily everywhere, and how many of them won it."""
        return await self.storage.daily_totals(day)

    async def rank(self, day: str, player_id: int) -> int | None:
        """``player_id``'s rank among everyone who finished the day's daily; ``None`` before they finish."""
        return await self.storage.daily_rank(day, player_id)

    async def month(
        self, player_id: int, first: str, last: str, today: date
    ) -> tuple[list[DailyAttempt], tuple[int, int]]:
        """The player's attempts from day ``first`` to ``last``, and their current and best run of days as of
        ``today``."""
        attempts = await self.storage.daily_month(player_id, first, last)
        return attempts, day_streaks(await self.storage.daily_days(player_id), today)
