"""Discord's side of an Activity's sign-in, as strict as Discord: the OAuth2 code exchange
(``POST /oauth2/token``: form-encoded, the application's client id and secret, a code made for this
application, used once and within 10 minutes), the user an access token belongs to (``GET /users/@me``
with ``Bearer``), an Activity instance looked up with the bot token (``GET
/applications/{app}/activity-instances/{instance}``: Unknown for another application's or an ended one), and
the bot's DM with a user (``POST /users/@me/channels``: the bot token, a JSON body Discord's API description
allows with a recipient, the DM there is returned or a new one opened; ``dms`` keeps them, the player
``OWNER``'s being the harness's ``DM_CHANNEL_ID``).

Rate limits as Discord has them: ``limit(n, seconds)`` lets ``n`` requests through in a window, then answers
429 with ``Retry-After`` (header and body, ``retry_after_header``); ``hold(seconds)`` makes the next answer such
a 429. A request sent while a Retry-After holds is what Discord counts towards banning the address: it is
answered 429 again and kept in ``invalid``, which every test of the Activity expects to stay empty.

An application's attachment uploaded by an Activity for the share-moment dialog (``POST
/applications/{app}/attachment``): the user's ``Bearer`` token, a multipart form with one ``file`` part, an
image no larger than ``ATTACHMENT_LIMIT``; answered with the attachment and its URL on Discord's CDN (kept in
``attachments``).

``FakeDiscord`` (whole-process tests) and ``tests/support/activity_edge.py`` (the browser tests against the
harness) both answer these routes through ``ActivityDiscord.answer``.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import math
import secrets
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

from tests.support import discord_api
from tests.support.harness import APP_ID, DM_CHANNEL_ID, OWNER, snowflake, user_payload

CLIENT_SECRET = "test-client-secret-" + "x" * 13
BOT_TOKEN = "test-bot-token"
CODE_LIFETIME = 600.0  # Discord's authorization codes last 10 minutes
TOKEN_LIFETIME = 604800  # and access tokens a week
LIMITED = "You are being rate limited."
ATTACHMENT_LIMIT = 10 * 1024 * 1024  # bytes of an application's attachment
IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


@dataclass
class Instance:
    """One of the ``instances`` Discord keeps by channel (a launch press makes them: ``harness.launched``)."""

    kept: dict[str, Any]

    @property
    def instance_id(self) -> str:
        return str(self.kept["instance_id"])

    def payload(self) -> dict[str, Any]:
        guild_id, channel_id = self.kept.get("guild_id"), int(self.kept["channel_id"])
        location: dict[str, Any] = {
            "id": f"gc-{guild_id}-{channel_id}" if guild_id else f"pc-{channel_id}",
            "kind": "gc" if guild_id else "pc",
            "channel_id": str(channel_id),
        }
        if guild_id:
            location["guild_id"] = str(guild_id)
        return {
            "application_id": str(APP_ID),
            "instance_id": self.instance_id,
            "launch_id": str(abs(hash(self.instance_id)) % 10**18),
            "location": location,
            "users": sorted(str(u) for u in self.kept["users"]),
        }


def _error(status: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return status, body


def retry_after_header(status: int, body: Any) -> dict[str, str]:
    """The headers of an answer: a 429 names its wait in whole seconds, as Discord's do."""
    if status == 429 and isinstance(body, dict):
        return {"Retry-After": str(math.ceil(float(body["retry_after"])))}
    return {}


class ActivityDiscord:
    def __init__(
        self,
        bot_token: str = BOT_TOKEN,
        client_secret: str = CLIENT_SECRET,
        instances: dict[int, dict[str, Any]] | None = None,
    ) -> None:
        self.bot_token = bot_token
        self.client_secret = client_secret
        # channel -> its running instance, shared with the Discord that answers launch presses (the harness's
        # or the fake's ``activity_instances``): a launch makes the instance the sign-in then finds
        self.by_channel: dict[int, dict[str, Any]] = {} if instances is None else instances
        self._codes: dict[str, tuple[int, float, tuple[str, ...]]] = {}
        self.tokens: dict[str, int] = {}  # access token -> its user
        self.names: dict[int, str] = {}
        self.dms: dict[int, int] = {OWNER: DM_CHANNEL_ID}  # user -> the bot's DM channel with them
        self.invalid: list[str] = []  # why requests Discord's API description refuses were refused
        self.seen: list[str] = []  # every request, "METHOD path", for the tests
        self.secrets_seen: list[str] = []  # the client secrets the exchanges carried
        self.attachments: list[tuple[int, str, bytes]] = []  # (user, its CDN URL, the file) uploaded
        self.clock = time.monotonic  # Discord's clock for its rate limits (a test may share its own)
        self._window: tuple[int, float] | None = None  # (requests, seconds) let through before a 429
        self._times: list[float] = []
        self.held_until = 0.0
        self._hold_next = 0.0

    def limit(self, requests: int, seconds: float) -> None:
        self._window = (requests, seconds)

    def hold(self, seconds: float) -> None:
        """The next request is answered 429 with ``Retry-After: seconds``."""
        self._hold_next = seconds

    def _limited(self, method: str, path: str) -> tuple[int, Any] | None:
        now = self.clock()
        if now < self.held_until:
            self.invalid.append(f"{method} {path}: sent during a Retry-After")
            return 429, {"message": LIMITED, "retry_after": self.held_until - now, "global": False}
        seconds = self._hold_next
        if self._window is not None:
            requests, window = self._window
            self._times = [at for at in self._times if now - at < window] + [now]
            if len(self._times) > requests:
                seconds = max(seconds, window - (now - self._times[0]))
        if seconds:
            self._hold_next = 0.0
            self.held_until = now + seconds
            return 429, {"message": LIMITED, "retry_after": seconds, "global": False}
        return None

    @property
    def instances(self) -> dict[str, Instance]:
        return {kept["instance_id"]: Instance(kept) for kept in self.by_channel.values()}

    def instance(self, guild_id: int | None, channel_id: int, *users: int) -> Instance:
        """The channel's running instance (made as a launch makes it), with ``users`` joined."""
        location = f"gc-{guild_id}-{channel_id}" if guild_id else f"pc-{channel_id}"
        made = {"instance_id": f"i-{secrets.token_hex(8)}-{location}", "channel_id": channel_id, "guild_id": guild_id}
        kept = self.by_channel.setdefault(channel_id, {**made, "users": []})
        kept["users"].extend(user for user in users if user not in kept["users"])
        return Instance(kept)

    def code_for(self, user_id: int, scopes: tuple[str, ...] = ("identify",)) -> str:
        """What Discord's client gets from AUTHORIZE: a code for this user (the parent page hands it on)."""
        code = secrets.token_hex(15)
        self._codes[code] = (user_id, time.monotonic(), scopes)
        return code

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any] | None:
        """Discord's answer to a request of these routes, or ``None`` for another route."""
        ours = path in ("/oauth2/token", "/users/@me", "/users/@me/channels") or "/activity-instances/" in path
        limited = self._limited(method, path) if ours else None
        if limited is not None:
            self.seen.append(f"{method} {path}")
            return limited
        if path == "/oauth2/token" and method == "POST":
            self.seen.append(f"{method} {path}")
            return self._exchange(headers, body)
        if path == "/users/@me" and headers.get("Authorization", "").startswith("Bearer "):
            self.seen.append(f"{method} {path}")
            user_id = self.tokens.get(headers["Authorization"][len("Bearer ") :])
            if method != "GET" or user_id is None:
                return _error(401, {"message": "401: Unauthorized", "code": 0})
            payload = user_payload(user_id)
            return 200, {**payload, "global_name": self.names.get(user_id, payload["global_name"])}
        if path == "/users/@me/channels":
            self.seen.append(f"{method} {path}")
            return self._dm(method, path, headers, body)
        if path.startswith("/applications/") and path.endswith("/attachment"):
            self.seen.append(f"{method} {path}")
            return self._attachment(method, path, headers, body)
        prefix = f"/applications/{APP_ID}/activity-instances/"
        if path.startswith("/applications/") and "/activity-instances/" in path:
            self.seen.append(f"{method} {path}")
            if headers.get("Authorization") != f"Bot {self.bot_token}":
                return _error(401, {"message": "401: Unauthorized", "code": 0})
            instance = self.instances.get(path[len(prefix) :]) if path.startswith(prefix) else None
            if method != "GET" or instance is None:
                return _error(404, {"message": "Unknown Activity Instance", "code": 10085})
            return 200, instance.payload()
        return None

    def _attachment(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        """``POST /applications/{app}/attachment`` as Discord answers an Activity's user: the file on the CDN."""
        authorization = headers.get("Authorization", "")
        user_id = self.tokens.get(authorization[len("Bearer ") :]) if authorization.startswith("Bearer ") else None
        if user_id is None:
            return _error(401, {"message": "401: Unauthorized", "code": 0})
        if method != "POST" or path != f"/applications/{APP_ID}/attachment":
            return _error(404, {"message": "Unknown Application", "code": 10002})
        if len(body) > ATTACHMENT_LIMIT:
            return _error(413, {"message": "Request entity too large", "code": 40005})
        kind = headers.get("Content-Type", "")
        if not kind.startswith("multipart/form-data"):
            self.invalid.append(f"{method} {path}: not a multipart form")
            return _error(400, {"message": "Invalid Form Body", "code": 50035})
        form = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {kind}\r\n\r\n".encode() + body
        )
        parts = [part for part in form.iter_parts() if part.get_param("name", header="content-disposition") == "file"]
        filename = parts[0].get_filename() if len(parts) == 1 else None
        data = parts[0].get_payload(decode=True) if filename else None
        if not filename or not isinstance(data, bytes) or parts[0].get_content_type() not in IMAGES:
            self.invalid.append(f"{method} {path}: one image as the file part")
            return _error(400, {"message": "Invalid Form Body", "code": 50035})
        attachment_id = snowflake()
        where = f"ephemeral-attachments/{APP_ID}/{attachment_id}/{urllib.parse.quote(filename)}"
        url = f"https://cdn.discordapp.com/{where}?ex={int(time.time()) + 86400:x}"
        self.attachments.append((user_id, url, data))
        return 200, {
            "attachment": {
                "id": str(attachment_id),
                "filename": filename,
                "size": len(data),
                "url": url,
                "proxy_url": f"https://media.discordapp.net/{where}",
                "content_type": parts[0].get_content_type(),
            }
        }

    def _dm(self, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        """``POST /users/@me/channels`` as Discord answers a bot: its DM with the recipient (made on first use)."""
        if headers.get("Authorization") != f"Bot {self.bot_token}":
            return _error(401, {"message": "401: Unauthorized", "code": 0})
        if method != "POST":
            return _error(405, {"message": "405: Method Not Allowed", "code": 0})
        try:
            asked = json.loads(body) if headers.get("Content-Type", "").startswith("application/json") else None
        except ValueError:
            asked = None
        if not isinstance(asked, dict):
            return _error(400, {"message": "The request body contains invalid JSON.", "code": 50109})
        reasons = discord_api.check(method, f"https://discord.com/api/v10{path}", asked) if discord_api.found() else []
        recipient = asked.get("recipient_id")
        if not reasons and recipient is None:
            reasons = [f"{method} {path}: recipient_id: a bot opens a DM with one recipient"]
        if reasons:
            self.invalid.extend(reasons)
            return _error(400, {"message": "Invalid Form Body", "code": 50035})
        user_id = int(recipient)
        if user_id == APP_ID:
            return _error(400, {"message": "Invalid Recipient(s)", "code": 50033})
        channel_id = self.dms.setdefault(user_id, snowflake())
        return 200, {
            "id": str(channel_id),
            "type": 1,
            "last_message_id": None,
            "flags": 0,
            "recipients": [user_payload(user_id)],
        }

    def _exchange(self, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        if not headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            return _error(400, {"error": "unsupported_grant_type"})
        form = dict(urllib.parse.parse_qsl(body.decode()))
        self.secrets_seen.append(form.get("client_secret", ""))
        if form.get("client_id") != str(APP_ID) or form.get("client_secret") != self.client_secret:
            return _error(401, {"error": "invalid_client"})
        if form.get("grant_type") != "authorization_code":
            return _error(400, {"error": "unsupported_grant_type"})
        issued = self._codes.pop(form.get("code", ""), None)  # a code is used once
        if issued is None or time.monotonic() - issued[1] > CODE_LIFETIME:
            return _error(400, {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'})
        user_id, _at, scopes = issued
        access_token = secrets.token_hex(15)
        self.tokens[access_token] = user_id
        return 200, {
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME,
            "refresh_token": secrets.token_hex(15),
            "scope": " ".join(scopes),
        }
