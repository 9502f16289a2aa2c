"""Every bound of the Activity's door in one place (docs/activity.md, "Threat model", lists them): the
server takes a ``Limits`` so that the tests can shorten the deadlines and intervals, and a token bucket,
kept per key in a bounded table, for every rate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyramide.bounded import LRU

Clock = Callable[[], float]


@dataclass(frozen=True)
class Limits:
    # connections
    hello_wait: float = 10.0  # seconds from the socket's opening to its hello, whatever arrives meanwhile
    pending: int = 200  # sockets open at once that have not signed in yet
    sockets: int = 2_000  # signed-in sockets at once (the process's file descriptors: deploy/pyramide.service)
    per_session: int = 3  # sockets of one player in one instance (a page, its reload, one more)
    per_user: int = 6  # sockets of one player in all instances
    recheck: float = 180.0  # seconds between two of Discord's answers on whether the player is still in
    # instance look-ups in all: 30 at once, then as many a second as re-check the instance of every socket
    # (at most ``sockets``) within ``recheck``: 2,000 / 180 s, 11.1 a second, under a quarter of Discord's 50
    lookups: int = 30
    backlog: int = 32  # messages waiting for one page; a page that lets more pile up is dropped
    # a page's messages: a burst of 20, then 8 a second; more is a flood (the socket is closed)
    burst: int = 20
    rate: float = 8.0
    # sign-in: code exchanges (each costs 3 or 4 requests to Discord)
    signin_burst: int = 5  # per address: a burst, then one every signin_every seconds
    signin_every: float = 12.0
    overall_burst: int = 10  # all addresses together: so at most 10 + 15 a minute reach Discord's /oauth2/token
    overall_per_minute: float = 15.0
    addresses: int = 10_000  # addresses (and players) whose allowance is remembered, the oldest forgotten first
    proxies: int = 0  # trusted proxies in front whose X-Forwarded-For names the client (0: the peer's address)
    # costly actions of one player, each a burst then one every so many seconds
    deals: tuple[int, float] = (5, 12.0)  # a deal (a search for a winnable or rated one, a board posted)
    hints: tuple[int, float] = (10, 3.0)
    playbacks: tuple[int, float] = (4, 15.0)  # a winning line (the solver) or a replay of one's game

    @property
    def lookup_every(self) -> float:
        """Seconds between two instance look-ups past the burst: one interval's budget covers every socket."""
        return self.recheck / self.sockets


class Bucket:
    """An allowance: ``burst`` at once, then one every ``every`` seconds."""

    __slots__ = ("at", "burst", "every", "tokens")

    def __init__(self, burst: int, every: float, now: float) -> None:
        self.burst, self.every = burst, every
        self.tokens, self.at = float(burst), now

    def take(self, now: float) -> float:
        """0 when one is taken, else the seconds until one is there."""
        self.tokens = min(float(self.burst), self.tokens + (now - self.at) / self.every)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) * self.every


class Buckets:
    """One bucket per key (an address, a player), the least recently used forgotten beyond ``size``: a
    forgotten key starts with a full allowance, which costs at most one burst more."""

    def __init__(self, burst: int, every: float, clock: Clock, size: int = 10_000) -> None:
        self.burst, self.every, self.clock = burst, every, clock
        self._buckets: LRU[object, Bucket] = LRU(size)

    def take(self, key: object) -> float:
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = Bucket(self.burst, self.every, now)
            self._buckets.put(key, bucket)
        return bucket.take(now)

    def __len__(self) -> int:
        return len(self._buckets)
