"""A move stored before it is answered: the engine's new actions written with the game's totals, the
interaction id with the first (a press delivered to two processes is stored once), and a write of unknown
outcome looked up at its place once the database answers again."""

from __future__ import annotations

import logging
from dataclasses import replace

from .live import Live
from .storage import GameRecord, MoveConflict, Storage, StorageOutcomeUnknown, StorageUnavailable
from .storage.codec import encode_action
from .storage.settling import look_up

log = logging.getLogger(__name__)


async def store(storage: Storage, live: Live, now: float, request: int | None, resolve_seconds: float) -> GameRecord:
    """Store the actions the engine has and storage has not yet, at ``now``, with the game's totals (the
    interaction id ``request`` with the first); returns the record as now stored."""
    game, record = live.game, live.record
    new = game.actions[live.stored :]
    started_at = record.started_at
    if started_at is None and game.moves > 0:
        started_at = now
    totals = replace(record, score=game.score, moves=game.moves, removed=game.removed, started_at=started_at)
    for offset, action in enumerate(new):
        seq, asked = live.stored + offset, request if offset == 0 else None
        try:
            await storage.append_action(record.id, seq, action, now, totals, asked)
        except StorageOutcomeUnknown as unknown:
            if await _look_up(storage, record.id, seq, action, asked, unknown, resolve_seconds):
                continue
            if not unknown.cut:  # too slow (a stall, a lock): settled and absent, so nothing was played
                raise StorageUnavailable(f"game {record.id}: move {seq} was not stored") from unknown
            # A cut connection, settled and not stored: the old write can no longer land, so this is safe.
            await storage.append_action(record.id, seq, action, now, totals, asked)
    # The record as it is now, not as it was read: a hint counted meanwhile (outside the lock) stays counted.
    actions = record.actions + tuple(new)
    return replace(
        live.record, score=game.score, moves=game.moves, removed=game.removed, started_at=started_at, actions=actions
    )


async def _look_up(
    storage: Storage,
    game_id: int,
    seq: int,
    action: int | str,
    request: int | None,
    unknown: StorageOutcomeUnknown,
    resolve_seconds: float,
) -> bool:
    """A move whose write had an unknown outcome: once the database answers again, the write is settled
    (it can no longer take effect) and the move looked up at its place, with its interaction id.
    Returns whether it is stored; raises ``MoveConflict`` if another move is there, or ``unknown``
    itself when the database did not answer within ``resolve_seconds`` (the next turn settles it
    before loading the game)."""
    found = await look_up(storage, unknown, lambda: storage.move_at(game_id, seq), resolve_seconds)
    if found is None:
        log.info("game %s: move %s of unknown outcome was not stored (looked up)", game_id, seq)
        return False
    if found != (encode_action(action), request):
        raise MoveConflict(f"game {game_id}: move {seq} was stored by another process") from unknown
    log.info("game %s: move %s of unknown outcome was stored (looked up)", game_id, seq)
    return True
