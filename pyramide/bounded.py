"""The one bounded cache of the project: what was used least recently goes first once the cache
holds more than its limit.

The limit counts entries, or any other weight (``weigh``: an animation weighs its bytes). Safe to
share between threads (the renderer's caches are used from worker threads); on the event loop the
lock is never contended and costs a few tens of nanoseconds.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar, overload

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")


def _one(_: object) -> int:
    return 1


class LRU(Generic[K, V]):
    """At most ``limit`` weight of entries (each weighs 1 unless ``weigh`` says otherwise); reading or
    writing an entry makes it the most recently used. An entry heavier than the limit is not kept."""

    def __init__(self, limit: int, weigh: Callable[[V], int] = _one) -> None:
        if limit < 1:
            raise ValueError(f"a bounded cache needs a limit of at least 1, not {limit}")
        self.limit = limit
        self._weigh = weigh
        self._weight = 0
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    @overload
    def get(self, key: K) -> V | None: ...

    @overload
    def get(self, key: K, default: D) -> V | D: ...

    def get(self, key: K, default: object = None) -> object:
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` (replacing what was there), drop the least recently used beyond
        the limit, and return ``value``."""
        with self._lock:
            if key in self._items:
                self._weight -= self._weigh(self._items.pop(key))
            self._items[key] = value
            self._weight += self._weigh(value)
            while self._weight > self.limit and self._items:
                _, dropped = self._items.popitem(last=False)
                self._weight -= self._weigh(dropped)
        return value

    def pop(self, key: K) -> V | None:
        with self._lock:
            if key not in self._items:
                return None
            found = self._items.pop(key)
            self._weight -= self._weigh(found)
            return found

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._weight = 0

    @property
    def weight(self) -> int:
        """The weight kept (the number of entries unless ``weigh`` was given)."""
        return self._weight

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)
