"""A game's home: where it is stored and whose settings rule it (the places themselves, where an interaction
happened: ``cogs.places``)."""

from __future__ import annotations

from pyramide_service import GameRecord
from pyramide_service.server_settings import settings_key

from ..places import OUTSIDE_SERVERS, Place, Reach, place_of

__all__ = ["OUTSIDE_SERVERS", "Place", "Reach", "of_this_place", "place_of", "settings_key"]


def of_this_place(record: GameRecord, place: Place | None) -> bool:
    """Whether ``record`` is a game of ``place``'s server (or of no server) and channel."""
    return place is not None and record.guild_id == place.stats_id and record.channel_id == place.channel_id
