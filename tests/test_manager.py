"""The game manager on a real SQLite file: stored before answered, idle engines dropped and rebuilt."""

import asyncio
import dataclasses

import pytest

from pyramide import STOCK, Game
from pyramide_service.changes import Change, Changes, GameChanged
from pyramide_service.manager import BrokenGame, GameManager, NoGame
from pyramide_service.solving import SolverService
from pyramide_service.storage import BROKEN, ENDED, WON, GameRecord
from tests.support.backends import raw, twin
from tests.support.deals import clear_kings_and_pairs, kings_and_pairs
from tests.support.manager_turns import deal, play

pytestmark = pytest.mark.backends("sqlite", "postgresql")


async def test_actions_are_stored_and_an_idle_engine_is_rebuilt_identically(storage):
    clock = [1000.0]
    manager = GameManager(storage, clock=lambda: clock[0], monotonic=lambda: clock[0], idle_seconds=60)
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    for action in (lambda g: g.tap(STOCK), lambda g: g.tap(26), lambda g: g.undo(), lambda g: g.tap(21)):
        await play(manager, 5, action)
    state = live.game.state()
    clock[0] += 61
    assert manager.evict_idle() == 1 and manager.live_count == 0
    again = await manager.live(5)
    assert again is not live and again.game.state() == state
    assert again.record.started_at == 1000.0


async def test_a_second_manager_on_the_same_file_sees_every_answered_move(storage):
    manager = GameManager(storage)
    await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    await play(manager, 5, lambda g: g.tap(STOCK))
    other = twin(storage)
    await other.open()
    try:
        rebuilt = await GameManager(other).live(5)
        assert rebuilt.game.moves == 1 and len(rebuilt.game.waste) == 2
    finally:
        await other.close()


async def test_an_engine_another_process_moved_past_is_reloaded_once_told(storage):
    """Told that another process changed the channel's game (its NOTIFY, heard through ``Changes``), the manager
    plays the next move on the stored game: at once when the channel is idle, and after the turn holding it
    when one is (a snapshot meanwhile reads storage)."""
    manager = GameManager(storage)
    await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    other = twin(storage)
    await other.open()
    try:
        elsewhere = GameManager(other)
        await play(elsewhere, 5, lambda g: g.tap(STOCK))
        manager.outdated(5)  # idle: dropped now
        await play(manager, 5, lambda g: g.tap(STOCK))  # (without it: StaleBoard, the write's conflict)
        elsewhere.outdated(5)
        await play(elsewhere, 5, lambda g: g.tap(STOCK))
        async with manager.turn(5) as turn:  # busy: the engine this turn holds is behind
            manager.outdated(5)
            assert turn.live is not None and turn.live.game.moves == 2
            snapshot = await manager.snapshot(5)
            assert snapshot is not None and snapshot.game.moves == 3
        await play(manager, 5, lambda g: g.tap(STOCK))
    finally:
        await other.close()
    record = await storage.live_game(5)
    assert record is not None and record.actions == (STOCK,) * 4


async def test_a_move_without_a_game_is_refused_and_a_new_deal_ends_the_game_in_play(storage):
    """(A press on an older board or another game's board is answered by the cogs before any move:
    tests/test_bot.py and tests/test_places.py press old boards.)"""
    manager = GameManager(storage)
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    await play(manager, 5, lambda g: g.tap(STOCK))
    with pytest.raises(NoGame):
        await play(manager, 6, lambda g: g.tap(STOCK))
    again = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAA"))
    assert live.game.moves == 1 and again.record.id != live.record.id
    first = await storage.game(live.record.id)
    assert first is not None and first.status == ENDED and first.actions == (STOCK,)


async def test_concurrent_acts_in_one_channel_never_interleave(storage):
    manager = GameManager(storage)
    await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    await asyncio.gather(*(play(manager, 5, lambda g: g.tap(STOCK)) for _ in range(30)))
    live = await manager.live(5)
    assert live.game.moves == 30
    record = await storage.game(live.record.id)
    assert record.actions == (STOCK,) * 30 and record.moves == 30


def hearing(manager: GameManager) -> asyncio.Queue[tuple[int, bool, str]]:
    """What the one subscription over ``manager`` tells of its games: (game, finished, status) each."""
    heard: asyncio.Queue[tuple[int, bool, str]] = asyncio.Queue()

    async def hear(change: Change) -> None:
        if isinstance(change, GameChanged):
            heard.put_nowait((change.game_id, change.finished, change.status))

    Changes(manager.storage, manager).subscribe(hear)
    return heard


@pytest.mark.parametrize("action", ['"nowhere"', "{not json"], ids=["not a move", "unreadable"])
async def test_a_corrupt_action_log_is_reported_not_crashed(storage, action):
    manager = GameManager(storage)
    heard = hearing(manager)
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    await raw(storage, "INSERT INTO actions (game_id, seq, action, at) VALUES (?, 0, ?, 0)", live.record.id, action)
    manager.forget(5)
    assert await manager.snapshot(5) is None  # a reader that must not wait finds no game to draw
    with pytest.raises(BrokenGame):
        await manager.live(5)
    assert await storage.live_game(5) is None and (await storage.game(live.record.id)).status == "broken"
    assert await heard.get() == (live.record.id, True, BROKEN)  # a page showing it stops showing it in play


async def test_a_game_won_by_its_last_stored_move_hands_its_ending_to_the_next_turn_once(storage):
    """The winning move was stored, then the process stopped before the game was closed: the next load
    closes it (its achievements decided then), and the next turn of its channel is handed the closed game
    with what it unlocked, to show its ending; a load outside a turn leaves it to that turn; once only."""
    manager = GameManager(storage)
    await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=kings_and_pairs())
    plan = kings_and_pairs()
    clear_kings_and_pairs(plan)
    for action in plan.actions[:-1]:
        await play(manager, 5, lambda g, a=action: g.tap(a))
    record = (await storage.live_game(5)).id
    totals = dataclasses.replace(await storage.live_game(5), score=plan.score, moves=plan.moves, removed=plan.removed)
    await storage.append_action(record, len(plan.actions) - 1, plan.actions[-1], 2000.0, totals)  # then it stopped
    restarted = GameManager(storage)
    heard = hearing(restarted)
    assert await restarted.live(5) is None  # closed on the way in (a load outside a turn)
    assert await heard.get() == (record, True, WON)  # and told, as every close
    async with restarted.turn(5) as turn:
        assert turn.live is None and turn.closed is not None
        assert turn.closed.record.id == record and turn.closed.record.status == WON
        assert "first_win" in (turn.closed.unlocked or ())
    async with restarted.turn(5) as turn:
        assert turn.closed is None  # shown once
    assert [u.key for u in await storage.unlocked(9)].count("first_win") == 1


async def test_a_record_handed_out_holds_still_and_every_change_is_a_new_one(storage):
    """A board drawn from a snapshot keeps the position it was taken at while play goes on: what storage and
    the manager hand out cannot be written, and a storage operation answers with a new record."""
    manager = GameManager(storage, clock=lambda: 1000.0)
    await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    seen, stored = await manager.snapshot(5), await storage.live_game(5)
    await play(manager, 5, lambda g: g.tap(STOCK))
    assert (seen.record.moves, seen.record.actions, seen.game.moves) == (0, (), 0)
    assert (stored.moves, stored.actions) == (0, ())
    now = await manager.live(5)
    assert (now.record.moves, now.record.actions, now.record.started_at) == (1, (STOCK,), 1000.0)
    for record, field in ((stored, "status"), (now.record, "message_id"), (seen.record, "hints")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, field, None)
    asked = GameRecord(0, 1, 6, 9, "PY1-N-AAAAAAS", "N", daily="2026-11-30", counted=True, created_at=1.0)
    created = await storage.create_game(asked)
    assert asked.id == 0 and created.id > 0 and created == dataclasses.replace(asked, id=created.id)
    closed = dataclasses.replace(created, status=ENDED, finished_at=2.0, seconds=1.0)
    finish = await storage.finish_game(closed, owe=True)
    assert finish.record == closed and finish.owes_verdict and finish.unlocked == ()
    assert (await storage.game(created.id)).status == ENDED and await storage.owed_verdict(created.id) is not None


async def test_a_hint_counted_while_a_move_is_stored_is_kept(storage, workers, monkeypatch):
    """A hint is worked out outside the channel's lock, so its count may land while a move is being stored:
    the game afterwards holds both (the board's count of hints, a "no hints" win refused)."""
    manager = GameManager(storage, solver=SolverService(workers))
    live = await deal(manager, guild_id=1, channel_id=5, owner_id=9, game=Game.from_code("PY1-N-AAAAAAS"))
    sent, answer = asyncio.Event(), asyncio.Event()
    append = storage.append_action

    async def slow(*args, **kwargs):
        sent.set()
        await answer.wait()
        return await append(*args, **kwargs)

    monkeypatch.setattr(storage, "append_action", slow)
    move = asyncio.create_task(play(manager, 5, lambda g: g.tap(STOCK)))
    await sent.wait()
    await manager.hint(live, live.game.copy(), request=7001)
    answer.set()
    await move
    now = await manager.live(5)
    assert (now.record.hints, now.record.moves) == (1, 1) == ((await storage.game(now.record.id)).hints, 1)
