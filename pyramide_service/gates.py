"""The channels' locks: one a channel, made on first use and gone once nobody holds or waits for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass
class Gate:
    """A channel's lock and how many turns hold it or wait for it (removed when none do)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


@asynccontextmanager
async def holding(gates: dict[int, Gate], key: int) -> AsyncIterator[None]:
    """Hold the lock of ``gates[key]``, made on first use and removed when nobody holds or waits for it
    (never while someone waits: a newcomer must find the same lock)."""
    gate = gates.get(key)
    if gate is None:
        gate = gates[key] = Gate()
    gate.users += 1
    try:
        async with gate.lock:
            yield
    finally:
        gate.users -= 1
        if gate.users == 0 and gates.get(key) is gate:
            del gates[key]
