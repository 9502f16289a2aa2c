"""The player card and the achievements grid drawn for tests/reference (regenerate.py) and their test
(test_profile.py): a month of play, some achievements unlocked, in each language."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime

from cogs.pyramide.profile import badge_grid, player_card
from pyramide.achievements import CATALOGUE
from pyramide.render.badges import BadgeGrid
from pyramide.render.card import PlayerCard
from pyramide_service.stats import player_stats
from pyramide_service.storage import RaceStats, ResultRow
from pyramide_service.storage.achievements import Rarity, Unlocked

LANGUAGES = ("en", "hr", "da", "ru")
TODAY = date(2026, 12, 15)
_MIDNIGHT = datetime(2026, 12, 15, tzinfo=UTC).timestamp()


def _history() -> list[ResultRow]:
    rng = random.Random(7)
    rows = []
    for _ in range(160):
        finished = _MIDNIGHT - rng.randrange(40 * 86_400) + 3600
        status = rng.choices(("won", "stuck", "ended"), (6, 3, 1))[0]
        rows.append(
            ResultRow(status, 280 if status == "won" else 150, 80, rng.uniform(70, 600), finished, None, False, 1)
        )
    return sorted(rows, key=lambda r: r.finished_at)


UNLOCKED = [Unlocked(a.key, _MIDNIGHT - (30 - n) * 86_400, n) for n, a in enumerate(CATALOGUE) if n % 3 != 2]
RARITY = Rarity(40, {a.key: (n * 7) % 40 + 1 for n, a in enumerate(CATALOGUE)})
DAILIES = (
    ("clean", "hinted", "clean", "gave_up", "missed", "clean", "clean", "hinted", "clean", "missed")
    + (
        "clean",
        "clean",
        "gave_up",
        "clean",
        "open",
    )
    + ("none",) * 16
)


def card(lang: str) -> PlayerCard:
    rows = _history()
    races = RaceStats(6, 4, 95.0)
    return player_card(
        "Ana Marić", "Pyramide Club", rows, player_stats(rows), races, UNLOCKED, RARITY, DAILIES, TODAY, lang
    )


def grid(lang: str) -> tuple[BadgeGrid, str]:
    return badge_grid("Ana Marić", UNLOCKED, RARITY, True, lang)
