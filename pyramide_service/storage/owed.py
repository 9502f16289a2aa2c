"""What a finished game still owes once the solver's verdict on its deal is known: a perfect loss.

A game that was not won may be a perfect loss (``pyramide.achievements.perfect_loss``), which only the
solver's verdict on the deal decides, and that can take longer than the finishing answer may wait (or the
process may stop meanwhile). So the transaction that closes such a game also stores that a verdict is owed
(``verdicts_owed``, one row a game, skipped for a player who holds the achievement already), and the one
that pays it awards the achievement, if it is one, and deletes the row: whoever's delete removes it awards.
Rows left by a stopped process are paid after the restart (``pyramide_service.owed``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyramide.achievements import PERFECT_LOSS

from ..stored import GameRecord
from .achievements import award
from .units import Backend, Tx, read, write

OWE_VERDICT = (
    "INSERT INTO verdicts_owed (game_id, player_id, code, removed, finished_at) SELECT ?, ?, ?, ?, ?"
    " WHERE NOT EXISTS (SELECT 1 FROM achievements WHERE player_id = ? AND key = ?) ON CONFLICT DO NOTHING"
)
PAY_VERDICT = "DELETE FROM verdicts_owed WHERE game_id = ? RETURNING player_id, finished_at"
OWED = "SELECT game_id, player_id, code, removed, finished_at FROM verdicts_owed ORDER BY game_id LIMIT ?"
OWED_OF = "SELECT game_id, player_id, code, removed, finished_at FROM verdicts_owed WHERE game_id = ?"


@dataclass(frozen=True, slots=True)
class OwedVerdict:
    """A finished game whose perfect loss waits for the verdict on its deal ``code``."""

    game_id: int
    player_id: int
    code: str
    removed: int  # the cards the game removed (a perfect loss removed the most the deal allowed)
    finished_at: float


async def owe_verdict(db: Tx, record: GameRecord) -> bool:
    """Inside ``finish_game``: a game that was not won owes the verdict on its deal; whether its row was
    stored (``Finish.owes_verdict``)."""
    at = record.finished_at or 0.0
    args = (record.id, record.owner_id, record.code, record.removed, at, record.owner_id, PERFECT_LOSS)
    return bool(await db.changed(OWE_VERDICT, *args))


def _owed(found: Any) -> OwedVerdict:
    return OwedVerdict(int(found[0]), int(found[1]), str(found[2]), int(found[3]), float(found[4]))


class OwedStorage(Backend):
    """The owed verdicts' part of ``Storage``."""

    @read()
    async def owed_verdicts(self, db: Tx, limit: int = 1000) -> list[OwedVerdict]:
        """The games whose verdict is still owed, oldest first."""
        return [_owed(found) for found in await db.rows(OWED, limit)]

    @read()
    async def owed_verdict(self, db: Tx, game_id: int) -> OwedVerdict | None:
        found = await db.row(OWED_OF, game_id)
        return _owed(found) if found is not None else None

    @write(several=True)
    async def pay_verdict(self, db: Tx, game_id: int, perfect: bool) -> bool:
        """The verdict arrived: the row goes, and a perfect loss is awarded by whoever removed it. Returns
        whether this unit unlocked the achievement (and so announces it)."""
        found = await db.row(PAY_VERDICT, game_id)
        if found is None or not perfect:
            return False
        return await award(db, int(found[0]), PERFECT_LOSS, float(found[1]), game_id)
