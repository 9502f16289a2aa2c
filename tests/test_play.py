"""The application's ``play`` (pyramide_service.play) as the bot uses it: each fact of a press worked out
once (the real storage and solver service, their calls counted), the perfect loss a finished game owes paid
after a restart, and a failing listener that never fails the press."""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

import pytest

from pyramide import Game
from pyramide.achievements import PERFECT_LOSS
from pyramide_service.changes import Changes
from pyramide_service.manager import GameManager
from pyramide_service.outcomes import Played
from pyramide_service.play import Plays, Press
from pyramide_service.server_settings import ServerSettings
from pyramide_service.solving import SolverService
from tests.support.backends import raw, twin
from tests.support.deals import kings_and_pairs, one_king_deal
from tests.support.harness import CHANNEL_ID, OWNER, said, start
from tests.support.manager_turns import deal

pytestmark = pytest.mark.backends("sqlite", "postgresql")

SOLVER_CALLS = ("known_verdict", "verdict", "settled_verdict", "known_rating", "hint")
STORAGE_CALLS = (
    "live_game", "game", "append_action", "finish_game", "set_message", "award", "unlocked",
    "owed_verdict", "pay_verdict", "settings", "add_hint", "race_of_game", "credit_history",
)  # fmt: skip


def counting(target: Any, names: tuple[str, ...], calls: Counter[str]) -> None:
    """Count the calls of ``target``'s methods ``names``, each still the real one."""
    for name in names:
        real = getattr(target, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls[_name] += 1
            return _real(*args, **kwargs)

        setattr(target, name, counted)


def count_press(harness: Any) -> Counter[str]:
    calls: Counter[str] = Counter()
    counting(harness.storage, STORAGE_CALLS, calls)
    counting(harness.bot.solver, SOLVER_CALLS, calls)
    return calls


async def test_a_winning_press_works_out_each_fact_once(harness):
    game = kings_and_pairs()
    await start(harness, game.code)
    presses = []  # row by row from the bottom: each king alone, the other cards two by two (kings_and_pairs)
    for row in range(6, -1, -1):
        presses += [str(game.pyramid[spot]) for spot in range(row * (row + 1) // 2, (row + 1) * (row + 2) // 2)]
    for name in presses[:-1]:
        await harness.press(harness.board_button(name))
    calls = count_press(harness)
    sent = await harness.press(harness.board_button(presses[-1]))
    assert "You won!" in said(sent) and "Achievement unlocked: First win" in said(sent)
    # One move stored, one close (which decided the result, the race, the achievements), the deal's tier
    # looked up once (at the close, where the achievements need it); nothing asked again to draw or answer.
    assert calls["append_action"] == 1 and calls["finish_game"] == 1
    assert calls["known_rating"] == 1
    for name in ("award", "unlocked", "game", "live_game", "verdict", "known_verdict", "pay_verdict", "settings"):
        assert calls[name] == 0, (name, calls)


async def test_an_end_of_a_lost_game_asks_its_verdict_once_and_pays_its_perfect_loss_once(harness):
    code = one_king_deal().code
    await start(harness, code)
    await harness.press(harness.board_button("K♠"))
    calls = count_press(harness)
    sent = await harness.command("end")
    assert "Achievement unlocked: Perfect loss" in said(sent)
    assert calls["finish_game"] == 1 and calls["pay_verdict"] == 1  # the award is inside the pay, once
    assert calls["known_verdict"] == 1 and calls["verdict"] == 1  # not known yet: asked once, then drawn from it
    assert calls["award"] == 0 and calls["unlocked"] == 0 and calls["known_rating"] == 1
    assert await raw(harness.storage, "SELECT game_id FROM verdicts_owed") == []


class Killed(BaseException):
    """The process stopping while the finishing press waits for the verdict (as ``kill -9`` would)."""


async def test_a_perfect_loss_owed_by_a_press_killed_during_its_verdict_is_paid_after_a_restart(storage, workers):
    manager = GameManager(storage, solver=SolverService(workers))
    table = Plays(manager, ServerSettings(storage), manager.solver, Changes(storage, manager))
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=OWNER, game=Game.from_code(one_king_deal().code))
    press = Press(channel_id=5, player_id=OWNER, lang="en", request=4001)
    async with table.play(press, lambda game: game.tap(live.game.free_spots()[0])) as outcome:
        assert isinstance(outcome, Played) and outcome.ending is None

    async def killed() -> None:  # the verdict is not known yet: the press would wait for it here
        raise Killed()

    with pytest.raises(Killed):
        async with table.end(Press(channel_id=5, player_id=OWNER, lang="en", request=4002), slow=killed):
            pass
    await storage.close()  # the process is gone: nothing of it runs on

    reopened = twin(storage)
    await reopened.open()
    try:
        assert [u.key for u in await reopened.unlocked(OWNER)] == []
        assert [o.game_id for o in await reopened.owed_verdicts()] == [live.record.id]
        restarted = GameManager(reopened, solver=SolverService(workers))
        assert await restarted.owed.resume() == 1
        await restarted.owed.wait()
        assert [(u.key, u.game_id) for u in await reopened.unlocked(OWNER)] == [(PERFECT_LOSS, live.record.id)]
        assert await reopened.owed_verdicts() == []
        assert await restarted.owed.resume() == 0  # paid once: nothing left to pay, nothing awarded twice
        await restarted.close()
    finally:
        await reopened.close()
        await storage.open()  # (the fixture closes what it opened)


async def test_a_listener_that_fails_is_logged_and_the_press_is_answered(harness, caplog):
    await start(harness, kings_and_pairs().code)
    told: list[Any] = []

    async def failing(change: Any) -> None:
        raise RuntimeError("a listener's bug")

    async def noting(change: Any) -> None:
        told.append(change)

    changes = harness.bot.changes
    unsubscribe = [changes.subscribe(failing), changes.subscribe(noting, CHANNEL_ID)]
    caplog.set_level(logging.ERROR)
    sent = await harness.press(harness.board_button("K♠"))
    for off in unsubscribe:
        off()
    assert any(s.png is not None for s in sent)  # the board was redrawn all the same
    assert [r for r in caplog.records if "listener" in r.getMessage() and r.exc_info is not None]
    record = await harness.storage.live_game(CHANNEL_ID)
    assert [(c.game_id, c.channel_id, c.finished) for c in told] == [(record.id, CHANNEL_ID, False)]
