"""Sign-in as Discord's Activity examples do it: the page's ``authorize`` code exchanged here for an access
token (with the client secret, which never leaves this process), the user read with that token, and the
instance looked up with the bot token. The channel is the instance's, never one the page names, and the
user must be among the instance's users. An instance outside servers names its channel only as a private
channel: it is the bot's DM with the user only if that is the channel Discord gives the bot for a DM with
them (``POST /users/@me/channels``, which returns the DM there is); any other private channel (a group DM,
a DM between two people) is refused, since the bot cannot keep a board in step there.

Every call goes to the REST base the rest of the bot uses (``DISCORD_API_BASE``: a proxy, or the test
server), with aiohttp: discord.py has no public call for these routes.

Junk codes cost the bot requests from its own address, and Discord bans an address that sends 10,000
invalid requests in 10 minutes: so exchanges are let through a bucket per address and one for all
(``Limits``), and a 429 from Discord holds every later call for its ``Retry-After``. A refused exchange
says in how many seconds to try again.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import aiohttp

from .limits import Bucket, Buckets, Clock, Limits

log = logging.getLogger(__name__)
DISCORD_API = "https://discord.com/api/v10"
TIMEOUT = aiohttp.ClientTimeout(total=8)
DM = 1  # Discord's channel type of a DM


class SignInRefused(Exception):
    """Discord did not vouch for the code, the user or the instance: ``SignInRefused(reason, detail)``, where
    ``reason`` is a catalogue key's tail (``activity.refused.<reason>``) the page shows in the player's
    language and ``detail`` what the log says."""

    retry_after = 0  # seconds to wait before trying again (``busy``)
    status = 0  # Discord's status, when it refused

    @property
    def reason(self) -> str:
        return str(self.args[0])


class Busy(SignInRefused):
    """Too many exchanges (of this address, of all, or Discord said 429): try again in ``retry_after`` s."""

    def __init__(self, seconds: float, detail: str) -> None:
        super().__init__("busy", detail)
        self.retry_after = max(1, math.ceil(seconds))


@dataclass(frozen=True)
class SignedIn:
    access_token: str
    user_id: int
    name: str
    guild_id: int | None  # None: the bot's DM with the user (another private channel is refused)
    channel_id: int


class DiscordSignIn:
    def __init__(
        self,
        application_id: int,
        client_secret: str,
        bot_token: str,
        api_base: str | None,
        clock: Clock,
        limits: Limits = Limits(),
    ) -> None:
        self.application_id = application_id
        self._secret = client_secret
        self._bot_token = bot_token
        self.base = (api_base or DISCORD_API).rstrip("/")
        self._http: aiohttp.ClientSession | None = None
        self.clock = clock
        self._addresses = Buckets(limits.signin_burst, limits.signin_every, clock, limits.addresses)
        self._all = Bucket(limits.overall_burst, 60.0 / limits.overall_per_minute, clock())
        self.held_until = 0.0  # Discord's last 429: nothing is sent before then
        self.sent = 0  # requests sent to Discord (the tests and the bench count them)

    def admit(self, address: str) -> None:
        """Raises ``Busy`` unless an exchange from ``address`` may reach Discord now."""
        now = self.clock()
        if now < self.held_until:
            raise Busy(self.held_until - now, "Discord's Retry-After")
        wait = self._addresses.take(address)
        if wait:
            raise Busy(wait, "this address's exchanges")
        wait = self._all.take(now)
        if wait:
            raise Busy(wait, "all exchanges")

    def _session(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(timeout=TIMEOUT)
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()

    async def _call(self, method: str, path: str, what: str, **options: Any) -> dict[str, Any]:
        now = self.clock()
        if now < self.held_until:
            raise Busy(self.held_until - now, f"{what}: Discord's Retry-After")
        try:
            self.sent += 1
            async with self._session().request(method, self.base + path, **options) as response:
                body = await response.json(content_type=None) if response.content_length != 0 else None
                if response.status == 429:
                    seconds = _retry_after(response.headers.get("Retry-After"), body)
                    self.held_until = max(self.held_until, self.clock() + seconds)
                    log.warning("Discord answered 429 to the Activity's %s: held for %.0f s", what, seconds)
                    raise Busy(seconds, f"{what}: 429")
                if response.status >= 500:
                    raise SignInRefused("discord_down", f"{what}: {response.status}")
                if response.status >= 400 or not isinstance(body, dict):
                    # Discord's own error words only (an OAuth2 error names no secret and no token).
                    detail = f"{what}: {response.status} {str(body)[:200]}"
                    log.info("activity sign-in refused: %s", detail)
                    refusal = SignInRefused("not_signed_in", detail)
                    refusal.status = response.status
                    raise refusal
                return body
        except (TimeoutError, aiohttp.ClientError, ValueError) as error:
            raise SignInRefused("discord_down", f"{what}: {type(error).__name__}") from None

    async def sign_in(self, code: str, instance_id: str) -> SignedIn:
        token = await self._call(
            "POST",
            "/oauth2/token",
            "code exchange",
            data={
                "client_id": str(self.application_id),
                "client_secret": self._secret,
                "grant_type": "authorization_code",
                "code": code,
            },
        )
        access_token = token.get("access_token")
        if not isinstance(access_token, str) or "identify" not in str(token.get("scope", "")).split():
            raise SignInRefused("not_signed_in", "the exchange gave no token with the identify scope")
        me = await self._call("GET", "/users/@me", "user", headers={"Authorization": f"Bearer {access_token}"})
        instance = await self._call(
            "GET",
            f"/applications/{self.application_id}/activity-instances/{instance_id}",
            "instance",
            headers={"Authorization": f"Bot {self._bot_token}"},
        )
        try:
            user_id = int(me["id"])
            name = str(me.get("global_name") or me["username"])[:64]
            location = instance["location"]
            channel_id = int(location["channel_id"])
            guild_id = int(location["guild_id"]) if location.get("guild_id") else None
            users = {int(u) for u in instance["users"]}
        except (KeyError, TypeError, ValueError):
            raise SignInRefused("not_signed_in", "an answer of an unexpected shape") from None
        if user_id not in users:
            raise SignInRefused("not_in_instance", f"user {user_id} is not in instance {instance_id[:40]}")
        if guild_id is None and await self._bots_dm(user_id) != channel_id:
            raise SignInRefused("not_here", f"private channel {channel_id} is not the bot's DM with user {user_id}")
        return SignedIn(access_token, user_id, name, guild_id, channel_id)

    async def instance_users(self, instance_id: str) -> set[int] | None:
        """The users Discord has in the instance now (an ended one has none); ``None``: Discord did not say."""
        try:
            instance = await self._call(
                "GET",
                f"/applications/{self.application_id}/activity-instances/{instance_id}",
                "instance check",
                headers={"Authorization": f"Bot {self._bot_token}"},
            )
            return {int(u) for u in instance["users"]}
        except SignInRefused as refusal:
            return set() if refusal.status == 404 else None  # (404: the instance ended, so nobody is in it)
        except (KeyError, TypeError, ValueError):
            return None

    async def _bots_dm(self, user_id: int) -> int | None:
        """The channel of the bot's DM with ``user_id``: Discord returns the DM there is (or opens it)."""
        channel = await self._call(
            "POST",
            "/users/@me/channels",
            "the bot's DM",
            json={"recipient_id": str(user_id)},
            headers={"Authorization": f"Bot {self._bot_token}"},
        )
        try:
            return int(channel["id"]) if channel.get("type") == DM else None
        except (KeyError, TypeError, ValueError):
            raise SignInRefused("not_signed_in", "an answer of an unexpected shape") from None


def _retry_after(header: str | None, body: object) -> float:
    """Discord's wait in seconds: the header, else the body's ``retry_after``; at least 1, at most an hour."""
    for value in (header, body.get("retry_after") if isinstance(body, dict) else None):
        try:
            seconds = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if math.isfinite(seconds):
            return min(3600.0, max(1.0, seconds))
    return 5.0
