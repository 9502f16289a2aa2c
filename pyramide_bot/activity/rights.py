"""Whether a signed-in player may still play: a session token is a 4-hour bearer token, so the right it
stands for is checked again while the player's sockets are open.

- The bot's membership: a ban (the gateway's ``GUILD_BAN_ADD``) or a removal (``GUILD_MEMBER_REMOVE``, heard
  only with the members intent) revokes every session of that player in that server minted before it.
- Discord's instance: at the hello and then every ``Limits.recheck`` seconds while a socket is open, the
  instance is looked up with the bot token; a player no longer among its users (they left, the instance
  ended) is refused. One look-up per instance serves all its sockets, none is made while Discord's 429
  holds, and at most a burst of ``Limits.lookups`` then ``sockets`` per ``recheck`` reach Discord (enough for
  every socket's instance each interval; past them the last answer stands); when Discord
  does not answer, the player keeps playing (the sign-in already checked them).
"""

from __future__ import annotations

import asyncio
import time

from pyramide.bounded import LRU

from .limits import Bucket, Clock, Limits
from .sessions import LIFETIME, Session
from .signin import DiscordSignIn


class Rights:
    def __init__(self, signin: DiscordSignIn, clock: Clock, limits: Limits) -> None:
        self.signin = signin
        self.clock = clock
        self.recheck = limits.recheck
        self._revoked: LRU[tuple[int, int], float] = LRU(10_000)  # (server, player) -> when the bot heard it
        self._answers: LRU[str, tuple[float, set[int] | None]] = LRU(10_000)  # instance -> (when, its users)
        self._asking: dict[str, asyncio.Task[set[int] | None]] = {}
        self._budget = Bucket(limits.lookups, limits.lookup_every, time.monotonic())

    def signed_in(self, instance_id: str, user_id: int) -> None:
        """Discord has just vouched for the player in the instance: a cached answer from before is behind."""
        answered = self._answers.get(instance_id)
        if answered is not None and answered[1] is not None:
            answered[1].add(user_id)

    def revoke(self, guild_id: int, user_id: int) -> None:
        self._revoked.put((guild_id, user_id), self.clock())

    def revoked(self, session: Session) -> bool:
        """Whether the player was removed from the session's server after the session was minted."""
        removed = self._revoked.get((session.guild_id, session.user_id))
        return removed is not None and removed >= session.expires - LIFETIME

    async def still_in(self, session: Session, queue: bool = False) -> bool:
        """Whether Discord still has the player in the session's instance (``True`` when it does not say).
        Past the budget the last answer stands, or with ``queue`` (a re-check, which may wait) the look-up
        waits its turn: sockets that opened together are not all skipped until the next interval."""
        if self.revoked(session):
            return False
        users = await self._users(session.instance_id, queue)
        return users is None or session.user_id in users

    async def _users(self, instance_id: str, queue: bool) -> set[int] | None:
        answered = self._answers.get(instance_id)
        if answered is not None and time.monotonic() - answered[0] < self.recheck:
            return answered[1]
        task = self._asking.get(instance_id)
        while task is None and (wait := self._budget.take(time.monotonic())):
            if not queue:
                return answered[1] if answered is not None else None  # (over the budget: the last answer stands)
            await asyncio.sleep(wait)
            answered, task = self._answers.get(instance_id), self._asking.get(instance_id)
            if answered is not None and time.monotonic() - answered[0] < self.recheck:
                return answered[1]
        if task is None:
            task = asyncio.get_running_loop().create_task(self.signin.instance_users(instance_id))
            self._asking[instance_id] = task
            task.add_done_callback(lambda _t: self._asking.pop(instance_id, None))
        users = await asyncio.shield(task)
        self._answers.put(instance_id, (time.monotonic(), users))
        return users
