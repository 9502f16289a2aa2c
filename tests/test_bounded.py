"""The one bounded cache: least recently used out first, by count or by weight, shared by threads."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from pyramide.bounded import LRU


def test_the_least_recently_used_entry_goes_first_and_reading_counts_as_use():
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the least recently used
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2


def test_a_weighed_cache_keeps_at_most_its_limit_of_weight():
    cache: LRU[str, bytes] = LRU(10, len)
    cache.put("a", b"x" * 4)
    cache.put("b", b"x" * 4)
    cache.put("a", b"x" * 6)  # replaced: its old weight no longer counts
    assert cache.weight == 10 and len(cache) == 2
    cache.put("c", b"x")
    assert "b" not in cache and cache.weight == 7
    cache.put("huge", b"x" * 11)  # heavier than the whole cache: kept by nothing
    assert len(cache) == 0 and cache.weight == 0


def test_a_stored_none_is_told_apart_from_a_missing_key():
    cache: LRU[int, int | None] = LRU(4)
    cache.put(1, None)
    assert 1 in cache and cache.get(1, -1) is None and cache.get(2, -1) == -1
    assert cache.pop(1) is None and 1 not in cache and cache.weight == 0


def test_threads_sharing_a_cache_never_break_its_bound():
    cache: LRU[int, int] = LRU(64)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: cache.put(n % 200, n) and cache.get((n * 7) % 200), range(20_000)))
    assert len(cache) == cache.weight == 64


def test_a_cache_needs_room_for_one_entry():
    with pytest.raises(ValueError, match="at least 1"):
        LRU(0)
