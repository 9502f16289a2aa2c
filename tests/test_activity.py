"""Pyramide as a Discord Activity, in a real headless Chromium: the page loaded through the real Embedded
App SDK inside a Discord-like client page (its postMessage protocol), signed in against a Discord that
checks the code, the user and the instance, under Discord's Content-Security-Policy; the bot behind it
is the real bot on a real database (tests/support/harness.py). One browser for the module; every test ends
with no console error and no CSP violation."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from pyramide.daily import day_key, today
from pyramide.i18n import t
from pyramide.style import Style
from pyramide_bot.activity import Activity
from pyramide_bot.activity.server import BURST, CLOSE_FLOOD
from pyramide_bot.activity.sessions import Session, SessionKeys
from pyramide_discord.words import share_text
from pyramide_service.play import Press
from tests.support.activity_browser import Player, module_browser, open_activity
from tests.support.activity_edge import ActivityEdge, serve_activity
from tests.support.database_dump import changed, dump
from tests.support.deals import kings_and_pairs
from tests.support.fake_activity import CLIENT_SECRET, ActivityDiscord, Instance
from tests.support.harness import (
    CHANNEL_ID,
    DM_CHANNEL_ID,
    GROUP_DM_ID,
    GUILD_ID,
    OTHER_CHANNEL_ID,
    OWNER,
    STRANGER,
    Harness,
    snowflake,
    start,
)
from tests.support.manager_turns import deal

pytestmark = pytest.mark.asyncio(loop_scope="module")
WAIT = 5000  # ms a page is given to show what it was sent (the tests wait on what it shows, never sleep)
SEARCH = 20_000  # ms for a deal the solver searches for (a difficulty: a few seconds, more on a busy machine)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    async for chromium in module_browser():
        yield chromium


@dataclass
class ServedActivity:
    h: Harness
    edge: ActivityEdge
    activity: Activity
    browser: Any
    players: list[Player]

    async def open(self, user_id: int, **options: Any) -> Player:
        instance = options.pop("instance", None) or self.instance
        options = {"guild_id": GUILD_ID, "channel_id": CHANNEL_ID, **options}
        player = await open_activity(self.browser, self.edge, user_id, instance.instance_id, **options)
        self.players.append(player)
        return player

    @property
    def instance(self) -> Any:
        """The channel's instance (made with the owner and the stranger in it the first time)."""
        kept = self.edge.discord.by_channel.get(CHANNEL_ID)
        return Instance(kept) if kept else self.edge.discord.instance(GUILD_ID, CHANNEL_ID, OWNER, STRANGER)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory, workers: Any, browser: Any) -> AsyncIterator[ServedActivity]:
    """One bot serving the Activity for the module (a SQLite file of its own); each test deals its own game."""
    h = Harness(str(tmp_path_factory.mktemp("activity") / "pyramide.db"), workers=workers)
    h.activity = True  # the boards offer the launch button
    await h.start()
    assert h.bot is not None
    edge = await ActivityEdge(ActivityDiscord(instances=h.hub.activity_instances)).start()
    setup = ServedActivity(h, edge, await serve_activity(h, edge), browser, [])
    try:
        yield setup
    finally:
        await setup.activity.close()
        await edge.stop()
        await h.stop()
    assert h.hub.invalid == [], h.hub.invalid
    assert edge.discord.invalid == [], edge.discord.invalid


@pytest_asyncio.fixture(loop_scope="module")
async def served(shared: ServedActivity) -> AsyncIterator[ServedActivity]:
    """The module's bot with no page open, no game in the channel and the server's settings as they were."""
    h = shared.h
    assert h.bot is not None
    settings = await h.bot.settings.get(GUILD_ID)
    try:
        yield shared
        for player in shared.players:
            assert await player.clean() == [], player.problems
    finally:
        for player in shared.players:
            await player.close()
        shared.players.clear()
        assert h.bot is not None  # (a restart made a new one)
        await h.bot.settings.save(GUILD_ID, settings)
        async with h.bot.plays.end(Press(CHANNEL_ID, OWNER, "en", manage_messages=True), checked=False):
            pass


# kings_and_pairs: the bottom row K♠ A♠ Q♠ 2♠ J♠ 3♠ 10♠ (spots 21-27), then 4♠ 9♠ 5♠ 8♠ 6♠ 7♠ (15-20)...
def winning_taps() -> list[tuple[int, ...]]:
    """The deal cleared row by row, bottom up: a king alone, neighbours in pairs."""
    game = kings_and_pairs()
    moves: list[tuple[int, ...]] = []
    for row in range(6, -1, -1):
        spots = list(range(row * (row + 1) // 2, row * (row + 1) // 2 + row + 1))
        while spots:
            first = spots.pop(0)
            card = game.pyramid[first]
            assert card is not None
            moves.append((first,) if card.is_king else (first, spots.pop(0)))
    return moves


def board_edits(h: Harness) -> list[Any]:
    """The bot-token edits of the channel's board message (a press's answer edits through the interaction)."""
    board = h.board()["id"]
    return [s for s in h.hub.sent if s.method == "PATCH" and s.path.startswith("/channels/") and s.url.endswith(board)]


async def tap(player: Player, spot: str | int) -> None:
    # A real click where the card is; ``force`` skips Playwright's wait for two still animation frames,
    # which cost a fifth of a second a tap on a busy machine (the page has no animation under reduced motion).
    await player.card(spot).click(force=True)


STEPPED = "() => Number(document.getElementById('table').dataset.step) >= 2"


async def gone(player: Player, spot: str | int, timeout: float = WAIT) -> None:
    await player.card(spot).wait_for(state="hidden", timeout=timeout)


async def win_by_taps(player: Player) -> None:
    """kings_and_pairs won by taps, each waited for on the page (a tap on a position not drawn yet is stale)."""
    for move in winning_taps():
        if len(move) == 2:
            await tap(player, move[0])
            await player.frame.locator(f'[data-spot="{move[0]}"][aria-pressed="true"]').wait_for(timeout=WAIT)
        await tap(player, move[-1])
        for spot in move:
            await gone(player, spot)


async def test_a_deal_won_by_taps_alone_edits_the_board_and_shows_the_result(served: ServedActivity) -> None:
    h = served.h
    await start(h, kings_and_pairs().code)
    player = await served.open(OWNER)
    await player.card(21).wait_for(timeout=WAIT)
    await win_by_taps(player)
    ending = player.frame.locator("#ending")
    await ending.wait_for(timeout=WAIT)
    lines = await player.frame.locator("#ending-lines").inner_text()
    assert "280" in lines and "Achievement unlocked" in lines, lines
    assert await player.frame.locator('[data-action="new"]').is_visible()
    assert await player.frame.locator('[data-action="again"]').is_visible()
    assert await player.state("state") == "finished"
    # The same game, stored as a button press stores it: won, with every move.
    record = await h.storage.game(int(await player.state("game") or 0))
    assert record is not None and record.status == "won" and record.score == 280
    # The channel's board message follows (edited with the bot token): it shows the finished game.
    await served.activity.presses.edits.settle()
    edits = board_edits(h)
    assert edits, "the board was never edited"
    assert len(edits) < len(winning_taps()) + 7, "every move edited the board: the edits are not coalesced"
    assert "New game" in [c.get("label") for row in h.board()["components"] for c in row["components"]]
    # The finished board's other choices, in the page: the game as played and a winning line of its deal,
    # stepped through with the page's own cards (the full pyramid again at the first step), then stopped.
    assert not await player.frame.locator('[data-action="share"]').is_visible()  # (no daily)
    for kind, words in (("mine", "as it was played: 28 moves"), ("line", "being won in")):
        await player.frame.locator(f'[data-action="{kind}"]').click()
        await player.frame.locator(f'#table[data-playback="{kind}"][data-step="0"]').wait_for(timeout=SEARCH)
        assert await player.card(21).get_attribute("data-card") == "K♠"
        assert words in await player.words()
        await player.page.frames[1].wait_for_function(STEPPED, timeout=WAIT)  # (Playwright's polls may skip a step)
        await tap(player, 0)  # taps do nothing meanwhile (the apex: the last card a playback takes)
        await player.frame.locator('[data-action="stop"]').click()
        await player.frame.locator("#table:not([data-playback])").wait_for(timeout=WAIT)
        await ending.wait_for(timeout=WAIT)
        assert not await player.card(21).is_visible()  # the finished game drawn again
    # Same deal again: the same cards dealt anew in the channel, with a board of their own.
    await player.frame.locator('[data-action="again"]').click()
    await player.card(21).wait_for(timeout=WAIT)
    live = await h.storage.live_game(CHANNEL_ID)
    assert live is not None and live.code == record.code and live.id != record.id


@pytest.mark.parametrize("who", ["starter", "stranger"])
async def test_end_and_a_new_deal_follow_the_boards_rules(served: ServedActivity, who: str) -> None:
    """End, confirmed first, and a deal over a running game, asked first: the starter ends their game (a
    counted daily here: its share line is offered) and deals one of a difficulty; a stranger, whom the
    server lets play, may neither end it nor replace it until it sat idle past the server's limit."""
    h = served.h
    assert h.bot is not None
    if who == "starter":
        day = day_key(datetime.fromtimestamp(h.now[0], UTC).date())
        game = await deal(
            h.bot.manager, guild_id=GUILD_ID, channel_id=CHANNEL_ID, owner_id=OWNER, game=kings_and_pairs(), daily=day
        )
    else:
        await start(h, kings_and_pairs().code)
        settings = await h.bot.settings.get(GUILD_ID)
        await h.bot.settings.save(GUILD_ID, dataclasses.replace(settings, anyone_can_play=True))
    player = await served.open(OWNER if who == "starter" else STRANGER)
    await player.card(21).wait_for(timeout=WAIT)
    await player.frame.locator('[data-action="end"]').click()
    confirm = player.frame.locator("#confirm")
    await confirm.filter(has_text="End this game now?").wait_for(timeout=WAIT)
    await player.frame.locator('[data-action="end-yes"]').click()
    await confirm.wait_for(state="hidden", timeout=WAIT)
    if who == "starter":
        await player.frame.locator("#ending").wait_for(timeout=WAIT)
        stored = await h.storage.game(game.record.id)
        assert stored is not None and stored.status == "ended"
        share = player.frame.locator('[data-action="share"]')
        await share.click()
        line = await player.frame.locator("#share").inner_text()
        assert line and line in await player.frame.locator("#ending-lines").inner_text()
        assert await player.words() in ("Copied to the clipboard.", "Select the line above and copy it.")
    else:
        await player.frame.locator("#words").filter(has_text="can end this game").wait_for(timeout=WAIT)
        assert await h.storage.live_game(CHANNEL_ID) is not None
    running = await h.storage.live_game(CHANNEL_ID)
    # A new deal of the form's options: a difficulty (the starter's channel is free), or over the running game.
    await player.frame.locator('[data-action="deal-form"]').click()
    await player.frame.locator('#deal select[name="difficulty"]').select_option("easy")
    await player.frame.locator('[data-action="deal"]').click()
    if who == "stranger":
        replace = player.frame.locator('[data-action="replace"]')
        await replace.wait_for(timeout=WAIT)
        assert await replace.is_disabled() and "After 15 min without a move" in await player.words()
        await player.frame.locator('[data-action="keep"]').click()
        await replace.wait_for(state="hidden", timeout=WAIT)
        h.now[0] += 15 * 60  # idle past the server's limit: anyone here may replace it (as abandoned)
        await player.frame.locator('[data-action="deal"]').click()
        await player.frame.locator('[data-action="replace"]:not([disabled])').click()
    await player.frame.locator("#deal").wait_for(state="hidden", timeout=SEARCH)
    await player.card(21).wait_for(timeout=WAIT)
    live = await h.storage.live_game(CHANNEL_ID)
    assert live is not None and live.owner_id == (OWNER if who == "starter" else STRANGER)
    if h.bot.solver.known_rating(live.code) is None:  # none of that tier found in time (a busy machine): said so
        assert t("en", "error.difficulty_not_found") in json.dumps(h.board(), ensure_ascii=False)
    if running is not None:
        old = await h.storage.game(running.id)
        assert old is not None and old.status == "abandoned"
    assert h.board()["id"] == str(live.message_id)  # its board posted in the channel


async def test_the_launch_button_makes_the_instance_the_sign_in_finds(served: ServedActivity) -> None:
    h = served.h
    await start(h, kings_and_pairs().code)
    newcomer = 600_000_000_000_000_077  # in no instance yet
    instance = served.instance
    refused = await served.open(newcomer, instance=instance)
    await refused.frame.locator("#notice").filter(has_text="You are not in this Activity").wait_for(timeout=WAIT)
    # The board's launch button, pressed by the newcomer: Discord joins them to the channel's running instance.
    await h.press(h.board_button("Play in the Activity"), user=newcomer)
    assert h.hub.activity_instances[CHANNEL_ID]["instance_id"] == instance.instance_id
    player = await served.open(newcomer, instance=instance)
    await player.card(21).wait_for(timeout=WAIT)


async def test_each_kind_of_move_and_the_seed_messages(served: ServedActivity) -> None:
    h = served.h
    await start(h, kings_and_pairs().code)
    player = await served.open(OWNER)
    await player.card(21).wait_for(timeout=WAIT)
    words = player.frame.locator("#words")
    await tap(player, 0)  # covered at the start
    await words.filter(has_text="This card is blocked by another card").wait_for(timeout=WAIT)
    await tap(player, 22)  # A♠
    await tap(player, 24)  # 2♠: 1 + 2 is no 13; the 2 stays selected
    await words.filter(has_text="The sum must be 13").wait_for(timeout=WAIT)
    await player.frame.locator('[data-spot="24"][aria-pressed="true"]').wait_for(timeout=WAIT)
    await tap(player, 25)  # J♠: 2 + J
    await gone(player, 24)
    await gone(player, 25)
    assert await player.frame.locator("#score").inner_text() == "20"
    await tap(player, 21)  # K♠ alone
    await gone(player, 21)
    waste_before = await player.card("waste").get_attribute("data-card")
    await tap(player, "stock")
    await player.frame.locator(f'[data-spot="waste"]:not([data-card="{waste_before}"])').wait_for(timeout=WAIT)
    drawn = await player.card("waste").get_attribute("data-card")
    await player.frame.locator('[data-action="undo"]').click()
    await player.frame.locator(f'[data-spot="waste"][data-card="{waste_before}"]').wait_for(timeout=WAIT)
    await player.frame.locator('[data-action="hint"]').click()
    await words.filter(has_text="Hint").wait_for(timeout=WAIT)
    assert await player.frame.locator(".card.hinted").count() >= 1
    # Draw the whole stock, then turn the waste back.
    stock = player.card("stock")
    while "Draw" in (await stock.get_attribute("aria-label") or ""):
        version = await player.state("version")
        await stock.click()
        await player.frame.locator(f'#table:not([data-version="{version}"])').wait_for(timeout=WAIT)
    assert await stock.get_attribute("aria-label") == "Turn back"
    await stock.click()
    await player.frame.locator('[data-spot="stock"][aria-label^="Draw"]').wait_for(timeout=WAIT)
    assert drawn is not None
    live = await h.bot.manager.snapshot(CHANNEL_ID) if h.bot else None
    assert live is not None and live.game.passes == 1 and live.game.score == 30


async def test_a_board_press_and_a_new_deal_reach_the_page(served: ServedActivity) -> None:
    h = served.h
    await start(h, kings_and_pairs().code)
    player = await served.open(OWNER)
    await player.card(21).wait_for(timeout=WAIT)
    await h.press(h.board_button("K♠"))
    await gone(player, 21, timeout=1000)  # within a second
    await h.command("draw")  # a typed command too
    await player.frame.locator('[data-spot="stock"][aria-label="Draw (22)"]').wait_for(timeout=1000)
    # A new deal made on the board reaches the page as a move does: "End it and deal a new one" (a game runs)...
    game_id = await player.state("game")
    prompt = (await h.command("new", code=kings_and_pairs().code))[-1]
    await h.press(prompt.button("End it and deal a new one"))
    await player.frame.locator(f'#table:not([data-game="{game_id}"])').wait_for(timeout=1000)
    await player.card(21).wait_for(timeout=1000)
    # ... and "Same deal again" under the board of a game that ended.
    game_id = await player.state("game")
    await h.press(h.board_button("End"))
    await player.frame.locator("#ending").wait_for(timeout=1000)
    await h.press(h.board_button("Same deal again"))
    await player.frame.locator(f'#table:not([data-game="{game_id}"])').wait_for(timeout=1000)
    await player.card(21).wait_for(timeout=1000)


async def test_two_pages_one_plays_and_one_watches_by_the_servers_setting(served: ServedActivity) -> None:
    h = served.h
    await start(h, kings_and_pairs().code)
    owner = await served.open(OWNER, name="Ana")
    stranger = await served.open(STRANGER, name="Bo")
    await stranger.card(21).wait_for(timeout=WAIT)
    players = stranger.frame.locator("#players")
    await players.filter(has_text="Ana (plays)").wait_for(timeout=WAIT)
    await players.filter(has_text="Bo (watches)").wait_for(timeout=WAIT)
    assert await stranger.state("role") == "watch" and await owner.state("role") == "play"
    stored = await stored_moves(h)
    await tap(stranger, 21)
    await stranger.frame.locator("#words").filter(has_text="You are watching").wait_for(timeout=WAIT)
    assert await stored_moves(h) == stored  # the watcher's tap stored nothing
    await tap(owner, 21)
    await gone(stranger, 21)  # the watcher sees the player's move live
    # The server lets anyone play: the watcher becomes a player.
    settings = await h.bot.settings.get(GUILD_ID) if h.bot else None
    assert settings is not None
    await h.bot.settings.save(GUILD_ID, dataclasses.replace(settings, anyone_can_play=True))  # type: ignore[union-attr]
    await tap(stranger, 22)
    await tap(stranger, 23)
    await gone(owner, 22)
    await gone(owner, 23)


async def stored_moves(h: Harness) -> int:
    live = await h.storage.live_game(CHANNEL_ID)
    return len(live.actions) if live is not None else -1


SOCKET = """([session, instance, extra]) => new Promise((resolve) => {
  const socket = new WebSocket(`ws://${location.host}/api/ws`);
  socket.onopen = () => {
    socket.send(JSON.stringify({ t: "hello", session, instance, locale: "en-US" }));
    if (extra) socket.send(extra);
  };
  socket.onclose = (event) => resolve([event.code, event.reason]);
})"""


async def test_refusals_store_nothing(served: ServedActivity) -> None:
    h = served.h
    await start(h, kings_and_pairs().code)
    stranger = 600_000_000_000_000_099  # not in the instance
    outsider = await served.open(stranger)
    await outsider.frame.locator("#notice").filter(has_text="You are not in this Activity").wait_for(timeout=WAIT)
    player = await served.open(OWNER)
    await player.card(21).wait_for(timeout=WAIT)
    frame = player.page.frames[1]
    instance = served.instance
    keys = SessionKeys(CLIENT_SECRET)
    genuine = Session(OWNER, "Ana", GUILD_ID, CHANNEL_ID, instance.instance_id, h.now[0] + 3600)
    other = served.edge.discord.instance(GUILD_ID, OTHER_CHANNEL_ID, OWNER).instance_id
    refusals = {
        "missing": ("", instance.instance_id, ""),
        "forged": (SessionKeys("another secret").mint(genuine), instance.instance_id, ""),
        "expired": (keys.mint(dataclasses.replace(genuine, expires=h.now[0] - 1)), instance.instance_id, ""),
        "another channel's": (
            keys.mint(dataclasses.replace(genuine, channel_id=OTHER_CHANNEL_ID, instance_id=other)),
            instance.instance_id,
            "",
        ),
    }
    stored = await stored_moves(h)
    for why, (token, instance_id, extra) in refusals.items():
        code, _reason = await frame.evaluate(SOCKET, [token, instance_id, extra])
        assert code == 4001, why
    tap_21 = '{"t": "tap", "spot": "21", "version": 0, "pad": "' + "x" * 2000 + '"}'
    code, _reason = await frame.evaluate(SOCKET, [keys.mint(genuine), instance.instance_id, tap_21])
    assert code == 1009  # too big: closed, not read
    code, _reason = await frame.evaluate(SOCKET, [keys.mint(genuine), instance.instance_id, "{not json"])
    assert code == 4003
    assert await stored_moves(h) == stored
    assert await h.storage.game(int(await player.state("game") or 0)) is not None
    # The bot is unharmed: the page plays on.
    await tap(player, 21)
    await gone(player, 21)


FLOOD = """([session, instance, messages]) => new Promise((resolve) => {
  const socket = new WebSocket(`ws://${location.host}/api/ws`);
  socket.onopen = () => {
    socket.send(JSON.stringify({ t: "hello", session, instance, locale: "en-US" }));
    for (const message of messages) socket.send(message);
  };
  socket.onclose = (event) => resolve([event.code, event.reason]);
})"""


async def test_a_flood_closes_the_socket_and_stores_nothing(served: ServedActivity) -> None:
    h = served.h
    await start(h, kings_and_pairs().code)
    player = await served.open(OWNER)
    await player.card(21).wait_for(timeout=WAIT)
    genuine = Session(OWNER, "Ana", GUILD_ID, CHANNEL_ID, served.instance.instance_id, h.now[0] + 3600)
    stored = await stored_moves(h)
    # Over the limit (a burst of BURST, then RATE a second): taps against a position the page never had,
    # each refused as out of date until the flood closes the socket; none is stored.
    taps = ['{"t": "tap", "spot": "21", "version": 99}'] * (BURST + 30)
    code, _reason = await player.page.frames[1].evaluate(
        FLOOD, [SessionKeys(CLIENT_SECRET).mint(genuine), served.instance.instance_id, taps]
    )
    assert code == CLOSE_FLOOD
    assert served.activity.server.refused[-1] == "socket:flood"
    assert await stored_moves(h) == stored
    await tap(player, 21)  # the page of the same player plays on
    await gone(player, 21)
    assert await stored_moves(h) == stored + 1


async def test_a_restart_while_the_page_is_open_loses_nothing(served: ServedActivity) -> None:
    h = served.h
    await start(h, kings_and_pairs().code)
    player = await served.open(OWNER)
    await player.card(21).wait_for(timeout=WAIT)
    await tap(player, 21)
    await gone(player, 21)
    await served.activity.close()  # the bot stops: the page's socket closes
    await h.restart()
    served.activity = await serve_activity(h, served.edge)
    # The page reconnects by itself with its session (signed with the same secret) and plays on.
    await tap(player, 22)
    await player.frame.locator('[data-spot="22"][aria-pressed="true"]').wait_for(timeout=WAIT)
    await tap(player, 23)
    await gone(player, 23)
    live = await h.storage.live_game(CHANNEL_ID)
    assert live is not None and live.score == 30 and live.removed == 3


async def test_a_forged_instance_id_never_reaches_discord(served: ServedActivity) -> None:
    """The instance id goes into a bot-token URL: one that is not an id as Discord makes them (a path, a
    query) is refused before any request, so the page cannot make the bot call a route of its choosing."""
    seen = len(served.edge.discord.seen)
    async with aiohttp.ClientSession() as client:
        for forged in ("../../users/@me", "i-1?limit=1000", "i-1/../../guilds/1", "x" * 101):
            async with client.post(
                f"{served.edge.origin}/api/token", json={"code": "a-code", "instance_id": forged}
            ) as answer:
                assert answer.status == 400 and (await answer.json()) == {"refused": "malformed"}, forged
    assert served.edge.discord.seen[seen:] == []


async def test_each_viewer_sees_their_own_style(served: ServedActivity) -> None:
    """A player's /pyramide style (#41) is how the Activity draws the table for them: their deck and corners
    on the cards, their table's colours; another viewer of the same game keeps the default style."""
    h = served.h
    await start(h, kings_and_pairs().code)
    assert h.bot is not None
    chosen = Style.parse("four-colour", "large", "dark")
    await h.bot.styles.save(OWNER, chosen)
    try:
        player = await served.open(OWNER)
        await player.card(21).wait_for(timeout=WAIT)
        assert await player.state("style") == "four-colour.large.dark"
        mine = await player.card(21).locator("img").get_attribute("src")
        assert mine is not None and "/four-colour.large.dark/" in mine
        async with aiohttp.ClientSession() as client:
            pictures = []
            for style in ("four-colour.large.dark", "classic.normal.green"):
                async with client.get(f"{served.edge.origin}/{mine.replace('four-colour.large.dark', style)}") as got:
                    assert got.status == 200 and got.content_type == "image/png"
                    pictures.append(await got.read())
            assert pictures[0] != pictures[1]  # the card is drawn in the player's own style
            async with client.get(f"{served.edge.origin}/cards/en/plaid.huge.pink/0.png") as got:
                assert got.status == 404  # a style that is no choice draws nothing
    finally:
        await h.bot.styles.save(OWNER, Style())  # the module's other tests draw the default


async def test_the_activity_opens_on_the_bots_dm_game(served: ServedActivity) -> None:
    """The bot's DM offers the Activity: its launch press makes the DM's instance, which names the channel only
    as a private one, and the sign-in finds it is the bot's DM with the player (the DM Discord gives the bot for
    them); the page plays the DM's game and its board follows."""
    h = served.h
    await h.command("new", channel_id=DM_CHANNEL_ID, code=kings_and_pairs().code)
    assert h.bot is not None
    try:
        await h.press(h.board_button("Play in the Activity"))
        instance = Instance(h.hub.activity_instances[DM_CHANNEL_ID])
        player = await served.open(OWNER, instance=instance, guild_id=None, channel_id=DM_CHANNEL_ID)
        await player.card(21).wait_for(timeout=WAIT)
        await tap(player, 21)
        await gone(player, 21)
        live = await h.storage.live_game(DM_CHANNEL_ID)
        assert live is not None and live.actions == (21,) and live.guild_id == 0  # counted outside servers
        await served.activity.presses.edits.settle()
        assert board_edits(h) and h.board()["channel_id"] == str(DM_CHANNEL_ID)
        assert "K♠" not in [c.get("label") for row in h.board()["components"] for c in row["components"]]
        assert "POST /users/@me/channels" in served.edge.discord.seen and h.hub.unreachable == []
    finally:
        served.edge.discord.by_channel.pop(DM_CHANNEL_ID, None)
        async with h.bot.plays.end(Press(DM_CHANNEL_ID, OWNER, "en", manage_messages=True), checked=False):
            pass


async def test_another_private_channel_is_refused_and_stores_nothing(served: ServedActivity) -> None:
    """An instance in a private channel that is not the bot's DM with the player (a group DM, a DM between two
    people, where the bot cannot keep a board) is refused in words, and nothing is stored."""
    h, discord = served.h, served.edge.discord
    group_dm = discord.instance(None, GROUP_DM_ID, OWNER, STRANGER)
    their_dm = discord.instance(None, snowflake(), OWNER, STRANGER)  # the owner's DM with the stranger
    before = await dump(h.db_path)
    try:
        player = await served.open(OWNER, instance=group_dm, guild_id=None, channel_id=GROUP_DM_ID)
        await player.frame.locator("#notice").filter(has_text="or your DM with the bot").wait_for(timeout=WAIT)
        assert discord.seen[-1] == "POST /users/@me/channels"  # asked, and the bot's DM is another channel
        async with aiohttp.ClientSession() as client:  # (the same sign-in, asked without a page)
            asked = {"code": discord.code_for(OWNER), "instance_id": their_dm.instance_id}
            async with client.post(f"{served.edge.origin}/api/token", json=asked) as answer:
                assert (await answer.json())["refused"] == "not_here"
        assert discord.seen[-1] == "POST /users/@me/channels"
    finally:
        discord.by_channel.pop(GROUP_DM_ID)
        discord.by_channel.pop(int(their_dm.kept["channel_id"]))
    assert served.activity.server.refused[-2:] == ["token:not_here", "token:not_here"]
    assert changed(before, await dump(h.db_path)) == {}
    assert h.hub.unreachable == []


async def test_todays_daily_in_the_page_is_private_counted_once_and_offers_its_month(served: ServedActivity) -> None:
    """Today's daily, played in the player's seat in the page: the other page in the instance sees how far
    it is and never a card; once over, Share gives the board's line and the month's picture is one tap
    away; a second attempt is refused, back at the channel's served."""
    h = served.h
    assert h.bot is not None
    day = today(datetime.fromtimestamp(h.now[0], UTC))
    h.bot.dailies.codes[day] = kings_and_pairs().code
    bo, ana = await served.open(STRANGER), await served.open(OWNER)  # (Bo plays the daily, Ana watches)
    await bo.frame.locator('[data-action="daily"]').click()
    await bo.frame.locator('#table[data-seat="daily"]').wait_for(timeout=WAIT)
    await ana.frame.locator(f'#seat-list [data-user="{STRANGER}"][data-removed="0"]').wait_for(timeout=WAIT)
    await win_by_taps(bo)
    await bo.frame.locator("#ending").wait_for(timeout=WAIT)
    await ana.frame.locator(f'#seat-list [data-user="{STRANGER}"][data-removed="28"]').wait_for(timeout=WAIT)
    attempt = await h.storage.daily_attempt(day_key(day), STRANGER)
    record = await h.storage.game(attempt.game_id)
    assert await ana.state("game") != str(record.id) and await ana.state("seat") == ""  # (the channel's table)
    assert attempt.status == "won" and record.channel_id < 0 and record.message_id is None
    await bo.frame.locator('[data-action="share"]').click()
    share = share_text(record, attempt.picture, "en", h.bot.solver)
    await bo.frame.locator("#share").filter(has_text=share.splitlines()[0]).wait_for(timeout=WAIT)
    month = bo.frame.locator('[data-action="month"]')
    await month.focus()
    await month.press("Enter")  # (reachable by the keyboard)
    await bo.frame.locator('#month-picture[src^="data:image/png;base64,"]').wait_for(timeout=WAIT)
    assert await month.get_attribute("aria-expanded") == "true"
    await bo.frame.locator('[data-action="table"]').click()
    await bo.frame.locator('#table[data-seat=""]').wait_for(timeout=WAIT)
    await bo.frame.locator('[data-action="daily"]').click()
    await bo.frame.locator("#words").filter(has_text="You have played daily").wait_for(timeout=WAIT)
    assert await bo.state("seat") == ""
    dailies = [row.status for row in await h.storage.results(GUILD_ID, STRANGER) if row.daily == day_key(day)]
    assert dailies == ["won"]  # counted once
