"""Games stored as finished, straight through the storage, for the tests of statistics and of the ids of
the leaderboard's buttons."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from pyramide_service.storage import WON, GameRecord
from tests.support.harness import GUILD_ID, OWNER

T0 = datetime(2026, 11, 30, tzinfo=UTC).timestamp()


async def add_game(
    store,
    *,
    guild=GUILD_ID,
    player=OWNER,
    status=WON,
    score=280,
    moves=100,
    seconds=200.0,
    finished=T0,
    daily=None,
    channel=None,
    rules="N",
):
    record = GameRecord(
        id=0,
        guild_id=guild,
        channel_id=channel or int(finished * 1000) + player % 997,
        owner_id=player,
        code=f"PY1-{rules}-AAAAAAS",
        rules=rules,
        daily=daily,
        created_at=finished - 300,
    )
    record = await store.create_game(record)
    started_at = finished - seconds
    record = replace(record, status=status, score=score, moves=moves, started_at=started_at, finished_at=finished)
    return await store.finish_game(replace(record, seconds=seconds))
