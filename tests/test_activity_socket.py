"""The Activity's socket, spoken to as a page speaks to it (no browser: aiohttp's WebSocket client, with a
session minted as the sign-in mints one), in front of the real bot on a real database (tests/support/harness.py).

A press that plays nothing (no game, a move another process stored first, the solver busy) is answered on
the socket, which stays open: the page plays on. And a rule of the application is the board's and the
Activity's alike: changed once, in the application, both faces follow."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from pyramide import STOCK
from pyramide.i18n import t
from pyramide_bot.activity.sessions import Session
from pyramide_service import inputs
from pyramide_service.admission import Admission, PeeksAtDaily
from pyramide_service.finished import EventHidden
from pyramide_service.inputs import DifficultyExcludes
from pyramide_service.manager import GameManager
from tests.support.activity_edge import NoProxy, serve_activity
from tests.support.deals import kings_and_pairs, stuck_game
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, Harness, start

INSTANCE = "i-socket-test"


class Page:
    """One page's socket: ``ask`` sends a message and returns the answer to it (the position, with words)."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket

    async def ask(self, **message: Any) -> dict[str, Any]:
        await self.socket.send_str(json.dumps(message))
        while True:
            answer = json.loads(await self.socket.receive_str(timeout=30))
            if answer.get("t") == "state" and "words" in answer:  # (not a broadcast of another page's change)
                return answer

    async def version(self) -> int:
        game = (await self.ask(t="look"))["game"]
        assert game is not None
        return int(game["version"])


@pytest.fixture
async def page(harness: Harness) -> AsyncIterator[Page]:
    h = harness
    assert h.bot is not None
    edge = NoProxy()  # (no sign-in: the session is minted here)
    activity = await serve_activity(h, edge)
    port = edge.target
    token = activity.server.keys.mint(Session(OWNER, "Ana", GUILD_ID, CHANNEL_ID, INSTANCE, h.now[0] + 3600))
    try:
        async with aiohttp.ClientSession() as client, client.ws_connect(f"ws://127.0.0.1:{port}/api/ws") as socket:
            await socket.send_str(json.dumps({"t": "hello", "session": token, "instance": INSTANCE, "locale": "en-US"}))
            assert json.loads(await socket.receive_str(timeout=30))["t"] == "hello"
            assert json.loads(await socket.receive_str(timeout=30))["t"] == "state"
            yield Page(socket)
            assert not socket.closed
    finally:
        await activity.close()
    assert activity.server.refused == []


async def test_a_press_that_plays_nothing_is_answered_and_the_socket_stays_open(harness: Harness, page: Page) -> None:
    h = harness
    assert h.bot is not None
    # No game in the channel.
    answer = await page.ask(t="tap", spot="21", version=0)
    assert answer["words"] == [t("en", "error.no_game")] and answer["game"] is None
    await start(h, kings_and_pairs().code)
    # The solver too busy for a hint: nothing counted, said so.
    solver = h.bot.solver
    solver.has_room = lambda kind: False  # type: ignore[method-assign]
    try:
        answer = await page.ask(t="hint", version=await page.version())
    finally:
        del solver.has_room
    assert answer["words"] == [t("en", "error.solver_busy")]
    # A move another process stored first (two processes on one game for a moment, a rolling restart): this
    # one is out of date, and the page is sent the truth.
    other = GameManager(h.storage)
    async with other.turn(CHANNEL_ID) as turn:
        assert turn.live is not None
        await turn.apply(lambda game: game.tap(21))  # K♠, a king alone
    await other.close()
    answer = await page.ask(t="tap", spot="22", version=await page.version())
    assert answer["words"] == [t("en", "error.stale_board")]
    # The socket is open, and the next press plays on the stored game.
    answer = await page.ask(t="tap", spot="22", version=answer["game"]["version"])
    assert answer["game"]["pyramid"][21] is None and answer["game"]["selected"] == "22"
    stored = await h.storage.live_game(CHANNEL_ID)
    assert stored is not None and stored.actions == (21, 22)


async def test_a_rule_changed_in_the_application_changes_the_board_and_the_activity_alike(
    harness: Harness, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily's "no peeking", decided once (``Admission.peeks``): told it holds for every deal, the
    board's /pyramide new and the Activity's deal both refuse, with the same words, and deal nothing."""

    async def every_deal_is_todays(self: Admission, game: Any, player_id: int) -> PeeksAtDaily:
        return PeeksAtDaily()

    monkeypatch.setattr(Admission, "peeks", every_deal_is_todays)
    sent = await harness.command("new", code=kings_and_pairs().code)
    assert [s.content for s in sent] == [t("en", "error.daily_peek")] and sent[0].png is None
    answer = await page.ask(t="deal", options={"code": kings_and_pairs().code})
    assert answer["words"] == [t("en", "error.daily_peek")]
    assert await harness.storage.live_game(CHANNEL_ID) is None
    monkeypatch.undo()  # the rule as it is: both deal
    await start(harness, kings_and_pairs().code)
    assert (await page.ask(t="look"))["game"] is not None


async def test_a_hint_the_board_moved_on_from_is_said_alike_on_the_board_and_the_page(
    harness: Harness, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The board moved on while a hint was worked out (``MovedOn``): worded once, by the presenter, the
    board's /pyramide hint and the page's hint say the same."""
    h = harness
    assert h.bot is not None
    await start(h, kings_and_pairs().code)
    manager = h.bot.manager
    hint = manager.hint

    async def moved_meanwhile(live: Any, snapshot: Any, **options: Any) -> Any:
        async with manager.turn(CHANNEL_ID) as turn:  # another press lands while the hint is worked out
            await turn.apply(lambda game: game.tap(STOCK))
        return await hint(live, snapshot, **options)

    monkeypatch.setattr(manager, "hint", moved_meanwhile)
    sent = await h.command("hint")
    assert any(t("en", "hint.moved_on") in s.content for s in sent)  # (the board drawn as it is now)
    answer = await page.ask(t="hint", version=await page.version())
    assert answer["words"] == [t("en", "hint.moved_on")]


async def test_a_playback_rule_changed_in_the_application_changes_the_board_and_the_page_alike(
    harness: Harness, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Who may watch a finished game played back, decided once (``Admission.may_play_back``): told every
    deal is an event's, hidden, the board's Replay button and the page's replay refuse with the same words."""
    h = harness
    assert h.bot is not None
    await start(h, stuck_game().code)
    await h.command("draw")
    live = await h.bot.manager.live(CHANNEL_ID)
    assert live is not None
    board = next(s for s in await h.command("end") if s.png)

    async def every_deal_is_hidden(self: Admission, record: Any, channel_id: int) -> EventHidden:
        return EventHidden()

    monkeypatch.setattr(Admission, "may_play_back", every_deal_is_hidden)
    sent = await h.press(board.button("Replay my game"))
    assert sent[-1].ephemeral and sent[-1].content == t("en", "event.code_hidden")
    answer = await page.ask(t="mine", game=live.record.id)
    assert answer["words"] == [t("en", "event.code_hidden")] and "playback" not in answer
    monkeypatch.undo()  # the rule as it is: both play it back
    answer = await page.ask(t="mine", game=live.record.id)
    assert answer.get("playback") is not None


async def test_a_free_deals_options_read_in_the_application_change_the_board_and_the_page_alike(
    harness: Harness, page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/pyramide new``'s options read once (``inputs.free_deal``): a code that names no deal is refused with
    the same words on both faces; told every choice wants a difficulty with a code, both refuse and deal
    nothing."""
    sent = await harness.command("new", code="PY1-nonsense")
    answer = await page.ask(t="deal", options={"code": "PY1-nonsense"})
    assert len(sent) == 1 and answer["words"] == [sent[0].content] and "PY1-nonsense" in sent[0].content

    def difficulty_with_a_code(*given: Any) -> DifficultyExcludes:
        return DifficultyExcludes(code=True)

    monkeypatch.setattr(inputs, "free_deal", difficulty_with_a_code)
    sent = await harness.command("new")
    assert [s.content for s in sent] == [t("en", "error.difficulty_code")]
    answer = await page.ask(t="deal", options={})
    assert answer["words"] == [t("en", "error.difficulty_code")]
    assert await harness.storage.live_game(CHANNEL_ID) is None
