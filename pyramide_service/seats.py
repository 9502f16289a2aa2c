"""A seat: one player's own place inside an Activity instance's channel, where their own game lives (today's
daily, a party race's board) while the others in the instance watch only what they should.

A seat is named by an id used wherever a channel id is: ``GameManager.turn(seat.id)``, the game's
``channel_id`` column, ``Deal``/``Here(seat.id)`` in ``opening``, ``GameChanged.channel_id`` in the one
subscription. The id is a negative 63-bit integer, a hash of (kind, party, channel, player): Discord's
snowflakes are positive, so a seat never collides with a real channel (nor with ``OUTSIDE_SERVERS``, 0), and
the same seat is named the same by every process and after a restart. Its statistics go where the
instance's do (the ``Deal``'s ``guild_id``: the instance's server, 0 outside servers), never to the seat.

A seat's board is the page: ``opening`` never asks a ``BoardPort`` to post one (its game has no message),
and nothing draws a board message for it. The id alone tells only that it is a seat (``is_seat``); its
kind, player and instance channel are the ``Seat`` value's, which its maker keeps (a page's session names
the channel and the player, so ``Seat.daily(channel, player, number)`` finds the same seat again).

The API (stable; the party race builds on it):
    Seat(channel_id, player_id, kind, party_id=0)   .id  .is_daily  .is_party
    Seat.daily(channel_id, player_id, number=0)   Seat.party(channel_id, player_id, party_id)
    seat_id(channel_id, player_id, kind, party_id=0) -> int      is_seat(channel_id) -> bool
    DAILY, PARTY (the kinds)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

Kind = Literal["daily", "party"]
DAILY: Kind = "daily"
PARTY: Kind = "party"
_BITS = 63  # a signed 64-bit column holds -(2**63 - 1) .. -1


def seat_id(channel_id: int, player_id: int, kind: Kind, party_id: int = 0) -> int:
    """The seat's id: negative, never 0, the same everywhere for the same (channel, player, kind, party)."""
    if kind not in (DAILY, PARTY):
        raise ValueError(f"no such kind of seat: {kind!r}")
    named = f"pyramide seat:{kind}:{party_id}:{channel_id}:{player_id}".encode()
    number = int.from_bytes(hashlib.blake2b(named, digest_size=8).digest(), "big") & ((1 << _BITS) - 1)
    return -(number or 1)


def is_seat(channel_id: int) -> bool:
    """Whether a game's channel id names a seat (no Discord channel: nothing is posted or edited there)."""
    return channel_id < 0


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's own place in an instance's channel (``channel_id``, a real Discord channel): ``kind``
    ``DAILY`` (their attempt at a day's daily, ``party_id`` the daily's number), or ``PARTY`` with the
    party's id."""

    channel_id: int
    player_id: int
    kind: Kind
    party_id: int = 0

    @classmethod
    def daily(cls, channel_id: int, player_id: int, number: int = 0) -> Seat:
        """The player's seat for the daily of ``number`` (``pyramide.daily.daily_number``): a seat a day, so
        an attempt left unfinished never holds the next day's."""
        return cls(channel_id, player_id, DAILY, number)

    @classmethod
    def party(cls, channel_id: int, player_id: int, party_id: int) -> Seat:
        return cls(channel_id, player_id, PARTY, party_id)

    @property
    def id(self) -> int:
        return seat_id(self.channel_id, self.player_id, self.kind, self.party_id)

    @property
    def is_daily(self) -> bool:
        return self.kind == DAILY

    @property
    def is_party(self) -> bool:
        return self.kind == PARTY
