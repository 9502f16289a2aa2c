"""A small Discord on 127.0.0.1 for whole-process tests: the real ``bot.py`` connects to it through
``DISCORD_API_BASE`` as it would to Discord (REST with aiohttp, the gateway over a websocket).

It does what the bot needs and what the tests look at: login, ``GET /gateway/bot``, IDENTIFY with
shards, READY and one GUILD_CREATE per server of the shard, heartbeats, INTERACTION_CREATE sent on the
shard that owns the server (``(guild_id >> 22) % shard_count``), interaction callbacks (JSON and
multipart), webhooks (followups, the original response), channel messages, threads, command sync,
the application's emojis (``tests/support/app_emojis.py``: Discord's limits, and a message whose buttons name
an emoji the application lacks is refused; unless ``new_application``, the application is one the bot
has run for before, with the card emojis already, as in ``tests/support/harness.py``), the application's
commands (``tests/support/app_commands.py``: read, and overwritten with Discord's entry point command kept, or
refused with 50240 when left out) and the LAUNCH_ACTIVITY answer (type 12: only a first answer, with
no message, to a command, a button or a modal; the Activity's instance in ``activity_instances``).
Anything else is answered 404 in Discord's error shape.

Places reached through a player's own install are modelled as Discord has them: the bot's DMs
(``dms``: the bot may post there, no threads), group DMs (``group_dms``) and channels of servers
without the bot (``foreign``: channel -> server), where every bot-token request is refused with 403
Missing Access (50001) and counted in ``unreachable``. An interaction's token serves its follow-ups
and edits for 15 minutes, and at most 5 follow-ups. In a server without the bot, a member lacking the
Use External Apps permission (the players in ``without_external_apps``) gets every answer ephemeral,
as Discord forces it; the buttons on such a message still work.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from pyramide_discord.emojis import emoji_images
from tests.support.app_commands import AppCommands, EntryPointOmitted
from tests.support.app_emojis import AppEmojis, Refused
from tests.support.fake_activity import ActivityDiscord, retry_after_header
from tests.support.harness import (
    APP_ID,
    BOT_PERMISSIONS,
    LAUNCH_ACTIVITY,
    MAX_FOLLOWUPS,
    OUTSIDE_APP_PERMISSIONS,
    PLAIN,
    TOKEN_LIFETIME,
    USE_EXTERNAL_APPS,
    Harness,
    launch_refusal,
    launched,
    message_payload,
    snowflake,
    user_payload,
)

BOT = {**user_payload(APP_ID), "username": "Pyramide", "global_name": "Pyramide", "bot": True}
user = user_payload


@dataclass
class Guild:
    id: int
    channels: tuple[int, ...]

    def payload(self) -> dict[str, Any]:
        """The server as GUILD_CREATE carries it: the harness's test server, with this id and channels."""
        server = Harness(":memory:")
        server.guild_id = self.id
        payload = server.guild_payload()
        template = payload["channels"][0]
        payload["channels"] = [{**template, "id": str(c), "name": f"games-{n}"} for n, c in enumerate(self.channels)]
        payload.update(unavailable=False, joined_at="2026-01-01T00:00:00+00:00", large=False)
        return payload


@dataclass
class Shard:
    shard_id: int
    shard_count: int
    socket: web.WebSocketResponse
    sequence: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # the bot has read READY and its servers
    synced: int | None = None  # the sequence of the last GUILD_CREATE sent

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.sequence += 1
        await self.socket.send_str(json.dumps({"op": 0, "t": event, "s": self.sequence, "d": data}))


@dataclass
class Answer:
    """What the bot sent for one interaction: callbacks, followups and edits of its original response."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)


def reply(data: Any, status: int = 200) -> web.Response:
    """JSON as Discord sends it: discord.py reads a body as JSON only for exactly this content type."""
    return web.Response(body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"})


class FakeDiscord:
    def __init__(self, guilds: list[Guild], *, new_application: bool = False) -> None:
        self.guilds = {g.id: g for g in guilds}
        self.shards: list[Shard] = []
        self.messages: dict[int, dict[str, Any]] = {}
        self.answers: dict[str, Answer] = {}
        self.channel_of: dict[str, int] = {}  # interaction token -> channel
        self.original: dict[str, int] = {}  # interaction token -> message id
        self.unknown: list[str] = []
        self.acknowledged: set[str] = set()
        self.thinking: set[str] = set()  # tokens of deferred answers still showing "thinking"
        self.callbacks: dict[str, int] = {}  # token -> first answers tried, refused ones (40060) included
        self.callback_seen = asyncio.Event()
        self.app_emojis = AppEmojis(APP_ID)
        if not new_application:  # a start then uploads nothing: only the test of the first upload pays for it
            self.app_emojis.made_before({name: image.png for name, image in emoji_images().items()})
        self.app_commands = AppCommands(APP_ID)  # ``enable_activities``: with Discord's entry point command
        self.interactions: dict[str, dict[str, Any]] = {}  # token -> the interaction as sent
        self.activity_instances: dict[int, dict[str, Any]] = {}  # channel -> the Activity's instance there
        self.refusals: list[str] = []  # why Discord refused an answer it would not take (a test expects none)
        self.dms: set[int] = set()  # the bot's DMs with players
        self.threads: dict[int, dict[str, Any]] = {}  # the threads the bot made, as Discord describes them
        self.deleted_messages: set[int] = set()  # messages someone deleted: the bot's edits get 404 10008
        self.group_dms: set[int] = set()
        self.foreign: dict[int, int] = {}  # channel of a server without the bot -> that server
        self.unreachable: list[str] = []  # bot-token requests to channels the bot is not in
        self.created: dict[str, float] = {}  # interaction token -> when it was sent
        self.followups: dict[str, int] = {}
        self.without_external_apps: set[int] = set()  # members of servers without the bot lacking the permission
        self.forced_ephemeral: set[str] = set()  # tokens whose answers Discord makes ephemeral
        self.activity = ActivityDiscord(instances=self.activity_instances)  # an Activity's sign-in: OAuth2
        self.port = 0
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------------ running
    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_get("/gateway", self._websocket)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        for shard in self.shards:
            await shard.socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    # ------------------------------------------------------------------ the gateway
    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(heartbeat=None, max_msg_size=0)
        await socket.prepare(request)
        await socket.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41_250}}))
        shard: Shard | None = None
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            frame = json.loads(message.data)
            if frame["op"] == 1:
                await socket.send_str(json.dumps({"op": 11}))
                # A heartbeat carries the last sequence the bot has read: once it is the last GUILD_CREATE's,
                # the bot has its servers in its cache and may be sent interactions.
                if shard is not None and shard.synced is not None and (frame.get("d") or 0) >= shard.synced:
                    shard.ready.set()
            elif frame["op"] == 2:
                shard_id, count = frame["d"].get("shard", [0, 1])
                shard = Shard(shard_id, count, socket)
                self.shards.append(shard)
                mine = [g for g in self.guilds.values() if (g.id >> 22) % count == shard_id]
                await shard.dispatch(
                    "READY",
                    {
                        "v": 10,
                        "user": BOT,
                        "guilds": [{"id": str(g.id), "unavailable": True} for g in mine],
                        "session_id": f"session-{snowflake()}",
                        "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway",
                        "shard": [shard_id, count],
                        "application": {"id": str(APP_ID), "flags": 0},
                    },
                )
                for guild in mine:
                    await shard.dispatch("GUILD_CREATE", guild.payload())
                shard.synced = shard.sequence
                await socket.send_str(json.dumps({"op": 1, "d": shard.sequence}))  # Discord's "heartbeat now"
        if shard is not None and shard in self.shards:
            self.shards.remove(shard)
        return socket

    def shard_for(self, guild_id: int) -> list[Shard]:
        return [s for s in self.shards if (guild_id >> 22) % s.shard_count == s.shard_id and not s.socket.closed]

    async def wait_for_shards(self, count: int, timeout: float = 30.0) -> None:
        """Until exactly ``count`` shard connections are open and their bots have read READY and every
        GUILD_CREATE (a heartbeat carrying their sequence came back), a killed process's gone."""

        async def ready() -> None:
            while sum(1 for s in self.shards if s.ready.is_set() and not s.socket.closed) != count or any(
                not s.ready.is_set() for s in self.shards
            ):
                await asyncio.sleep(0.05)

        await asyncio.wait_for(ready(), timeout)

    # ------------------------------------------------------------------ interactions
    def interaction(
        self,
        guild_id: int,
        channel_id: int,
        player: int,
        kind: int,
        data: dict[str, Any],
        message: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        interaction_id = snowflake()
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(APP_ID),
            "type": kind,
            "token": f"token-{interaction_id}",
            "version": 1,
            "guild_id": str(guild_id),
            "channel_id": str(channel_id),
            "channel": {"id": str(channel_id), "type": 0, "guild_id": str(guild_id), "name": "games"},
            "member": {
                "user": user(player),
                "roles": [],
                "joined_at": "2025-01-01T00:00:00+00:00",
                "deaf": False,
                "mute": False,
                "permissions": str(PLAIN),
                "flags": 0,
            },
            "locale": "en-US",
            "guild_locale": "en-US",
            "app_permissions": str(BOT_PERMISSIONS),
            "entitlements": [],
            "attachment_size_limit": 10_485_760,
            "authorizing_integration_owners": {"0": str(guild_id)},
            "context": 0,
            "data": data,
        }
        if message is not None:
            payload["message"] = message
        if channel_id in self.threads:  # a thread the bot made: Discord sends it as a thread channel
            payload["channel"] = dict(self.threads[channel_id])
        if channel_id in self.foreign:
            payload.update(
                guild_id=str(self.foreign[channel_id]),
                guild={"id": str(self.foreign[channel_id]), "locale": "en-US", "features": []},
                authorizing_integration_owners={"1": str(player)},
                app_permissions=str(OUTSIDE_APP_PERMISSIONS),
            )
            payload["channel"].update(guild_id=str(self.foreign[channel_id]), position=0, permission_overwrites=[])
            if player in self.without_external_apps:
                self.forced_ephemeral.add(payload["token"])
            else:
                payload["member"]["permissions"] = str(PLAIN | USE_EXTERNAL_APPS)
        elif channel_id in self.dms or channel_id in self.group_dms:
            for key in ("guild_id", "member", "guild_locale"):
                payload.pop(key)
            dm = channel_id in self.dms
            payload.update(
                user=user(player),
                app_permissions=str(OUTSIDE_APP_PERMISSIONS),
                authorizing_integration_owners={"1": str(player)},
                context=1 if dm else 2,
                channel={"id": str(channel_id), "type": 1, "recipients": [user(player)]}
                if dm
                else {
                    "id": str(channel_id),
                    "type": 3,
                    "name": None,
                    "icon": None,
                    "owner_id": str(player),
                    "recipients": [user(player), user(player + 1)],
                },
            )
        return payload

    def command(self, guild_id: int, channel_id: int, player: int, name: str, **options: Any) -> dict[str, Any]:
        kinds = {bool: 5, int: 4, str: 3}
        leaf = [{"name": k, "type": kinds[type(v)], "value": v} for k, v in options.items()]
        data = {
            "id": str(snowflake()),
            "name": "pyramide",
            "type": 1,
            "options": [{"name": name, "type": 1, "options": leaf}],
            "resolved": {},
            "guild_id": None,
        }
        return self.interaction(guild_id, channel_id, player, 2, data)

    def press(self, guild_id: int, player: int, message: dict[str, Any], custom_id: str) -> dict[str, Any]:
        data = {"custom_id": custom_id, "component_type": 2}
        return self.interaction(guild_id, int(message["channel_id"]), player, 3, data, message)

    async def send(self, payload: dict[str, Any], *, shards: list[Shard] | None = None) -> Answer:
        """Deliver an interaction on the shard(s) owning its server; its answer as it comes."""
        token = payload["token"]
        answer = self.answers.setdefault(token, Answer())
        self.interactions[token] = payload
        self.channel_of[token] = int(payload["channel_id"])
        if "message" in payload:
            self.original[token] = int(payload["message"]["id"])
        self.created[token] = time.monotonic()
        # Outside servers an interaction comes on shard 0 (as a DM's events do).
        targets = shards if shards is not None else self.shard_for(int(payload.get("guild_id") or 0))
        assert targets, "no shard connected for that server"
        for shard in targets:
            await shard.dispatch("INTERACTION_CREATE", payload)
        return answer

    async def answered_after(self, payload: dict[str, Any], timeout: float = 15.0) -> Answer:
        """Deliver an interaction and wait for its first answer."""
        await self.send(payload)
        return await self.answered(payload, timeout)

    async def tried(self, payload: dict[str, Any], count: int, timeout: float = 15.0) -> None:
        """Until ``count`` first answers to the interaction were tried (accepted or refused with 40060)."""

        async def until() -> None:
            while self.callbacks.get(payload["token"], 0) < count:
                self.callback_seen.clear()
                await self.callback_seen.wait()

        await asyncio.wait_for(until(), timeout)

    async def answered(self, payload: dict[str, Any], timeout: float = 15.0) -> Answer:
        answer = self.answers.setdefault(payload["token"], Answer())
        await asyncio.wait_for(answer.arrived.wait(), timeout)
        return answer

    # ------------------------------------------------------------------ REST
    def message(self, channel_id: int, body: dict[str, Any], message_id: int | None = None) -> dict[str, Any]:
        self.app_emojis.check_components(body)
        message_id = message_id or snowflake()
        old = self.messages.get(message_id, {})
        payload = message_payload(message_id, channel_id, body, old, BOT, body.get("flags", old.get("flags", 0)))
        self.messages[message_id] = payload
        return payload

    async def _body(self, request: web.Request) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
        if request.content_type.startswith("multipart/"):
            body: dict[str, Any] = {}
            files: list[tuple[str, bytes]] = []
            reader = await request.multipart()
            async for part in reader:
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                else:
                    files.append((part.filename or "", bytes(await part.read())))
            return body, files
        if request.can_read_body:
            return await request.json(), []
        return {}, []

    def _record(self, token: str, method: str, path: str, body: dict[str, Any], files: list) -> None:
        answer = self.answers.setdefault(token, Answer())
        answer.requests.append({"method": method, "path": path, "body": body, "files": files})
        answer.arrived.set()

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        if path in ("/oauth2/token", "/users/@me", "/users/@me/channels") or "/activity-instances/" in path:
            answered = self.activity.answer(request.method, path, dict(request.headers), await request.read())
            if answered is not None:
                status, body = answered
                response = reply(body, status)
                response.headers.update(retry_after_header(status, body))
                return response
        try:
            return await self._serve(request)
        except Refused as refused:
            return reply(refused.body, 400)

    async def _serve(self, request: web.Request) -> web.Response:
        path, method = "/" + request.match_info["path"], request.method
        body, files = await self._body(request)

        def ok(data: Any = None, status: int = 200) -> web.Response:
            return reply(data, status) if data is not None else web.Response(status=204)

        if path == "/users/@me":
            return ok(BOT)
        if path in ("/oauth2/applications/@me", "/applications/@me"):
            return ok(
                {
                    "id": str(APP_ID),
                    "name": "Pyramide",
                    "icon": None,
                    "description": "",
                    "summary": "",
                    "bot_public": True,
                    "bot_require_code_grant": False,
                    "owner": user(1),
                    "team": None,
                    "verify_key": "0" * 64,
                    "flags": 0,
                    "bot": BOT,
                }
            )
        if path in ("/gateway", "/gateway/bot"):
            return ok(
                {
                    "url": f"ws://127.0.0.1:{self.port}/gateway",
                    "shards": 1,
                    "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1},
                }
            )
        if match := re.fullmatch(r"/applications/\d+(/guilds/\d+)?/commands", path):
            if method == "GET" and not match[1]:
                return ok(self.app_commands.listing())
            try:
                return ok(self.app_commands.overwrite(body, guild=bool(match[1])))
            except EntryPointOmitted as omitted:
                return reply(omitted.body, 400)
        if match := re.fullmatch(r"/applications/\d+/emojis(/(\d+))?", path):
            if method == "GET" and not match[1]:
                return ok(self.app_emojis.listing())
            if method == "POST" and not match[1]:
                return ok(self.app_emojis.create(body))
            if method == "DELETE" and match[2] and self.app_emojis.delete(int(match[2])):
                return ok()
            return reply({"message": "Unknown Emoji", "code": 10014}, 404)
        if match := re.fullmatch(r"/interactions/(\d+)/([^/]+)/callback", path):
            token = match[2]
            self.callbacks[token] = self.callbacks.get(token, 0) + 1
            self.callback_seen.set()
            if token in self.acknowledged:  # as Discord: one first answer per interaction
                return reply({"message": "Interaction has already been acknowledged.", "code": 40060}, 400)
            kind, data = body.get("type"), body.get("data") or {}
            if kind == LAUNCH_ACTIVITY and (reason := launch_refusal(body, self.interactions.get(token, {}))):
                self.refusals.append(reason)
                return reply({"message": "Invalid Form Body", "code": 50035}, 400)
            self.acknowledged.add(token)
            self._record(token, method, path, body, files)
            if kind == LAUNCH_ACTIVITY:  # the Activity opens in the channel; no message is made or changed
                return ok(launched(self.activity_instances, self.interactions[token]))
            if kind in (4, 5) and token in self.forced_ephemeral:  # a new message, or "thinking": ephemeral
                data = {**data, "flags": int(data.get("flags") or 0) | 64}
            channel_id = self.channel_of.get(token, 0)
            resource: dict[str, Any] = {"type": kind}
            if kind in (4, 7):
                message = self.message(channel_id, data, self.original.get(token) if kind == 7 else None)
                self.original[token] = int(message["id"])
                resource["message"] = message
            elif kind == 5:  # "thinking": a message whose visibility is fixed now
                message = self.message(channel_id, {"content": "", "flags": int(data.get("flags") or 0)})
                self.original[token] = int(message["id"])
                self.thinking.add(token)
            return ok({"interaction": {"id": match[1], "type": 2}, "resource": resource})
        if match := re.fullmatch(r"/webhooks/(\d+)/([^/]+)(/messages/(@original|\d+))?", path):
            token = match[2]
            if time.monotonic() - self.created.get(token, time.monotonic()) > TOKEN_LIFETIME:
                return reply({"message": "Invalid Webhook Token", "code": 50027}, 401)
            if match[3] is None and method == "POST":
                if self.followups.get(token, 0) >= MAX_FOLLOWUPS:
                    message = "This interaction has hit the maximum number of follow up messages"
                    return reply({"message": message, "code": 40094}, 400)
                self.followups[token] = self.followups.get(token, 0) + 1
            self._record(token, method, path, body, files)
            if match[3] is None and method == "POST" and token in self.forced_ephemeral:
                body = {**body, "flags": int(body.get("flags") or 0) | 64}
            channel_id = self.channel_of.get(token, 0)
            if match[3] is None and method == "POST":
                if token in self.thinking:  # the first followup after a deferral replaces its "thinking" message
                    self.thinking.discard(token)
                    placeholder = self.original[token]
                    flags = self.messages.get(placeholder, {}).get("flags", 0)
                    return ok(self.message(channel_id, {**body, "flags": flags}, placeholder))
                return ok(self.message(channel_id, body))
            target = self.original.get(token) if match[4] == "@original" else int(match[4] or 0)
            if match[4] == "@original":
                self.thinking.discard(token)
            if method == "DELETE":
                self.messages.pop(target or 0, None)
                return ok()
            if method == "GET" and target in self.messages:
                return ok(self.messages[target])
            return ok(self.message(channel_id, body, target))
        if (match := re.match(r"/channels/(\d+)", path)) and (
            int(match[1]) in self.group_dms or int(match[1]) in self.foreign
        ):
            self.unreachable.append(f"{method} {path}")  # the bot is not in that channel
            return reply({"message": "Missing Access", "code": 50001}, 403)
        if (match := re.fullmatch(r"/channels/(\d+)/threads", path)) and int(match[1]) in self.dms:
            return reply({"message": "Cannot execute action on this channel type", "code": 50024}, 400)
        if match := re.fullmatch(r"/channels/(\d+)/messages(/(\d+))?", path):
            channel_id = int(match[1])
            if method == "POST":
                return ok(self.message(channel_id, body))
            if match[3] and int(match[3]) in self.deleted_messages:
                return reply({"message": "Unknown Message", "code": 10008}, 404)  # someone deleted it
            if method == "PATCH" and match[3]:
                return ok(self.message(channel_id, body, int(match[3])))
        if re.fullmatch(r"/channels/(\d+)/thread-members/(\d+)", path) and method == "PUT":
            return ok()  # a member added to a thread: 204, as Discord answers
        if match := re.fullmatch(r"/channels/(\d+)/threads", path):
            thread_id = snowflake()
            thread = {
                "id": str(thread_id),
                "type": body.get("type", 11),
                "parent_id": match[1],
                "guild_id": str(next(iter(self.guilds))),
                "name": body.get("name", "thread"),
                "owner_id": str(APP_ID),
                "member_count": 1,
                "message_count": 0,
                "flags": 0,
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": "2026-11-30T00:00:00+00:00",
                    "locked": False,
                },
            }
            self.threads[thread_id] = thread
            return ok(thread)
        self.unknown.append(f"{method} {path}")
        return reply({"message": "Unknown Resource", "code": 10000}, 404)
