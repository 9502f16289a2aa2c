"""Achievements in storage, on both backends: unlocked in the transaction that closes the game and
announced once (also by two processes), a history from before the upgrade credited in chunks, forget-me
and reset, rarity, and the migration from the schema before them."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from pyramide_service.credits import Credits, daily_tier_of
from pyramide_service.storage import WON, Finish, GameRecord, Storage, from_url
from pyramide_service.storage.codec import pack_log
from pyramide_service.storage.schema import ACHIEVEMENTS_VERSION
from tests.support.backends import raw, schema_before, twin

pytestmark = pytest.mark.backends("sqlite", "postgresql")

GUILD, OTHER_GUILD, PLAYER, FRIEND = 111, 222, 7001, 7002
CODE = "PY1-N-AAAAAAS"


async def played(
    storage: Storage,
    player: int = PLAYER,
    *,
    status: str = WON,
    seconds: float = 200.0,
    actions: tuple[int | str, ...] = (),
    guild: int = GUILD,
    channel: int | None = None,
    rules: str = "N",
    at: float = 1000.0,
) -> Finish:
    """A game stored and finished as the manager does it; what its finish answered (with ``unlocked``)."""
    record = await storage.create_game(
        GameRecord(0, guild, channel or player * 10 + 1, player, CODE, rules, created_at=at, started_at=at)
    )
    finished = replace(record, status=status, finished_at=at + seconds, seconds=seconds, actions=actions, score=280)
    return await storage.finish_game(finished)


async def keys(storage: Storage, player: int = PLAYER) -> set[str]:
    return {u.key for u in await storage.unlocked(player)}


async def test_a_first_win_is_unlocked_by_its_finish_and_announced_once(storage):
    first = await played(storage, status="stuck")
    assert first.unlocked == ()
    won = await played(storage, seconds=170.0, actions=(27, "undo", 27))
    assert set(won.unlocked or ()) == {"first_win", "no_hints", "under_3_minutes"}  # an undo: not "no_undo"
    again = await played(storage, seconds=500.0)
    assert set(again.unlocked or ()) == {"no_undo", "clean_win"}
    stored = {u.key: u for u in await storage.unlocked(PLAYER)}
    assert stored["first_win"].game_id == won.record.id and stored["first_win"].unlocked_at == won.record.finished_at
    # Finishing the same game a second time (a retry, another process) announces nothing.
    assert (await storage.finish_game(again.record)).unlocked == ()


async def test_a_press_delivered_to_two_processes_announces_once(storage):
    other = twin(storage)
    await other.open()
    try:
        record = await storage.create_game(GameRecord(0, GUILD, 5, PLAYER, CODE, "N", created_at=1.0, started_at=1.0))
        finished = replace(record, status=WON, finished_at=100.0, seconds=99.0, score=280)
        results = await asyncio.gather(storage.finish_game(finished), other.finish_game(finished))
        announced = [r.unlocked for r in results if r.unlocked]
        assert len(announced) == 1 and "first_win" in announced[0]
        assert "first_win" in await keys(storage)
    finally:
        await other.close()


async def test_a_players_two_games_finishing_at_once_are_both_credited(storage):
    other = twin(storage)
    await other.open()
    try:
        games = [
            await storage.create_game(GameRecord(0, GUILD, c, PLAYER, CODE, "N", created_at=1.0, started_at=1.0))
            for c in (5, 6)
        ]
        results = await asyncio.gather(
            *(
                store.finish_game(replace(g, status=WON, finished_at=50.0, seconds=49.0, score=280))
                for store, g in zip((storage, other), games, strict=True)
            )
        )
        announced = [k for r in results for k in (r.unlocked or ())]
        assert announced.count("first_win") == 1
        found = await raw(storage, "SELECT state FROM achievement_progress WHERE player_id = ?", PLAYER)
        assert '"wins":2' in found[0][0]
    finally:
        await other.close()


async def forget_progress(storage: Storage) -> None:
    """The database as it was before the achievements: games stored, nothing credited."""
    await raw(storage, "DELETE FROM achievements")
    await raw(storage, "DELETE FROM achievement_progress")


async def test_a_history_from_before_the_upgrade_is_credited_in_chunks(storage):
    for n in range(12):
        await played(storage, seconds=400.0 + n, at=1000.0 * n)
    await played(storage, status="stuck", at=20_000.0)
    await forget_progress(storage)
    # A game finished before the history is credited unlocks nothing now: the history comes first.
    pending = await played(storage, at=30_000.0)
    assert pending.unlocked is None
    assert not await storage.history_credited(PLAYER)
    chunks = 1
    while not await storage.credit_history(PLAYER, daily_tier_of, limit=5):
        chunks += 1
    assert chunks == 3  # 14 games, 5 at a time
    found = {u.key: u for u in await storage.unlocked(PLAYER)}
    assert {"first_win", "wins_10", "no_undo"} <= set(found)
    assert found["wins_10"].unlocked_at == 9000.0 + 409.0  # the tenth win's own finish, not today
    assert await storage.history_credited(PLAYER)
    # Then each finish counts at once.
    later = await played(storage, at=40_000.0)
    assert later.unlocked == ()
    state = (await raw(storage, "SELECT state FROM achievement_progress WHERE player_id = ?", PLAYER))[0][0]
    assert '"wins":14' in state and '"played":15' in state


async def test_a_game_in_play_while_its_history_is_credited_is_counted_once(storage):
    for n in range(6):
        await played(storage, at=100.0 * n)
    await forget_progress(storage)
    long_game = await storage.create_game(GameRecord(0, GUILD, 99, PLAYER, CODE, "N", created_at=1.0, started_at=1.0))
    for n in range(4):
        await played(storage, at=1000.0 + n)  # ids above the game still in play
    while not await storage.credit_history(PLAYER, daily_tier_of, limit=3):
        pass
    closed = await storage.finish_game(replace(long_game, status=WON, finished_at=5000.0, seconds=60.0, score=280))
    assert closed.unlocked is not None and "wins_10" not in (closed.unlocked or ())
    state = (await raw(storage, "SELECT state FROM achievement_progress WHERE player_id = ?", PLAYER))[0][0]
    assert '"wins":11' in state  # 6 + 4 credited by the chunks, the long game by its own finish


async def test_background_credits_yield_and_finish(storage):
    for n in range(7):
        await played(storage, at=10.0 * n)
    await forget_progress(storage)
    credits = Credits(storage, chunk=2)
    try:
        assert not await credits.credited(PLAYER)
        assert credits.running == 1
        await credits.ensure(PLAYER)
        assert await credits.credited(PLAYER) and credits.running == 0
        assert "first_win" in await keys(storage)
    finally:
        await credits.close()


async def test_forget_me_removes_them_and_a_reset_does_not(storage):
    await played(storage)
    await played(storage, FRIEND)
    assert await storage.award(PLAYER, "perfect_loss", 5.0) is True
    assert await storage.award(PLAYER, "perfect_loss", 6.0) is False  # announced once
    assert await storage.reset_stats(GUILD, None) == 2
    assert await keys(storage) >= {"first_win", "perfect_loss"}  # the player's, not the server's
    await storage.forget_player(PLAYER)
    assert await keys(storage) == set()
    assert await raw(storage, "SELECT * FROM achievement_progress WHERE player_id = ?", PLAYER) == []
    assert "first_win" in await keys(storage, FRIEND)
    # A forgotten player starts again from nothing.
    assert "first_win" in ((await played(storage)).unlocked or ())


async def test_rarity_is_the_share_of_a_servers_players_and_of_all_players(storage):
    await played(storage, PLAYER)
    await played(storage, FRIEND, status="stuck")
    await played(storage, 7003, guild=OTHER_GUILD)
    await played(storage, 7004, guild=OTHER_GUILD, status="stuck")
    await played(storage, 7005, guild=OTHER_GUILD, status="stuck")
    here = await storage.rarity(GUILD)
    assert here.players == 2 and here.share("first_win") == 0.5 and here.share("wins_500") == 0.0
    there = await storage.rarity(OTHER_GUILD)
    assert there.players == 3 and round(there.share("first_win"), 3) == 0.333
    everyone = await storage.rarity(None)
    assert everyone.players == 5 and everyone.share("first_win") == 0.4


async def test_migrated_from_the_schema_before_and_its_history_credited(tmp_path):
    path = tmp_path / "old.db"
    with schema_before(path, ACHIEVEMENTS_VERSION) as db:
        for n in range(3):  # won strict one-pass games in 80 s, stored before the achievements existed
            db.execute(
                "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, status, score, moves, created_at,"
                " finished_at, seconds, log) VALUES (?, 5, ?, ?, 'SP0', 'won', 280, 30, ?, ?, 80, ?)",
                (GUILD, PLAYER, CODE, 10.0 * n, 10.0 * n + 80, pack_log([27, 26])),
            )
    store = from_url(str(path))
    await store.open()
    try:
        assert await keys(store) == set()
        assert (await played(store, at=5000.0)).unlocked is None  # the history first
        credits = Credits(store)
        await credits.ensure(PLAYER)
        await credits.close()
        found = await keys(store)
        assert found >= {"first_win", "strict_one_pass_win", "under_90_seconds", "no_undo", "clean_win"}
        assert "wins_10" not in found
    finally:
        await store.close()


async def test_games_finishing_while_another_process_credits_the_history_count_once_each(storage):
    other = twin(storage)  # the crediting in one process, the finishes in another, at the same moment
    await other.open()
    try:
        for n in range(30):
            await played(storage, at=10.0 * n)
        await forget_progress(storage)
        live = [
            await storage.create_game(GameRecord(0, GUILD, 500 + n, PLAYER, CODE, "N", created_at=1.0, started_at=1.0))
            for n in range(12)
        ]

        async def chunks() -> None:
            while not await other.credit_history(PLAYER, daily_tier_of, limit=4):
                await asyncio.sleep(0)

        async def finishes() -> None:
            for game in live:
                await storage.finish_game(replace(game, status=WON, finished_at=900.0, seconds=50.0, score=280))
                await asyncio.sleep(0)

        await asyncio.gather(chunks(), finishes())
        state = (await raw(storage, "SELECT state FROM achievement_progress WHERE player_id = ?", PLAYER))[0][0]
        assert '"wins":42' in state and '"played":42' in state  # every game once, none twice, none lost
        assert len(await storage.unlocked(PLAYER)) == len(await keys(storage))
        assert "wins_10" in await keys(storage)
    finally:
        await other.close()


async def test_looking_at_someone_who_never_played_stores_nothing_of_them(storage):
    """A first look at a player's card credits their history: a player with no finished game gets no
    progress row (nothing of theirs is stored, and they do not count among the players of a rarity)."""
    stranger = 55_555
    assert await storage.credit_history(stranger, daily_tier_of) is True
    assert await storage.history_credited(stranger) is False  # (nothing to credit, nothing stored)
    assert await raw(storage, "SELECT player_id FROM achievement_progress WHERE player_id = ?", stranger) == []
