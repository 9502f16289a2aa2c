"""The Activity's own session tokens: who signed in, in which instance and channel, until when.

A token is minted by ``POST /api/token`` once Discord has vouched for the user (the code exchange) and for
the instance (the bot token's look-up, which names the channel), and every later request carries it. It is
``payload.signature``, both base64url: the payload is JSON, the signature an HMAC-SHA256 under a key
derived from the client secret, so every process of a deployment (and the same process after a restart)
accepts the tokens of the others, and nobody without the secret can make one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from dataclasses import dataclass

LIFETIME = 4 * 3600.0  # seconds a session lasts; the page signs in again after that
MAX_TOKEN = 600  # characters: a longer "token" is refused before anything is decoded


class BadSession(ValueError):
    """A session token that is missing, malformed, forged or expired (``reason`` says which, for the log)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Session:
    user_id: int
    name: str  # the player's display name, as Discord gave it at sign-in
    guild_id: int  # where the channel's games are counted: its server, or OUTSIDE_SERVERS (the bot's DM)
    channel_id: int
    instance_id: str
    expires: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SessionKeys:
    def __init__(self, client_secret: str) -> None:
        # A key of its own, not the secret itself: the secret's uses stay apart (RFC 2104 keyed derivation).
        self._key = hmac.new(client_secret.encode(), b"pyramide activity sessions", hashlib.sha256).digest()

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).digest()

    def mint(self, session: Session) -> str:
        payload = json.dumps(
            {
                "u": str(session.user_id),
                "n": session.name,
                "g": str(session.guild_id),
                "c": str(session.channel_id),
                "i": session.instance_id,
                "e": int(session.expires),
            },
            separators=(",", ":"),
            ensure_ascii=False,
        ).encode()
        return f"{_b64(payload)}.{_b64(self._sign(payload))}"

    def read(self, token: object, now: float) -> Session:
        """The session a token carries; raises ``BadSession`` for anything but a genuine, unexpired one."""
        if not isinstance(token, str) or not token:
            raise BadSession("missing")
        if len(token) > MAX_TOKEN or token.count(".") != 1:
            raise BadSession("malformed")
        payload_text, signature_text = token.split(".")
        try:
            payload, signature = _unb64(payload_text), _unb64(signature_text)
        except (binascii.Error, ValueError):
            raise BadSession("malformed") from None
        if not hmac.compare_digest(signature, self._sign(payload)):
            raise BadSession("forged")
        try:
            fields = json.loads(payload)
            session = Session(
                int(fields["u"]),
                str(fields["n"]),
                int(fields["g"]),
                int(fields["c"]),
                str(fields["i"]),
                float(fields["e"]),
            )
        except (ValueError, KeyError, TypeError):
            raise BadSession("malformed") from None  # (signed by us, so never in practice)
        if session.expires <= now:
            raise BadSession("expired")
        return session
