"""Background tasks are kept, watched and dropped (cogs.tasks), and the daily deal worked out ahead logs
whatever stops it (pyramide_service.dailies)."""

import asyncio
import logging
from datetime import UTC, date, datetime

from pyramide_service.dailies import DailyDeals
from pyramide_service.tasks import Supervised


async def test_a_failed_task_is_logged_with_its_traceback_and_dropped(caplog):
    tasks = Supervised("test")

    async def fails() -> None:
        await asyncio.sleep(0)
        raise ValueError("broken on purpose")

    async def works() -> int:
        return 7

    failing, working = tasks.spawn(fails(), "fails"), tasks.spawn(works(), "works")
    assert len(tasks) == 2
    await tasks.wait()
    assert len(tasks) == 0  # both ended: nothing kept
    assert working.result() == 7
    logged = [r for r in caplog.records if r.levelno == logging.ERROR and "test: fails" in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None and logged[0].exc_info[1] is failing.exception()
    assert not any("test: works" in r.getMessage() for r in caplog.records)


async def test_close_gives_the_tasks_their_grace_then_cancels_the_rest():
    tasks = Supervised("test")
    quick = tasks.spawn(asyncio.sleep(0.01), "quick")
    slow = tasks.spawn(asyncio.sleep(60), "slow")
    await tasks.close(grace=0.5)
    assert quick.done() and not quick.cancelled()  # it ended in its grace
    assert slow.cancelled() and len(tasks) == 0


class _Solver:
    """A solver service whose daily search breaks, or is busy."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.asked = 0

    async def daily(self, day: date, secret: bytes | None):
        self.asked += 1
        raise self.error


async def test_a_daily_deal_that_fails_to_be_worked_out_ahead_is_logged_and_asked_again(caplog):
    solver = _Solver(RuntimeError("worker died"))
    eleven_pm = datetime(2026, 11, 30, 23, 0, tzinfo=UTC).timestamp()
    dailies = DailyDeals(solver, lambda: eleven_pm)  # type: ignore[arg-type]
    dailies.prepare_tomorrow()  # in the background, watched
    await dailies.close(grace=5)
    logged = [r for r in caplog.records if "2026-12-01" in r.getMessage() and r.levelno == logging.ERROR]
    assert len(logged) == 1 and logged[0].exc_info is not None  # the traceback, not only SolverBusy's warning
    assert solver.asked == 1 and date(2026, 12, 1) not in dailies.codes  # a player's ask tries again


async def test_removing_a_cog_ends_its_loops_before_the_storage_closes(harness):
    """A cog's loops (the 5-minute housekeeping, the events' minute check) have ended when the cog is
    removed, not merely been asked to: a storage call they were making has given its connection back
    before the owner closes the storage (on PostgreSQL a close otherwise waited 10 s for it)."""
    loops = [harness.bot.get_cog("Admin").evict, harness.bot.get_cog("Events").due]
    running = [loop.get_task() for loop in loops]
    assert all(task is not None and not task.done() for task in running)
    for name in ("Admin", "Events"):
        await harness.bot.remove_cog(name)
    assert all(task.done() for task in running)
