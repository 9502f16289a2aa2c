"""The solver service through the real bot: each kind of solver work has a worker and a cap of its own,
so winnable deals asked somewhere never hold up another game's turn, a verdict is waited for inside a
channel's lock only for a bounded time, and work beyond its cap is answered "busy, try again"."""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import time

import pytest

from pyramide import Rules
from pyramide.solver import has_compiled_core
from pyramide.solver.native import switch_off
from pyramide_service.workers import Workers, die_with_parent
from tests.support.deals import stuck_game
from tests.support.harness import OTHER_CHANNEL_ID, start
from tests.support.holding import hold_until

UNKNOWN = "Whether this deal could be won is not known."
NOT_WINNABLE = "This deal could not be won: at most"


def says(sent: list, text: str) -> bool:
    return any(text in s.content for s in sent)


async def end_stuck_game(harness, channel_id: int | None = None) -> list:
    """Deal the stuck deal, draw once, end it: what the end sent (its end line asks for the verdict)."""
    options = {} if channel_id is None else {"channel_id": channel_id}
    sent = await harness.command("new", code=stuck_game().code, **options)
    assert sent[0].png is not None, [s.content for s in sent]
    await harness.command("draw", **options)
    return await harness.command("end", **options)


async def test_winnable_deals_waiting_elsewhere_neither_hold_up_a_verdict_nor_queue_without_bound(harness, tmp_path):
    solver = harness.bot.solver
    release = tmp_path / "release"
    held = asyncio.ensure_future(solver.workers.deals.run(hold_until, str(release)))  # its worker busy
    waiting = [asyncio.ensure_future(solver.winnable(n, Rules())) for n in range(solver.limits["winnable"])]
    try:
        await asyncio.sleep(0)
        assert solver.waiting("winnable") == solver.limits["winnable"]
        sent = await harness.command("new", winnable=True, channel_id=OTHER_CHANNEL_ID)
        assert "busy" in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64  # said privately
        assert not any(s.png for s in sent)  # and no deal was dealt
        sent = await end_stuck_game(harness)  # another channel's game ends meanwhile: its verdict is decided
        assert says(sent, NOT_WINNABLE), [s.content for s in sent]
    finally:
        release.touch()
        assert await asyncio.wait_for(held, 30)
        await asyncio.wait_for(asyncio.gather(*waiting), 30)
    assert solver.waiting("winnable") == 0


async def test_a_verdict_not_given_in_time_is_unknown_and_the_channel_goes_on(harness, tmp_path):
    solver = harness.bot.solver
    await start(harness, "PY1-N-AAAAAAS")  # (today's daily deal is worked out once, before the worker is held)
    release = tmp_path / "release"
    # Held for 8 s: the harness returns once every task of the bot is done, the verdict's included.
    held = asyncio.ensure_future(solver.workers.verdicts.run(hold_until, str(release), 8.0))
    let_go: list[float] = []
    held.add_done_callback(lambda _: let_go.append(time.perf_counter()))
    try:
        await asyncio.sleep(0)
        sent = await end_stuck_game(harness, OTHER_CHANNEL_ID)  # (returns once the bot's tasks are all done)
        answer = next(s for s in sent if UNKNOWN in s.content)
        assert let_go and answer.at < let_go[0]  # answered while the verdicts' worker was still busy
        sent = await harness.command("new", channel_id=OTHER_CHANNEL_ID)  # the channel is free again
        assert sent[0].png is not None, [s.content for s in sent]
    finally:
        release.touch()
        await asyncio.wait_for(held, 30)


async def test_a_shutdown_with_a_verdict_in_flight_leaves_no_task_behind_nor_unread(harness, tmp_path):
    """The bot stops while an ended game's verdict is still being worked out (its player already read "not
    known" after the bounded wait): the bot's close ends it, so no task of the bot is left running, and
    nothing is reported as a task exception never retrieved."""
    solver = harness.bot.solver
    await start(harness, "PY1-N-AAAAAAS")  # (today's daily deal is worked out once, before the worker is held)
    release = tmp_path / "release"
    held = asyncio.ensure_future(solver.workers.verdicts.run(hold_until, str(release), 20.0))
    loop = asyncio.get_running_loop()
    reported: list[dict] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: reported.append(context))
    try:
        await harness.command("new", code=stuck_game().code, channel_id=OTHER_CHANNEL_ID)
        await harness.command("draw", channel_id=OTHER_CHANNEL_ID)
        known, before = asyncio.all_tasks(), len(harness.hub.sent)
        ending = asyncio.ensure_future(harness.command("end", channel_id=OTHER_CHANNEL_ID))
        for _ in range(200):  # answered "not known" after the bounded wait, the verdict still asked
            if says(harness.hub.sent[before:], UNKNOWN):
                break
            await asyncio.sleep(0.05)
        assert says(harness.hub.sent[before:], UNKNOWN) and not release.exists()
        await harness.bot.close()
        left = [task for task in asyncio.all_tasks() - known - {asyncio.current_task(), ending} if not task.done()]
        assert left == [], [task.get_name() for task in left]
        await asyncio.wait_for(ending, 5)
        gc.collect()
        await asyncio.sleep(0)
        assert reported == [], reported
    finally:
        loop.set_exception_handler(previous)
        release.touch()
        await asyncio.wait_for(held, 30)


async def test_verdicts_beyond_their_cap_are_not_waited_for(harness):
    harness.bot.solver.limits["verdict"] = 0
    sent = await end_stuck_game(harness)
    assert says(sent, UNKNOWN), [s.content for s in sent]


async def test_animations_beyond_their_cap_are_answered_busy_try_again(harness):
    sent = await end_stuck_game(harness)
    harness.bot.solver.limits["animation"] = 0
    replay = next(s for s in sent if s.png).button("Replay my game")
    sent = await harness.press(replay)
    assert "busy" in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64
    assert not any(name.endswith(".gif") for s in sent for name, _ in s.files)
    harness.bot.solver.limits["animation"] = 3
    sent = await harness.press(replay)  # trying again, once there is room, works
    assert any(name.endswith(".gif") for s in sent for name, _ in s.files)


def test_a_worker_whose_parent_died_while_it_started_ends_at_once():
    """The parent may die between the worker's fork and its death-signal request: the worker's first step
    sees that its parent is not the process that started it, and ends instead of waiting for work."""
    context = multiprocessing.get_context("spawn")
    orphan = context.Process(target=die_with_parent, args=(os.getpid() + 1_000_000,))  # not its parent
    child = context.Process(target=die_with_parent, args=(os.getpid(),))
    for process in (orphan, child):
        process.start()
        process.join(30)
    assert orphan.exitcode == 1 and child.exitcode == 0


@pytest.mark.skipif(not has_compiled_core(), reason="compiled solver core not built")
async def test_workers_solve_as_they_were_told_at_start_never_as_the_environment_says(monkeypatch):
    """The pure Python solver is a setting read once (``pyramide_bot.settings``); a worker is told it
    when it starts, and a variable left in the environment changes nothing."""
    monkeypatch.setenv("PYRAMIDE_PURE_SOLVER", "1")
    told, untold = Workers(setup=switch_off), Workers()
    try:
        assert await told.hints.run(has_compiled_core) is False
        assert await untold.hints.run(has_compiled_core) is True
    finally:
        told.close()
        untold.close()
