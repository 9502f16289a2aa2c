"""The Activity's door against the real server (the harness's bot on a SQLite file, its Activity signing in
against a Discord as strict as Discord, 429 and Retry-After included), each bound with the number the test
sets in ``Limits`` (docs/activity.md lists the production ones): bounded work, bounded connections, a
sign-in that cannot be turned against the bot, sessions that end, every message checked, every viewer
served on its own, the headers, costly actions limited (a locked database: test_activity_busy.py)."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from pyramide import Game
from pyramide.game import MAX_ACTIONS
from pyramide.i18n import t
from pyramide_bot.activity import Limits
from pyramide_service.play import Press
from tests.support import discord_internals as internals
from tests.support.activity_door import WAIT, Door, answer, closed, door_of, received, stalled_socket
from tests.support.database_dump import changed, dump
from tests.support.deals import kings_and_pairs
from tests.support.harness import CHANNEL_ID, GUILD_ID, OTHER_CHANNEL_ID, OWNER, STRANGER, Harness, user_payload
from tests.support.manager_turns import deal

pytestmark = pytest.mark.asyncio(loop_scope="module")
LIMITS = Limits(
    hello_wait=0.5,
    pending=3,
    per_session=2,
    per_user=3,
    recheck=0.1,
    backlog=8,
    hints=(2, 60.0),
    deals=(1, 60.0),
    playbacks=(1, 60.0),
    proxies=1,
)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def harness(tmp_path_factory: pytest.TempPathFactory, workers: Any) -> AsyncIterator[Harness]:
    h = Harness(str(tmp_path_factory.mktemp("door") / "pyramide.db"), workers=workers)
    h.activity = True
    await h.start()
    try:
        yield h
    finally:
        await h.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def door(harness: Harness) -> AsyncIterator[Door]:
    """A fresh Activity (its allowances full) on the module's bot, with the channel's game ended after."""
    h = harness
    async with door_of(h, LIMITS) as door:
        try:
            yield door
        finally:
            assert h.bot is not None
            async with h.bot.plays.end(Press(CHANNEL_ID, OWNER, "en", manage_messages=True), checked=False):
                pass
    assert door.discord.invalid == [], door.discord.invalid


# ---------------------------------------------------------------------------------------------- sign-in
async def test_a_sign_in_is_json_from_the_activitys_origin_and_checked_for_shape(door: Door) -> None:
    url, seen = f"{door.url}/api/token", len(door.discord.seen)
    form = {"code": "a", "instance_id": door.instance_id}
    async with door.client.post(url, data=form) as refused:  # what any other site's page can make a browser post
        assert refused.status == 415
    headers = {"Origin": "https://evil.example"}
    async with door.client.post(url, json=form, headers=headers) as refused:
        assert refused.status == 403
    nested = '{"code": ' + "[" * 2000 + "]" * 2000 + ', "instance_id": "i"}'
    for body in (nested, '{"code": 5, "instance_id": "i"}', '{"code": "a", "instance_id": []}', "[]", "{"):
        async with door.client.post(url, data=body, headers={"Content-Type": "application/json"}) as refused:
            assert refused.status == 400 and await refused.json() == {"refused": "malformed"}, body
            assert refused.headers["Cache-Control"] == "no-store"
    async with door.client.post(url, data="x" * 10_000, headers={"Content-Type": "application/json"}) as refused:
        assert refused.status == 413
    assert len(door.discord.seen) == seen  # none of it reached Discord


async def test_code_exchanges_are_limited_per_address_and_overall(door: Door) -> None:
    limits = LIMITS
    seen = len(door.discord.seen)
    for _ in range(limits.signin_burst):
        status, body, _headers = await door.exchange()
        assert (status, body["refused"]) == (200, "not_signed_in")  # a junk code: Discord said invalid_grant
    status, body, headers = await door.exchange(locale="hr")
    seconds = round(limits.signin_every)
    assert status == 429 and headers["Retry-After"] == str(seconds) and body["retry_after"] == seconds
    assert body["message"] == t("hr", "activity.refused.busy", seconds=seconds)
    assert len(door.discord.seen) == seen + limits.signin_burst
    # Other addresses: all of them together get no more than the overall burst.
    answers = [await door.exchange(f"198.51.100.{n}") for n in range(3 * limits.overall_burst)]
    assert sum(status == 200 for status, _b, _h in answers) == limits.overall_burst - limits.signin_burst
    assert len(door.discord.seen) == seen + limits.overall_burst
    door.h.now[0] += 60  # a minute later, the allowance has come back (overall_per_minute)
    assert (await door.exchange("192.0.2.7"))[0] == 200


async def test_discords_429_holds_every_later_exchange_for_its_retry_after(door: Door) -> None:
    door.discord.hold(30)
    status, body, headers = await door.exchange()
    assert status == 429 and headers["Retry-After"] == "30"
    assert body["message"] == t("en", "activity.refused.busy", seconds=30)
    seen = len(door.discord.seen)
    for n in range(20):  # nothing reaches Discord while its Retry-After holds (else ``invalid`` says so)
        status, body, _headers = await door.exchange(f"198.51.100.{n}")
        assert status == 429 and 0 < body["retry_after"] <= 30
    assert len(door.discord.seen) == seen
    door.h.now[0] += 31
    assert (await door.exchange("192.0.2.8"))[0] == 200
    assert len(door.discord.seen) == seen + 1


async def test_a_genuine_sign_in_still_works(door: Door) -> None:
    code = door.discord.code_for(OWNER)
    status, body, headers = await door.exchange(code=code)
    assert status == 200 and body["session"] and headers["Cache-Control"] == "no-store"


# ---------------------------------------------------------------------------------------------- connections
async def test_pings_do_not_extend_the_wait_for_a_hello(door: Door) -> None:
    ws = await door.client.ws_connect(f"{door.url}/api/ws", autoping=False)
    pinging = asyncio.ensure_future(_ping(ws))
    try:
        code, _reason = await closed(ws, within=LIMITS.hello_wait + WAIT)
    finally:
        pinging.cancel()
    assert code == 4003 and door.activity.server.refused[-1] == "socket:no hello"


async def _ping(ws: aiohttp.ClientWebSocketResponse) -> None:
    while not ws.closed:
        await ws.ping()
        await asyncio.sleep(LIMITS.hello_wait / 5)


async def test_sockets_are_capped_per_session_per_user_and_before_the_hello(door: Door) -> None:
    first, second = await door.playing(), await door.playing()
    third = await door.socket()
    assert (await closed(third))[0] == 1013  # a third page of the same player in the same instance
    other = door.discord.instance(GUILD_ID, OTHER_CHANNEL_ID, OWNER).instance_id
    elsewhere = await door.socket(door.token(instance_id=other), other)
    assert (await received(elsewhere))["t"] == "hello"
    again = await door.socket(door.token(instance_id=other), other)
    assert (await closed(again))[0] == 1013  # the player's fourth socket in all
    await first.close()
    assert (await received(second))["t"] == "state"  # (the others see who left)
    silent = [await door.client.ws_connect(f"{door.url}/api/ws") for _ in range(LIMITS.pending)]
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await door.client.ws_connect(f"{door.url}/api/ws")
    assert refused.value.status == 503
    for ws in (second, elsewhere, *silent):
        await ws.close()


async def test_a_silent_socket_is_closed_when_its_session_expires(door: Door) -> None:
    ws = await door.playing(door.token(seconds=10))
    door.h.now[0] += 11
    code, _reason = await closed(ws)  # without a message from the page
    assert code == 4001 and "socket:expired" in door.activity.server.refused


# ---------------------------------------------------------------------------------------------- rights
async def test_a_player_who_left_the_instance_is_refused_and_nothing_they_send_is_stored(door: Door) -> None:
    h = door.h
    assert h.bot is not None
    await deal(h.bot.manager, guild_id=GUILD_ID, channel_id=CHANNEL_ID, owner_id=STRANGER, game=kings_and_pairs())
    token = door.token(STRANGER)
    ws = await door.playing(token)
    before = await dump(h.db_path)
    door.discord.by_channel[CHANNEL_ID]["users"].remove(STRANGER)  # they left the call
    code, reason = await closed(ws)
    assert code == 4001 and reason == t("en", "activity.refused.not_in_instance")
    again = await door.socket(token)
    assert (await closed(again))[0] == 4001  # the same token no longer opens a socket
    assert changed(before, await dump(h.db_path)) == {}
    users = door.discord.by_channel[CHANNEL_ID]["users"]
    if STRANGER not in users:  # (Door.instance_id, asked for the second socket, joined them again)
        users.append(STRANGER)


async def test_a_failing_check_of_the_right_to_play_is_logged_once_and_the_checks_go_on(
    door: Door, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = await door.playing(door.token(STRANGER, seconds=3600))
    failures = 0

    async def failing(_instance_id: str) -> set[int] | None:  # (a fault no answer of Discord's makes)
        nonlocal failures
        failures += 1
        raise RuntimeError("the instance look-up broke")

    with caplog.at_level(logging.INFO):
        monkeypatch.setattr(door.activity.server.rights.signin, "instance_users", failing)
        async with asyncio.timeout(WAIT):
            while failures < 3:  # checked again and again, each failing
                await asyncio.sleep(LIMITS.recheck)
        monkeypatch.undo()
        users = door.discord.by_channel[CHANNEL_ID]["users"]
        users.remove(STRANGER)  # then they leave the call
        try:
            code, _reason = await closed(ws)  # the next check, although the socket stays silent
        finally:
            users.append(STRANGER)
    assert code == 4001 and "socket:left" in door.activity.server.refused
    warned = [r for r in caplog.records if "right to play could not be checked" in r.getMessage()]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING and warned[0].exc_info is None
    assert errors(caplog) == []


async def test_every_instance_is_checked_again_within_the_interval_past_the_burst(door: Door) -> None:
    # More instances than the burst and than one look-up a second serves in the interval: 40 in 1 s.
    limits = Limits(recheck=1.0, sockets=40, lookups=2, per_session=100, per_user=100)
    async with door_of(door.h, limits) as many:
        channels = [OTHER_CHANNEL_ID + 1 + n for n in range(limits.sockets)]
        instances = [many.discord.instance(GUILD_ID, channel, OWNER).instance_id for channel in channels]
        tokens = [many.token(instance_id=i, channel_id=c) for i, c in zip(instances, channels, strict=True)]
        sockets = [await many.socket(token, i) for token, i in zip(tokens, instances, strict=True)]
        for ws in sockets:
            assert (await received(ws))["t"] == "hello"
        for channel in channels:  # the player leaves every call
            many.discord.by_channel[channel]["users"].remove(OWNER)
        async with asyncio.timeout(2 * limits.recheck + WAIT):
            codes = [code for code, _reason in await asyncio.gather(*(closed(ws) for ws in sockets))]
        assert codes == [4001] * limits.sockets
        for channel in channels:
            del many.discord.by_channel[channel]


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_ban_ends_the_players_sessions_at_once(door: Door) -> None:
    h = door.h
    assert h.bot is not None
    h.bot.activity_app = door.activity  # (the bot's own Activity: its gateway events reach it)
    try:
        token = door.token(STRANGER)
        ws = await door.playing(token)
        internals.deliver_ban(h.bot, GUILD_ID, user_payload(STRANGER))
        code, _reason = await closed(ws)
        assert code == 4001 and "socket:removed" in door.activity.server.refused
        assert (await closed(await door.socket(token)))[0] == 4001
    finally:
        h.bot.activity_app = None


# ---------------------------------------------------------------------------------------------- messages
BAD_MESSAGES = [
    {"t": "deal", "options": {"pass_limit": True}},
    {"t": "deal", "options": {"difficulty": []}},
    {"t": "deal", "options": {"code": "x" * 101}},
    {"t": "deal", "options": {"again": 2**64, "same": True}},
    {"t": "deal", "options": {"thread": True}},
    {"t": "mine", "game": 2**64},
    {"t": "line", "game": "1"},
    {"t": "tap", "spot": "99", "version": 0},
    {"t": "tap", "spot": "21", "version": -1},
    {"t": "tap", "spot": 21, "version": 0},
    {"t": "hint", "version": True},
    {"t": "undo"},
    {"t": 5},
    {"t": "fly"},
    {"t": "look", "pad": 1},
]


async def test_every_message_outside_the_schema_is_refused_in_words_and_stores_nothing(
    door: Door, caplog: pytest.LogCaptureFixture
) -> None:
    h = door.h
    assert h.bot is not None
    ws = await door.dealt()
    before = await dump(h.db_path)
    with caplog.at_level(logging.INFO):
        for bad in BAD_MESSAGES:
            state = await answer(ws, bad)
            assert state["words"] == [t("en", "activity.malformed")], bad
        assert not ws.closed
        assert changed(before, await dump(h.db_path)) == {}
        state = await answer(ws, {"t": "tap", "spot": "21", "version": state["game"]["version"]})
        assert state["game"]["pyramid"][21] is None  # the same socket plays on
    assert errors(caplog) == []
    await ws.send_str("[" * 400 + "]" * 400)  # no JSON object: the page never sends it
    assert (await closed(ws))[0] == 4003


async def test_a_game_stops_at_its_action_cap_with_the_seed_style_message(door: Door) -> None:
    h = door.h
    assert h.bot is not None
    game = Game.from_code(kings_and_pairs().code)
    while len(game.actions) < MAX_ACTIONS - 1:
        game.tap("stock")  # always legal with unlimited passes
    ws = await door.dealt(game)
    state = await answer(ws, {"t": "tap", "spot": "stock", "version": game.version})
    live = await h.storage.live_game(CHANNEL_ID)
    assert live is not None and len(live.actions) == MAX_ACTIONS
    state = await answer(ws, {"t": "tap", "spot": "stock", "version": state["game"]["version"]})
    assert state["words"] == [t("en", "effect.action_limit", limit=MAX_ACTIONS)]
    live = await h.storage.live_game(CHANNEL_ID)
    assert live is not None and len(live.actions) == MAX_ACTIONS
    await ws.close()


# ---------------------------------------------------------------------------------------------- costs
async def test_hints_deals_and_replays_are_limited_per_player(door: Door) -> None:
    h = door.h
    assert h.bot is not None
    ws = await door.dealt()
    version = 0
    for _ in range(LIMITS.hints[0]):
        assert (await answer(ws, {"t": "hint", "version": version}))["words"] != []
    state = await answer(ws, {"t": "hint", "version": version})
    assert state["words"] == [t("en", "activity.slow_down", seconds=60)]
    live = await h.bot.manager.snapshot(CHANNEL_ID)
    assert live is not None
    replace = {"t": "deal", "options": {"replace": live.record.id}}
    await answer(ws, replace)  # a new game dealt over the running one
    dealt = await h.bot.manager.snapshot(CHANNEL_ID)
    assert dealt is not None and dealt.record.id != live.record.id
    state = await answer(ws, {"t": "deal", "options": {"replace": dealt.record.id}})
    assert state["words"] == [t("en", "activity.slow_down", seconds=60)]
    running = await h.bot.manager.snapshot(CHANNEL_ID)
    assert running is not None and running.record.id == dealt.record.id  # nothing dealt the second time
    replay = {"t": "mine", "game": live.record.id}  # the replaced game, finished
    assert (await answer(ws, replay))["words"] != [t("en", "activity.slow_down", seconds=60)]
    assert (await answer(ws, replay))["words"] == [t("en", "activity.slow_down", seconds=60)]
    await ws.close()


# ---------------------------------------------------------------------------------------------- viewers
async def test_a_stalled_reader_is_dropped_and_never_holds_up_the_others(door: Door) -> None:
    h = door.h
    assert h.bot is not None
    reader = await door.dealt()
    stalled = await stalled_socket(door)
    server = door.activity.server
    try:
        for _ in range(3000):  # changes, as the feed tells them: each one goes to every page
            await server.viewers.send(CHANNEL_ID)
            if server.viewers.dropped:
                break
            await asyncio.sleep(0)
        assert server.viewers.dropped == 1
        assert len(server.viewers.closing) == 1  # its close is kept (and watched) until it ends
        got = 0
        while got < 10:  # the reading page was sent every change meanwhile
            got += (await received(reader))["t"] == "state"
        await asyncio.wait_for(server.viewers.closing.wait(), WAIT)  # the peer that reads nothing is cut
        await _cut(stalled)
    finally:
        stalled.close()
        await reader.close()


async def _cut(raw: socket.socket) -> None:
    """Until the server cuts the connection (what it sent before drains first, then the end or a reset);
    a connection still open ``WAIT`` seconds after its last byte fails the test."""
    loop = asyncio.get_running_loop()
    try:
        while await asyncio.wait_for(loop.sock_recv(raw, 65536), WAIT):
            pass
    except ConnectionResetError:
        pass


# ---------------------------------------------------------------------------------------------- headers
async def test_every_answer_carries_the_headers_error_pages_included(door: Door) -> None:
    answers = {
        "GET /": 200,
        "GET /nothing-here": 404,
        "PUT /api/token": 405,
        "GET /api/config": 200,
        "GET /cards/en/classic.normal.green/1.png": 200,
        "GET /cards/en/classic.normal.green/0001.png": 404,  # one spelling a picture: one cache entry
    }
    for asked, status in answers.items():
        method, path = asked.split()
        async with door.client.request(method, door.url + path) as got:
            assert got.status == status, asked
            csp = got.headers["Content-Security-Policy"]
            assert "frame-ancestors https://discord.com https://*.discord.com https://*.discordsays.com" in csp
            assert got.headers["X-Content-Type-Options"] == "nosniff"
            if path.startswith("/api/") or status >= 400:
                assert got.headers["Cache-Control"] == "no-store", asked
