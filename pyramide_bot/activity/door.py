"""Who knocks, and how often the costly things may be asked: the address a sign-in is counted against, and
each player's allowance of deals (a replacement is a deal), hints, and winning lines or replays."""

from __future__ import annotations

import math
from typing import Any

from aiohttp import web

from .limits import Buckets, Clock, Limits


def client_address(request: web.Request, proxies: int) -> str:
    """The address of the client: the peer's, or with ``proxies`` trusted proxies in front (a reverse proxy,
    Discord's), the one the outermost of them saw, from ``X-Forwarded-For`` (earlier entries are the
    client's own words and are not trusted)."""
    if proxies > 0:
        hops = [hop.strip() for hop in ",".join(request.headers.getall("X-Forwarded-For", [])).split(",")]
        hops = [hop for hop in hops if hop]
        if len(hops) >= proxies:
            return hops[-proxies][:64]
    return request.remote or ""


class Costs:
    def __init__(self, limits: Limits, clock: Clock) -> None:
        self._kinds = {
            kind: Buckets(burst, every, clock, limits.addresses)
            for kind, (burst, every) in (
                ("deal", limits.deals),
                ("daily", limits.deals),  # (today's daily opened: a deal; its month picture: a drawing)
                ("month", limits.playbacks),
                ("podium", limits.playbacks),  # (a party's podium picture, to share: a drawing, #48)
                ("hint", limits.hints),
                ("playback", limits.playbacks),
            )
        }

    def wait(self, user_id: int, kind: str, asked: dict[str, Any]) -> int:
        """0 if the player may ask for this now, else the whole seconds until they may."""
        kind = "playback" if kind in ("line", "mine") else "deal" if kind == "party" else kind
        buckets = self._kinds.get(kind)
        if buckets is None:
            return 0
        seconds = buckets.take(user_id)
        return math.ceil(seconds) if seconds else 0
