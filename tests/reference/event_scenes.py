"""A fixed ended event and its standings, drawn into the reference podium and standings pictures in each
language (tests/test_event_pictures.py; regenerate.py writes them)."""

from __future__ import annotations

from pyramide_service.storage import EventRecord, EventStanding

START = 1_764_547_200.0  # 2025-12-01T00:00:00Z
EVENT = EventRecord(
    id=1,
    guild_id=1,
    channel_id=2,
    message_id=3,
    name="December Cup",
    rules="N",
    difficulty=None,
    codes=("PY1-N-AAAAAAS", "PY1-N-AAAAABA", "PY1-N-AAAAABS"),
    created_by=4,
    created_at=START,
    ends_at=START + 7 * 86_400,
    ended_at=START + 7 * 86_400,
    announced_at=START + 7 * 86_400,
)
STANDINGS = [
    EventStanding(11, 3, 76, 830, 512.0, 0, 2, "Ana Kovačević"),
    EventStanding(12, 3, 76, 790, 430.0, 2, 2, "Сергей"),
    EventStanding(13, 3, 61, 610, 377.0, 1, 1, "mads_the_very_long_name_that_is_cut"),
    EventStanding(14, 2, 40, 400, 200.0, 0, 1, "Ida"),
    EventStanding(15, 1, 12, 120, 95.0, 4, 0, "Tomislav"),
]
LANGUAGES = ("en", "hr", "da", "ru")
PICTURES = {f"event_{kind}_{lang}": (kind, lang) for kind in ("podium", "standings") for lang in LANGUAGES}
