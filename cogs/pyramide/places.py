"""Where a game is stored and whose settings rule it (the places themselves: ``cogs.places``)."""

from __future__ import annotations

from pyramide_service import GameRecord

from ..places import OUTSIDE_SERVERS, Place, Reach, place_of

__all__ = ["OUTSIDE_SERVERS", "Place", "Reach", "of_this_place", "place_of", "settings_key"]


def settings_key(record: GameRecord) -> int:
    """Whose settings rule a game: its server's, or outside servers its channel's own (a group DM has no
    server setting; ``/pyramide new anyone:`` sets who may play in it)."""
    return record.guild_id if record.guild_id != OUTSIDE_SERVERS else record.channel_id


def of_this_place(record: GameRecord, place: Place | None) -> bool:
    """Whether ``record`` is a game of ``place``'s server (or of no server) and channel."""
    return place is not None and record.guild_id == place.stats_id and record.channel_id == place.channel_id
