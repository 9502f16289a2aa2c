"""Drive the real bot offline: real discord.py objects, with only the network edge replaced.

Interactions are built from gateway payloads and fed to ``ConnectionState.parse_interaction_create``,
the same entry point the gateway uses; the real ``CommandTree`` and ``DynamicItem`` dispatch run.
What the bot would send to Discord is recorded by two doubles of the HTTP edge:
``RecordingAdapter`` (interaction responses, followups) and ``Hub.http_request`` (bot REST calls).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord

from pyramide_bot.app import PyramideBot
from pyramide_discord.emojis import emoji_images
from pyramide_service.storage.postgres import PostgresStorage
from pyramide_service.storage.sqlite import SQLiteStorage
from pyramide_service.workers import Workers
from tests.support import discord_api
from tests.support import discord_internals as internals
from tests.support.app_commands import ENTRY_POINT_KEPT, ENTRY_POINT_MESSAGE, AppCommands, EntryPointOmitted
from tests.support.app_emojis import AppEmojis, Refused
from tests.support.discord_internals import AsyncWebhookAdapter

APP_ID = 900_000_000_000_000_001
GUILD_ID = 800_000_000_000_000_001
CHANNEL_ID = 700_000_000_000_000_001
OTHER_CHANNEL_ID = 700_000_000_000_000_002
OWNER = 600_000_000_000_000_001
STRANGER = 600_000_000_000_000_002
ADMIN = 600_000_000_000_000_003
# Places the bot is reached in through a player's own install (user install), besides the server above:
DM_CHANNEL_ID = 700_000_000_000_000_101  # the bot's DM with a player (context 1: the bot is in it)
GROUP_DM_ID = 700_000_000_000_000_102  # a group DM (context 2: the bot is not in it)
FOREIGN_GUILD_ID = 800_000_000_000_000_002  # a server without the bot (context 0, user install only)
FOREIGN_CHANNEL_ID = 700_000_000_000_000_103  # a text channel of that server

MANAGE_MESSAGES = 1 << 13
MANAGE_GUILD = 1 << 5
PLAIN = (1 << 10) | (1 << 11) | (1 << 31)  # view channel, send messages, use application commands
USE_EXTERNAL_APPS = 1 << 50  # without it, Discord makes a user-installed app's answers in a server ephemeral
# What Discord gives an app where its bot is not a member, or in a DM: attach files, embed links, mention everyone.
OUTSIDE_APP_PERMISSIONS = (1 << 15) | (1 << 14) | (1 << 17)
# The bot's own permissions as invited (README): embed links, attach files, threads (create public,
# create private, send messages in threads).
BOT_PERMISSIONS = PLAIN | (1 << 14) | (1 << 15) | (1 << 35) | (1 << 36) | (1 << 38)

_ids = itertools.count(500_000_000_000_000_000)
# The loggers discord.py writes to at the two edges the harness replaces, with the same lines.
WEBHOOK_LOG = logging.getLogger("discord.webhook.async_")
GATEWAY_LOG = logging.getLogger("discord.gateway")


def snowflake() -> int:
    return next(_ids)


def user_payload(user_id: int) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": f"player{user_id % 1000}",
        "discriminator": "0",
        "global_name": f"Player {user_id % 1000}",
        "avatar": None,
    }


BOT_USER = user_payload(APP_ID)


def message_payload(
    message_id: int, channel_id: int, body: dict[str, Any], old: dict[str, Any], author: dict[str, Any], flags: int
) -> dict[str, Any]:
    """A message as Discord returns it after a request with ``body`` made it (or changed ``old``)."""
    attachments = (
        [
            {
                "id": str(snowflake()),
                "filename": a.get("filename", "pyramide.png"),
                "size": 1,
                "url": "https://cdn.invalid/a.png",
                "proxy_url": "https://cdn.invalid/a.png",
            }
            for a in body.get("attachments", [])
        ]
        if "attachments" in body
        else old.get("attachments", [])
    )
    return {
        "id": str(message_id),
        "channel_id": str(channel_id),
        "author": author,
        "content": body.get("content", old.get("content", "")),
        "components": body.get("components", old.get("components", [])),
        "embeds": body.get("embeds", old.get("embeds", [])),
        "attachments": attachments,
        "timestamp": "2026-11-30T00:00:00+00:00",
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "pinned": False,
        "type": 0,
        "flags": flags,
    }


@dataclass
class Sent:
    """One request the bot made to Discord."""

    method: str
    path: str
    data: dict[str, Any] | None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    token: str | None = None  # the interaction this answers (webhook requests)
    message_id: int | None = None  # the message this request made or changed, as Discord shows it
    url: str = ""  # the request's URL, ids filled in
    at: float = field(default_factory=time.perf_counter)
    in_flight: int = 0  # interactions the bot counted as being answered when it sent this

    @property
    def content(self) -> str:
        body = (self.data or {}).get("data", self.data) or {}
        return body.get("content") or ""

    @property
    def body(self) -> dict[str, Any]:
        data = self.data or {}
        return data.get("data", data) if "type" in data and "data" in data else data

    @property
    def flags(self) -> int:
        return int(self.body.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & 64)

    @property
    def custom_ids(self) -> list[str]:
        return [
            c["custom_id"]
            for row in self.body.get("components", [])
            for c in row.get("components", [])
            if "custom_id" in c
        ]

    def buttons(self) -> dict[str, dict[str, Any]]:
        """custom_id -> button payload."""
        return {
            c["custom_id"]: c
            for row in self.body.get("components", [])
            for c in row.get("components", [])
            if "custom_id" in c
        }

    def button(self, label: str) -> str:
        for custom_id, button in self.buttons().items():
            if button.get("label") == label:
                return custom_id
        raise AssertionError(f"no button {label!r} in {[b.get('label') for b in self.buttons().values()]}")

    @property
    def png(self) -> bytes | None:
        return next((data for name, data in self.files if name.endswith(".png")), None)


def said(sent: list[Sent]) -> str:
    """Everything the requests of ``sent`` say, one line each."""
    return "\n".join(s.content for s in sent)


@dataclass
class Fault:
    """How Discord fails the next matching interaction request: ``where`` is ``callback`` (the first
    answer), ``followup``, ``original`` (edits of the first answer) or ``any``; ``kind`` is
    ``unknown`` (404 Unknown interaction), ``network`` (connection reset), ``slow`` (``seconds``
    late, then answered as Discord would: refused when the 3 s for a first answer are over),
    ``forbidden`` (403 50013 Missing Permissions), ``invalid`` (400 50035 Invalid Form Body) or
    ``spent`` (the interaction has sent its 5 follow-ups: this one and every later one is refused with
    400 40094, as Discord counts them)."""

    where: str
    kind: str
    seconds: float = 0.0

    def matches(self, route: Any) -> bool:
        path = route.path
        place = (
            "callback"
            if path.endswith("/callback")
            else "original"
            if path.endswith("/messages/@original")
            else "followup"
        )
        return self.where in ("any", place)


ANSWER_WINDOW = 3.0  # seconds Discord waits for an interaction's first answer


def bad_request(refused: Refused) -> discord.HTTPException:
    return discord.HTTPException(SimpleNamespace(status=400, reason="Bad Request"), refused.body)  # type: ignore[arg-type]


TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token can be used for follow-ups and edits
MAX_FOLLOWUPS = 5  # follow-up messages an interaction may send


def refused(status: int, code: int, message: str) -> discord.HTTPException:
    kinds: dict[int, type[discord.HTTPException]] = {403: discord.Forbidden, 404: discord.NotFound}
    response = SimpleNamespace(status=status, reason=message)
    return kinds.get(status, discord.HTTPException)(response, {"code": code, "message": message})  # type: ignore[arg-type]


def unknown_interaction() -> discord.NotFound:
    return discord.NotFound(
        SimpleNamespace(status=404, reason="Not Found"),  # type: ignore[arg-type]
        {"code": 10062, "message": "Unknown interaction"},
    )


def discord_error(status: int, code: int, message: str) -> discord.HTTPException:
    """The exception discord.py raises for Discord's answer ``status`` with a JSON error ``code``."""
    response = SimpleNamespace(status=status, reason=message)
    body = {"code": code, "message": message}
    if status == 403:
        return discord.Forbidden(response, body)  # type: ignore[arg-type]
    if status == 404:
        return discord.NotFound(response, body)  # type: ignore[arg-type]
    if status >= 500:  # as discord.py raises once its own retries of a server error are spent
        return discord.DiscordServerError(response, body)  # type: ignore[arg-type]
    return discord.HTTPException(response, body)  # type: ignore[arg-type]


def already_acknowledged() -> discord.HTTPException:
    return discord_error(400, 40060, "Interaction has already been acknowledged.")


REFUSALS = {
    "forbidden": (403, 50013, "Missing Permissions"),
    "invalid": (400, 50035, "Invalid Form Body"),
}
LAUNCH_ACTIVITY = 12  # the interaction callback type that opens the application's Activity
LAUNCHABLE = (2, 3, 5)  # what Discord lets answer with it: a command, a message component, a modal's submission


def launch_refusal(body: dict[str, Any], interaction: dict[str, Any]) -> str | None:
    """Why Discord refuses ``body`` (a callback of type 12) as the answer to ``interaction``, or None: the
    answer carries no message, and only a command, a component or a modal submission may open an Activity."""
    if "data" in body:
        return "LAUNCH_ACTIVITY carries no message: its callback has a type and nothing else"
    if interaction.get("type") not in LAUNCHABLE:
        return f"LAUNCH_ACTIVITY does not answer an interaction of type {interaction.get('type')}"
    return None


def launched(instances: dict[int, dict[str, Any]], interaction: dict[str, Any]) -> dict[str, Any]:
    """Discord's answer to LAUNCH_ACTIVITY: the Activity's instance in the interaction's channel, the running
    one joined or a new one made (its id as the Embedded App SDK reads it, ``i-<launch>-gc-<server>-<channel>``
    or ``i-<launch>-pc-<channel>`` outside servers), with the player among its users."""
    channel_id = int(interaction["channel_id"])
    guild_id = interaction.get("guild_id")
    user_id = int((interaction.get("member") or interaction)["user"]["id"])
    instance = instances.get(channel_id)
    if instance is None:
        location = f"gc-{guild_id}-{channel_id}" if guild_id else f"pc-{channel_id}"
        instance = {"instance_id": f"i-{snowflake()}-{location}", "channel_id": channel_id, "guild_id": guild_id}
        instance["users"] = []
        instances[channel_id] = instance
    if user_id not in instance["users"]:
        instance["users"].append(user_id)
    instance_id = instance["instance_id"]
    answer = {"id": str(interaction["id"]), "type": interaction["type"], "activity_instance_id": instance_id}
    return {"interaction": answer, "resource": {"type": LAUNCH_ACTIVITY, "activity_instance": {"id": instance_id}}}


# The daily secret of a deployment the harness's bots have run in before (one a test process).
EARLIER_SECRET = secrets.token_hex(32)


class Hub:
    """The recorded side of Discord: every request, and the messages they made.

    Interaction answers follow Discord's rules: a first answer later than 3 s after the interaction
    is refused (404 Unknown interaction); a deferred command shows a "thinking" message whose
    visibility the deferral fixed, and the first followup replaces it with that visibility. Tests
    add ``faults`` to make the next requests fail as Discord's edge can.

    Unless ``new_application``, the application is one the bot has run for before: its card emojis are on
    Discord and the database the bot starts on keeps the daily secret of this test process (as a deployment
    keeps one), so that a start uploads nothing and finds today's daily already worked out in its worker."""

    def __init__(self, *, conform: bool = True, new_application: bool = False) -> None:
        self.guild_id = GUILD_ID
        self.new_application = new_application
        # Whether request bodies are checked against Discord's API description (benches leave it out of the
        # CPU they measure; without the description it is left out, and the run's summary says so).
        self.conforming = conform and discord_api.found()
        self.faults: list[Fault] = []
        self.rest_faults: list[tuple[str, str, int, str, int]] = []
        self.created: dict[str, float] = {}  # interaction token -> when Discord sent it
        self.thinking: dict[str, int] = {}  # token -> flags of a deferred answer still "thinking"
        self.sent: list[Sent] = []
        self.messages: dict[int, dict[str, Any]] = {}
        self.history: list[dict[str, Any]] = []  # every version of every message, oldest first
        self.original: dict[str, int] = {}  # interaction token -> message id
        self.threads: list[dict[str, Any]] = []  # every thread the bot made
        self.deleted_threads: list[int] = []  # the ids of those it deleted again
        self.waiters: dict[str, asyncio.Future[Sent]] = {}  # interaction token -> its first answer
        self.acknowledged: set[str] = set()  # tokens whose first answer (callback) Discord accepted
        self.in_flight: Callable[[], int] = lambda: 0  # the bot's count of interactions being answered
        # interaction token -> (channel, message the interaction came from); set by Harness._dispatch
        self.targets: dict[str, tuple[int, int | None]] = {}
        self.interactions: dict[str, dict[str, Any]] = {}  # interaction token -> the interaction as sent
        self.app_emojis = AppEmojis(APP_ID)  # the application's own emojis (kept across restarts)
        if not new_application:
            self.app_emojis.made_before({name: image.png for name, image in emoji_images().items()})
        self.app_commands = AppCommands(APP_ID)  # its commands (``enable_activities``: with Discord's entry point)
        self.activity_instances: dict[int, dict[str, Any]] = {}  # channel -> the Activity's instance running there
        # Channels the bot is not in (group DMs, channels of servers without the bot): a bot-token request
        # to one is refused with 403 Missing Access, and counted in ``unreachable``.
        self.outside: set[int] = {GROUP_DM_ID, FOREIGN_CHANNEL_ID}
        self.private_channels: set[int] = {DM_CHANNEL_ID}  # DMs: no threads
        self.unreachable: list[Sent] = []
        self.forced_ephemeral: set[str] = set()  # tokens whose answers Discord makes ephemeral
        self.followups: dict[str, int] = {}  # token -> follow-up messages sent
        self.deleted_messages: set[int] = set()  # messages someone deleted (the bot's edits get 404 10008)
        self.deleted_channels: set[int] = set()  # channels someone deleted (sending there gets 404 10003)
        # Why each request Discord's API description refuses was refused (the ``harness`` fixture expects none).
        self.invalid: list[str] = []

    # -- messages
    def message(self, channel_id: int, body: dict[str, Any], message_id: int | None = None) -> dict[str, Any]:
        try:
            self.app_emojis.check_components(body)
        except Refused as refused:
            raise bad_request(refused) from None
        message_id = message_id or snowflake()
        old = self.messages.get(message_id, {})
        # An edit keeps a message's flags (an ephemeral message stays ephemeral), as on Discord.
        payload = message_payload(message_id, channel_id, body, old, BOT_USER, body.get("flags", old.get("flags", 0)))
        self.messages[message_id] = payload
        self.history.append(json.loads(json.dumps(payload)))
        return payload

    def record(self, method: str, path: str, data: Any, files: Any, multipart: Any) -> Sent:
        if multipart:
            for part in multipart:
                if part.get("name") == "payload_json":
                    data = json.loads(part["value"])
        blobs = []
        for file in files or []:
            file.reset()
            blobs.append((file.filename, file.fp.read()))
            file.reset()
        sent = Sent(method, path, data, blobs, in_flight=self.in_flight())
        self.sent.append(sent)
        return sent

    def conform(self, route: Any, data: Any, multipart: Any) -> None:
        """Refuse, as Discord does (400 50035 Invalid Form Body), a request its published API description
        does not allow (``tests/support/discord_api.py``)."""
        if not self.conforming:
            return
        reasons = discord_api.check(route.method, route.url, discord_api.body_of(data, multipart))
        if reasons:
            self.invalid.extend(reasons)
            raise discord_error(*REFUSALS["invalid"])

    # -- the webhook edge (interaction responses and followups)
    def webhook(self, route: Any, data: Any, files: Any, multipart: Any) -> Any:
        sent = self.record(route.method, route.path, data, files, multipart)
        self.conform(route, data, multipart)
        self.launchable(route, sent)
        result = self._serve(route, sent)
        message = result.get("resource", {}).get("message") if isinstance(result, dict) else None
        message = message or (result if isinstance(result, dict) and "channel_id" in result else None)
        if message is not None:
            sent.message_id = int(message["id"])
        elif sent.token in self.original and route.path.endswith("/callback"):
            sent.message_id = self.original[sent.token]
        return result

    def launchable(self, route: Any, sent: Sent) -> None:
        """Refuse a LAUNCH_ACTIVITY answer Discord would not take (``launch_refusal``), as not given."""
        if not route.path.endswith("/callback") or (sent.data or {}).get("type") != LAUNCH_ACTIVITY:
            return
        reason = launch_refusal(sent.data or {}, self.interactions.get(route.webhook_token, {}))
        if reason is not None:
            self.invalid.append(reason)
            self.acknowledged.discard(route.webhook_token)
            raise discord_error(*REFUSALS["invalid"])

    def _serve(self, route: Any, sent: Sent) -> Any:
        token = route.webhook_token
        sent.token = token
        waiter = self.waiters.pop(token, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(sent)
        if route.path.endswith("/callback"):
            kind = sent.data["type"]  # type: ignore[index]
            interaction = {"id": str(route.webhook_id), "type": 2}
            channel_id, message_id = self.targets[token]
            if kind == LAUNCH_ACTIVITY:  # the Activity opens; no message is made or changed
                return launched(self.activity_instances, self.interactions[token])
            if kind in (4, 5) and token in self.forced_ephemeral:
                sent.body["flags"] = int(sent.body.get("flags") or 0) | 64
            if kind in (4, 7):  # new message / update the component's message
                message = self.message(channel_id, sent.body, message_id if kind == 7 else None)
                self.original[token] = int(message["id"])
                return {"interaction": interaction, "resource": {"type": kind, "message": message}}
            if kind == 5:  # "thinking": a message whose visibility is fixed now
                flags = int(sent.body.get("flags") or 0)
                message = self.message(channel_id, {"content": "", "flags": flags})
                self.original[token] = int(message["id"])
                self.thinking[token] = flags
            if kind == 6 and message_id:
                self.original[token] = message_id
            return {"interaction": interaction, "resource": {"type": kind}}
        channel_id, _ = self.targets[token]
        if route.path.endswith("/messages/@original"):
            message_id = self.original.get(token)
            if route.method == "GET":
                assert message_id is not None, "no original response yet"
                return self.messages[message_id]
            self.thinking.pop(token, None)
            if route.method == "DELETE":
                if message_id is not None:
                    self.messages.pop(message_id, None)
                return None
            message = self.message(channel_id, sent.body, message_id)
            self.original[token] = int(message["id"])
            return message
        if route.method == "POST":  # followup: the first one after a deferral replaces the "thinking" message
            if token in self.forced_ephemeral:
                sent.body["flags"] = int(sent.body.get("flags") or 0) | 64
            if token in self.thinking:
                body = {**sent.body, "flags": self.thinking.pop(token)}
                return self.message(channel_id, body, self.original[token])
            return self.message(channel_id, sent.body)
        if route.method == "DELETE":  # a followup message deleted
            self.messages.pop(int(route.url.rstrip("/").rsplit("/", 1)[1]), None)
        return None

    def standing_threads(self) -> list[int]:
        """The ids of the threads the bot made and has not deleted."""
        return [int(t["id"]) for t in self.threads if int(t["id"]) not in self.deleted_threads]

    def visible_flags(self, sent: Sent) -> int:
        """The flags of the message a request made or edited, as Discord shows it."""
        message = self.messages.get(sent.message_id or 0)
        return int(message.get("flags") or 0) if message else sent.flags

    def fail(self, where: str, kind: str, seconds: float = 0.0) -> None:
        self.faults.append(Fault(where, kind, seconds))

    async def edge(self, route: Any) -> None:
        """What Discord's edge does to an interaction request before it is served."""
        fault = next((f for f in self.faults if f.matches(route)), None)
        if fault is not None:
            self.faults.remove(fault)
            if fault.kind == "unknown":
                raise unknown_interaction()
            if fault.kind == "network":
                raise aiohttp.ClientConnectionError("Connection reset by peer")
            if fault.kind in REFUSALS:
                raise discord_error(*REFUSALS[fault.kind])
            if fault.kind == "spent":
                self.followups[route.webhook_token] = MAX_FOLLOWUPS
            else:
                await asyncio.sleep(fault.seconds)
        token = route.webhook_token
        created = self.created.get(token)
        late = created is not None and time.perf_counter() - created > ANSWER_WINDOW
        if route.path.endswith("/callback"):
            if token in self.acknowledged:  # one first answer per interaction, as Discord allows
                raise already_acknowledged()
            if late:
                raise unknown_interaction()
            self.acknowledged.add(token)
        if created is not None and time.perf_counter() - created > TOKEN_LIFETIME:
            raise refused(401, 50027, "Invalid Webhook Token")
        if route.method == "POST" and not route.path.endswith("/callback"):
            count = self.followups.get(route.webhook_token, 0)
            if count >= MAX_FOLLOWUPS:
                raise refused(400, 40094, "This interaction has hit the maximum number of follow up messages")
            self.followups[route.webhook_token] = count + 1

    def age(self, seconds: float) -> None:
        """Let ``seconds`` pass for every interaction token Discord has sent so far (the 15 minutes of
        follow-ups and edits, ``TOKEN_LIFETIME``, run on ``time.perf_counter``); the next interactions
        bring fresh tokens, as each button press does."""
        for token in self.created:
            self.created[token] -= seconds

    def first_answer(self, token: str) -> asyncio.Future[Sent]:
        """A future set by the first request that answers the interaction ``token`` (for a test to wait
        on instead of sleeping)."""
        for sent in self.sent:
            if sent.token == token:
                done: asyncio.Future[Sent] = asyncio.get_running_loop().create_future()
                done.set_result(sent)
                return done
        return self.waiters.setdefault(token, asyncio.get_running_loop().create_future())

    # -- the bot's REST edge
    def refuse(
        self, method: str, path: str, code: int = 50013, message: str = "Missing Permissions", status: int = 403
    ) -> None:
        """Make the bot's next REST request ``method path`` (a route template) fail with ``status`` (403
        Missing Permissions unless told; with code 429, 429 Too Many Requests, as discord.py reports a rate
        limit it gave up waiting on)."""
        self.rest_faults.append((method, path, code, message, status))

    async def http_request(self, route: Any, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
        fault = next((f for f in self.rest_faults if f[0] == route.method and f[1] == route.path), None)
        if fault is not None:
            self.rest_faults.remove(fault)
            if fault[2] == 429:
                raise discord.HTTPException(
                    SimpleNamespace(status=429, reason="Too Many Requests"),  # type: ignore[arg-type]
                    {"code": 0, "message": fault[3], "retry_after": 3600.0},
                )
            raise discord_error(fault[4], fault[2], fault[3])
        gone = [int(x) for x in re.findall(r"/([0-9]{5,})", route.url)]
        if route.path == "/channels/{channel_id}/messages/{message_id}" and gone[1] in self.deleted_messages:
            raise refused(404, 10008, "Unknown Message")  # deleted by someone in the server
        if route.path.startswith("/channels/{channel_id}") and gone[0] in self.deleted_channels:
            raise refused(404, 10003, "Unknown Channel")
        data = kwargs.get("json")
        sent = self.record(route.method, route.path, data, files, form)
        sent.url = route.url
        self.conform(route, data, form)
        path = route.path
        ids = [int(x) for x in re.findall(r"/([0-9]{5,})", route.url)]
        params = {"channel_id": ids[0] if ids else 0, "message_id": ids[1] if len(ids) > 1 else 0}
        if path.startswith("/channels/") and params["channel_id"] in self.outside:
            self.unreachable.append(sent)  # the bot token cannot reach a channel the bot is not in
            raise refused(403, 50001, "Missing Access")
        if path == "/channels/{channel_id}/threads" and params["channel_id"] in self.private_channels:
            raise refused(400, 50024, "Cannot execute action on this channel type")
        if path == "/channels/{channel_id}/threads" and route.method == "POST":
            thread = {
                "id": str(snowflake()),
                "type": data.get("type", 11),
                "guild_id": str(self.guild_id),
                "parent_id": str(params["channel_id"]),
                "name": data["name"],
                "owner_id": str(APP_ID),
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": "2026-11-30T00:00:00+00:00",
                    "locked": False,
                },
                "member_count": 1,
                "message_count": 0,
                "flags": 0,
            }
            self.threads.append(thread)
            return thread
        if path == "/channels/{channel_id}" and route.method == "DELETE":  # a thread deleted
            self.deleted_threads.append(params["channel_id"])
            return None
        if path == "/channels/{channel_id}/messages" and route.method == "POST":
            return self.message(int(params["channel_id"]), sent.body)
        if path == "/channels/{channel_id}/messages/{message_id}" and route.method == "PATCH":
            return self.message(int(params["channel_id"]), sent.body, int(params["message_id"]))
        if path.startswith("/applications/{application_id}/emojis"):
            return self.emoji_request(route.method, ids[1] if len(ids) > 1 else 0, data)
        if path.endswith("/commands"):
            return self.commands_request(route.method, path, data)
        return None

    def commands_request(self, method: str, path: str, data: Any) -> Any:
        """The application's commands: the global ones read, or overwritten (the entry point command kept or
        the overwrite refused, as Discord does); a server's overwritten."""
        if method == "GET" and path == "/applications/{application_id}/commands":
            return self.app_commands.listing()
        if method != "PUT":
            raise refused(405, 0, "405: Method Not Allowed")
        try:
            return self.app_commands.overwrite(data, guild="/guilds/" in path)
        except Refused as refusal:
            raise bad_request(refusal) from None
        except EntryPointOmitted:
            raise discord_error(400, ENTRY_POINT_KEPT, ENTRY_POINT_MESSAGE) from None

    def emoji_request(self, method: str, emoji_id: int, data: Any) -> Any:
        """The application-emoji routes: list, create (Discord's limits), delete."""
        if method == "GET":
            return self.app_emojis.listing()
        if method == "POST":
            try:
                return self.app_emojis.create(data or {})
            except Refused as refused:
                raise bad_request(refused) from None
        if method == "DELETE" and self.app_emojis.delete(emoji_id):
            return None
        raise discord.NotFound(
            SimpleNamespace(status=404, reason="Not Found"),  # type: ignore[arg-type]
            {"code": 10014, "message": "Unknown Emoji"},
        )

    # -- views of what was sent
    def responses(self) -> list[Sent]:
        return [
            s
            for s in self.sent
            if "/interactions/" in s.path
            or "/webhooks/" in s.path
            or s.path.startswith("/channels/{channel_id}/messages")
        ]

    def last(self) -> Sent:
        return self.responses()[-1]


class RecordingAdapter(AsyncWebhookAdapter):
    """Replaces discord.py's webhook HTTP adapter: the only network edge of interaction responses."""

    def __init__(self, hub: Hub) -> None:
        super().__init__()
        self.hub = hub

    async def request(
        self, route: Any, session: Any, *, payload: Any = None, multipart: Any = None, files: Any = None, **kwargs: Any
    ) -> Any:
        await asyncio.sleep(0)
        try:
            await self.hub.edge(route)
        except discord.HTTPException as error:
            self._log(route, error.status)
            raise
        self._log(route, 200)
        return self.hub.webhook(route, payload, files, multipart)

    @staticmethod
    def _log(route: Any, status: int) -> None:
        # What discord.py's own adapter logs for every request (its URL carries the interaction's token).
        WEBHOOK_LOG.debug(
            "Webhook ID %s with %s %s has returned status code %s", route.webhook_id, route.method, route.url, status
        )


class Harness:
    """A bot on a real SQLite file, and helpers to send it interactions as Discord would."""

    def __init__(
        self, db_path: str, hub: Hub | None = None, clock: list[float] | None = None, workers: Workers | None = None
    ) -> None:
        self.db_path = db_path
        self.workers = workers  # worker processes shared by the tests (their giver closes them); else the bot's own
        self.hub = hub or Hub()
        self.now = clock or [1_764_460_800.0]  # 2025-11-30T00:00:00Z, moved by tests
        self.bot: PyramideBot | None = None
        self.storage: Any = None  # a SQLiteStorage, or a PostgresStorage for a postgresql:// db_path
        self.locale = "en-US"
        self.guild_locale = "en-US"
        self.synchronous = "FULL"
        self.app_permissions = BOT_PERMISSIONS
        self.guild_id = GUILD_ID
        self.installer: int | None = None  # whose user install brings the bot outside its server (None: the user)
        self.foreign_permissions = USE_EXTERNAL_APPS  # a member's in the server without the bot
        self.activity = False  # whether the bot serves the Activity (ACTIVITY_PORT): its launch button on boards

    async def start(self) -> Harness:
        self.hub.guild_id = self.guild_id
        if self.db_path.startswith("postgresql://"):
            self.storage = PostgresStorage(self.db_path)
        else:
            self.storage = SQLiteStorage(self.db_path, synchronous=self.synchronous)
        await self.storage.open()
        if not self.hub.new_application:
            await self.storage.daily_secret(EARLIER_SECRET)  # kept if the database has one already
        bot = PyramideBot(self.storage, clock=lambda: self.now[0], workers=self.workers, offers_activity=self.activity)
        internals.log_in(bot, APP_ID, BOT_USER)
        internals.route_rest(bot, self.hub.http_request)
        self.hub.in_flight = lambda: bot.in_flight
        await internals.setup(bot)
        await bot.card_emojis.wait()  # the card emojis in step before the first interaction, as the tests expect
        internals.add_guild(bot, self.guild_payload())
        internals.record_webhooks(RecordingAdapter(self.hub))
        self.bot = bot
        return self

    async def stop(self) -> None:
        if self.bot is not None:
            await self.bot.changes.close()  # (its listening connection, on PostgreSQL)
            for cog in list(self.bot.cogs):
                await self.bot.remove_cog(cog)
            self.bot.release_workers()
        if self.storage is not None:
            await self.storage.close()

    async def restart(self) -> Harness:
        """New bot objects and a new storage connection on the same file, as after a crash."""
        await self.stop()
        return await self.start()

    # -- payloads
    def guild_payload(self) -> dict[str, Any]:
        def channel(channel_id: int, name: str) -> dict[str, Any]:
            return {
                "id": str(channel_id),
                "type": 0,
                "name": name,
                "position": 0,
                "guild_id": str(self.guild_id),
                "permission_overwrites": [],
                "nsfw": False,
                "parent_id": None,
            }

        return {
            "id": str(self.guild_id),
            "name": "Test server",
            "owner_id": str(ADMIN),
            "icon": None,
            "roles": [
                {
                    "id": str(self.guild_id),
                    "name": "@everyone",
                    "permissions": str(PLAIN),
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                }
            ],
            "channels": [channel(CHANNEL_ID, "general"), channel(OTHER_CHANNEL_ID, "games")],
            "threads": [],
            "members": [],
            "member_count": 3,
            "preferred_locale": self.guild_locale,
            "features": [],
            "emojis": [],
            "stickers": [],
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "premium_tier": 0,
            "system_channel_flags": 0,
            "nsfw_level": 0,
        }

    def _base(self, kind: int, user: int, channel_id: int, permissions: int) -> dict[str, Any]:
        payload = self._in_server(kind, user, channel_id, permissions)
        if channel_id in (DM_CHANNEL_ID, GROUP_DM_ID, FOREIGN_CHANNEL_ID):
            return self._elsewhere(payload, user, channel_id, permissions)
        return payload

    def _in_server(self, kind: int, user: int, channel_id: int, permissions: int) -> dict[str, Any]:
        interaction_id = snowflake()
        token = f"token-{interaction_id}"
        channel_type = 0 if channel_id in (CHANNEL_ID, OTHER_CHANNEL_ID) else 12
        channel: dict[str, Any] = {
            "id": str(channel_id),
            "type": channel_type,
            "guild_id": str(self.guild_id),
            "name": "general",
        }
        if channel_type == 12:
            channel.update(
                parent_id=str(CHANNEL_ID),
                owner_id=str(APP_ID),
                message_count=1,
                member_count=2,
                thread_metadata={
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": "2026-11-30T00:00:00+00:00",
                    "locked": False,
                },
            )
        return {
            "id": str(interaction_id),
            "application_id": str(APP_ID),
            "type": kind,
            "token": token,
            "version": 1,
            "guild_id": str(self.guild_id),
            "channel_id": str(channel_id),
            "channel": channel,
            "member": {
                "user": user_payload(user),
                "roles": [],
                "joined_at": "2025-01-01T00:00:00+00:00",
                "deaf": False,
                "mute": False,
                "permissions": str(permissions),
                "flags": 0,
            },
            "locale": self.locale,
            "guild_locale": self.guild_locale,
            "app_permissions": str(self.app_permissions),
            "entitlements": [],
            "attachment_size_limit": 10_485_760,
            "authorizing_integration_owners": {"0": str(self.guild_id)},
            "context": 0,
        }

    def _elsewhere(self, payload: dict[str, Any], user: int, channel_id: int, permissions: int) -> dict[str, Any]:
        """``payload`` (made for the server with the bot) as Discord sends it from a place reached through
        the player's own install: the bot's DM, a group DM, or a server without the bot."""
        owners = {"1": str(self.installer or user)}
        if channel_id == FOREIGN_CHANNEL_ID:
            payload.update(
                guild_id=str(FOREIGN_GUILD_ID),
                guild={"id": str(FOREIGN_GUILD_ID), "locale": self.guild_locale, "features": []},
                channel={
                    "id": str(channel_id),
                    "type": 0,
                    "guild_id": str(FOREIGN_GUILD_ID),
                    "name": "lounge",
                    "position": 0,
                    "permission_overwrites": [],
                    "nsfw": False,
                    "parent_id": None,
                },
                authorizing_integration_owners=owners,
                context=0,
                app_permissions=str(OUTSIDE_APP_PERMISSIONS),
            )
            payload["member"]["permissions"] = str(permissions | (self.foreign_permissions & USE_EXTERNAL_APPS))
            if not self.foreign_permissions & USE_EXTERNAL_APPS:
                self.hub.forced_ephemeral.add(payload["token"])
            return payload
        for key in ("guild_id", "member", "guild_locale"):
            payload.pop(key)
        payload["user"] = user_payload(user)
        payload["app_permissions"] = str(OUTSIDE_APP_PERMISSIONS)
        payload["authorizing_integration_owners"] = owners
        if channel_id == DM_CHANNEL_ID:
            payload["channel"] = {"id": str(channel_id), "type": 1, "recipients": [user_payload(user)]}
            payload["context"] = 1
        else:
            payload["channel"] = {
                "id": str(channel_id),
                "type": 3,
                "name": None,
                "icon": None,
                "owner_id": str(OWNER),
                "recipients": [user_payload(u) for u in (OWNER, STRANGER, ADMIN) if u != user],
            }
            payload["context"] = 2
        return payload

    def fire(self, payload: dict[str, Any], message_id: int | None = None) -> None:
        """Hand an interaction to the bot as the gateway would, without waiting for the answer."""
        assert self.bot is not None
        self.hub.targets[payload["token"]] = (int(payload["channel_id"]), message_id)
        self.hub.interactions[payload["token"]] = payload
        self.hub.created[payload["token"]] = time.perf_counter()
        self.deliver(payload)

    def deliver(self, payload: dict[str, Any]) -> None:
        """``INTERACTION_CREATE`` as the gateway hands it over, logged as discord.py's gateway logs it."""
        assert self.bot is not None
        GATEWAY_LOG.debug("For Shard ID %s: WebSocket Event: %s", 0, {"op": 0, "t": "INTERACTION_CREATE", "d": payload})
        internals.deliver_interaction(self.bot, payload)

    async def say(self, content: str, user: int = OWNER, channel_id: int = CHANNEL_ID) -> list[Sent]:
        """A chat message in a channel, as the gateway delivers it (only mentions carry content)."""
        assert self.bot is not None
        before = len(self.hub.sent)
        known = asyncio.all_tasks()
        internals.deliver_message(
            self.bot,
            {
                "id": str(snowflake()),
                "channel_id": str(channel_id),
                "guild_id": str(self.guild_id),
                "author": user_payload(user),
                "member": {"roles": [], "joined_at": "2025-01-01T00:00:00+00:00", "deaf": False, "mute": False},
                "content": content,
                "timestamp": "2026-11-30T00:00:00+00:00",
                "edited_timestamp": None,
                "tts": False,
                "mention_everyone": False,
                "mentions": [BOT_USER],
                "mention_roles": [],
                "attachments": [],
                "embeds": [],
                "pinned": False,
                "type": 0,
            },
        )
        while pending := asyncio.all_tasks() - known - {asyncio.current_task()}:
            known |= pending
            await asyncio.gather(*pending, return_exceptions=True)
        return self.hub.sent[before:]

    def press_payload(self, custom_id: str, message: dict[str, Any], user: int = OWNER) -> dict[str, Any]:
        payload = self._base(3, user, int(message["channel_id"]), PLAIN)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        payload["message"] = message
        return payload

    async def _dispatch(self, payload: dict[str, Any], message_id: int | None = None) -> list[Sent]:
        assert self.bot is not None
        self.hub.targets[payload["token"]] = (int(payload["channel_id"]), message_id)
        self.hub.interactions[payload["token"]] = payload
        self.hub.created[payload["token"]] = time.perf_counter()
        before = len(self.hub.sent)
        known = asyncio.all_tasks()
        self.deliver(payload)
        while True:
            pending = asyncio.all_tasks() - known - {asyncio.current_task()}
            if not pending:
                break
            known |= pending
            await asyncio.gather(*pending, return_exceptions=True)
        return self.hub.sent[before:]

    # -- what a user does
    async def command(
        self, path: str, user: int = OWNER, channel_id: int = CHANNEL_ID, permissions: int = PLAIN, **options: Any
    ) -> list[Sent]:
        """``/pyramide <path>`` with options, e.g. ``command("new", code="PY1-N-AAAAAAS")``; a path starting
        with "/" names another top-level command (``command("/pyramide-admin settings", ...)``)."""
        return await self._dispatch(self.command_payload(path, user, channel_id, permissions, **options))

    def command_payload(
        self, path: str, user: int = OWNER, channel_id: int = CHANNEL_ID, permissions: int = PLAIN, **options: Any
    ) -> dict[str, Any]:
        payload = self._base(2, user, channel_id, permissions)
        payload["data"] = self._command_data(path, options)
        return payload

    @staticmethod
    async def settle(known: set[asyncio.Task[Any]]) -> None:
        """Wait until every task started since ``known`` (``asyncio.all_tasks()`` taken before) has finished."""
        known = set(known)
        while pending := asyncio.all_tasks() - known - {asyncio.current_task()}:
            known |= pending
            await asyncio.gather(*pending, return_exceptions=True)

    async def queued(self, channel_id: int, requests: int, timeout: float = 10.0) -> None:
        """Wait until ``requests`` requests hold or wait for the channel's lock (instead of sleeping)."""
        assert self.bot is not None
        gates = self.bot.manager._gates

        async def until() -> None:
            while (gate := gates.get(channel_id)) is None or gate.users < requests:
                await asyncio.sleep(0)

        await asyncio.wait_for(until(), timeout)

    def answers(self, token: str) -> list[Sent]:
        return [s for s in self.hub.sent if s.token == token]

    async def autocomplete(
        self, path: str, focused: str, value: str, user: int = OWNER, channel_id: int = CHANNEL_ID
    ) -> list[Sent]:
        payload = self._base(4, user, channel_id, PLAIN)
        payload["data"] = self._command_data(path, {focused: value}, focused=focused)
        return await self._dispatch(payload)

    def _command_data(self, path: str, options: dict[str, Any], focused: str | None = None) -> dict[str, Any]:
        def option(name: str, value: Any) -> dict[str, Any]:
            if isinstance(value, bool):
                kind = 5
            elif isinstance(value, int):
                kind = 4
            elif isinstance(value, discord.abc.Snowflake):
                kind, value = 6, str(value.id)
            else:
                kind = 3
            entry: dict[str, Any] = {"name": name, "type": kind, "value": value}
            if name == focused:
                entry["focused"] = True
            return entry

        leaf = [option(k, v) for k, v in options.items()]
        names = path.split()
        root = "pyramide"
        if names[0].startswith("/"):  # another top-level command, e.g. "/pyramide-admin settings"
            root, names = names[0][1:], names[1:]
        node: list[dict[str, Any]] = leaf
        for depth, name in enumerate(reversed(names)):
            node = [{"name": name, "type": 1 if depth == 0 else 2, "options": node}]
        resolved: dict[str, Any] = {}
        users = {str(v.id): user_payload(v.id) for v in options.values() if isinstance(v, discord.abc.Snowflake)}
        if users:
            resolved = {"users": users}
        return {
            "id": str(snowflake()),
            "name": root,
            "type": 1,
            "options": node,
            "resolved": resolved,
            "guild_id": None,
        }

    async def press(
        self,
        custom_id: str,
        message_id: int | None = None,
        user: int = OWNER,
        channel_id: int | None = None,
        permissions: int = PLAIN,
        current: bool = False,
    ) -> list[Sent]:
        """Press a button as a client that shows the newest version of a message carrying it.

        With ``current``, the interaction carries the message as it is now (which may no longer
        hold that button), as Discord does when a client pressed an old render."""
        version = next(
            m
            for m in reversed(self.hub.history)
            if custom_id in _custom_ids(m) and (message_id is None or int(m["id"]) == message_id)
        )
        message = self.hub.messages[int(version["id"])] if current else version
        channel = channel_id or int(message["channel_id"])
        payload = self._base(3, user, channel, permissions)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        payload["message"] = message
        return await self._dispatch(payload, int(message["id"]))

    def board(self) -> dict[str, Any]:
        """The newest message that carries a game board (buttons starting with ``pyr:``)."""
        for message in reversed(list(self.hub.messages.values())):
            if any(c.startswith("pyr:") for c in _custom_ids(message)):
                return message
        raise AssertionError("no board message")

    def board_button(self, label: str) -> str:
        for row in self.board()["components"]:
            for button in row["components"]:
                if button.get("label") == label:
                    return button["custom_id"]
        raise AssertionError(f"no {label!r} button on the board")


def _custom_ids(message: dict[str, Any]) -> list[str]:
    return [
        c["custom_id"] for row in message.get("components", []) for c in row.get("components", []) if "custom_id" in c
    ]


def labels(message: dict[str, Any]) -> list[str | None]:
    """The button labels of a message, row by row."""
    return [c.get("label") for row in message["components"] for c in row["components"]]


async def start(h: Harness, code: str) -> Sent:
    """``/pyramide new code:<code>``; returns the board it posted."""
    sent = await h.command("new", code=code)
    assert sent[0].png is not None, [s.content for s in sent]
    return sent[0]
