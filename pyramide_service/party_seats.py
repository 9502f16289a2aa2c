"""A party's seats, until the Activity's own seats land (issue #48): a player's own place inside an Activity
instance, the channel id their party board is stored under. Deterministic, so every process and the same
process after a restart finds the same seat, and negative, so it is never a Discord id (snowflakes are
positive) and never a real channel's game."""

from __future__ import annotations

import hashlib


def seat(instance_id: str, player_id: int) -> int:
    """The channel id of ``player_id``'s board in the instance ``instance_id``."""
    digest = hashlib.blake2b(f"party {instance_id} {player_id}".encode(), digest_size=8).digest()
    return -(int.from_bytes(digest, "big") >> 2) - 1  # (62 bits: inside a signed BIGINT)
