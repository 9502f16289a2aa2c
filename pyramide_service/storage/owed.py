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

from . import GameRecord
from .achievements import award
from .units import Program, Step, Unit

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


def owe_verdict(record: GameRecord) -> Program[None]:  # (its row tells: ``record.owes_verdict``)
    """Inside ``finish_game``: a game that was not won owes the verdict on its deal."""
    at = record.finished_at or 0.0
    args = (record.id, record.owner_id, record.code, record.removed, at, record.owner_id, PERFECT_LOSS)
    record.owes_verdict = bool((yield Step(OWE_VERDICT, args, "changed")))


def pay_verdict(game_id: int, perfect: bool) -> Program[bool]:
    """The verdict arrived: the row goes, and a perfect loss is awarded by whoever removed it. Returns
    whether this unit unlocked the achievement (and so announces it)."""
    found = yield Step(PAY_VERDICT, (game_id,), "one")
    if found is None or not perfect:
        return False
    return (yield from award(int(found[0]), PERFECT_LOSS, float(found[1]), game_id))


def _owed(found: Any) -> OwedVerdict:
    return OwedVerdict(int(found[0]), int(found[1]), str(found[2]), int(found[3]), float(found[4]))


class OwedStorage:
    """The owed verdicts' part of ``SQLStorage`` (mixed into it)."""

    async def _read(self, unit: Unit, *, long: bool = False) -> Any:
        raise NotImplementedError

    async def _write(self, unit: Unit, *, long: bool = False, retry: bool = True) -> Any:
        raise NotImplementedError

    async def owed_verdicts(self, limit: int = 1000) -> list[OwedVerdict]:
        """The games whose verdict is still owed, oldest first."""
        return [_owed(found) for found in await self._read(Step(OWED, (limit,), "all"))]

    async def owed_verdict(self, game_id: int) -> OwedVerdict | None:
        found = await self._read(Step(OWED_OF, (game_id,), "one"))
        return _owed(found) if found is not None else None

    async def pay_verdict(self, game_id: int, perfect: bool) -> bool:
        return bool(await self._write(lambda: pay_verdict(game_id, perfect)))
