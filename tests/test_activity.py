"""Pyramide as a Discord Activity, in a real headless Chromium: the page loaded through the real Embedded
App SDK inside a Discord-like client page (its postMessage protocol), signed in against a Discord that
checks the code, the user and the instance, under Discord's Content-Security-Policy; the bot behind it
is the real bot on a real database (tests/harness.py). One browser for the module; every test ends
with no console error and no CSP violation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio

from pyramide_bot.activity import Activity, page_built
from pyramide_bot.settings import ActivitySettings
from tests.activity_browser import Player, launch, open_activity
from tests.activity_edge import ActivityEdge
from tests.deals import kings_and_pairs
from tests.fake_activity import BOT_TOKEN, CLIENT_SECRET
from tests.harness import APP_ID, CHANNEL_ID, GUILD_ID, OWNER, STRANGER, Harness, start

pytestmark = pytest.mark.asyncio(loop_scope="module")
WAIT = 5000  # ms a page is given to show what it was sent (the tests wait on what it shows, never sleep)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    if not page_built():
        pytest.skip("the Activity's page is not built (npm ci and the build: scripts/setup.sh)")
    playwright, chromium = await launch()
    yield chromium
    await chromium.close()
    await playwright.stop()


@dataclass
class Table:
    h: Harness
    edge: ActivityEdge
    activity: Activity
    browser: Any
    players: list[Player]

    async def open(self, user_id: int, **options: Any) -> Player:
        instance = options.pop("instance", None) or self.instance
        player = await open_activity(
            self.browser, self.edge, user_id, instance.instance_id, guild_id=GUILD_ID, channel_id=CHANNEL_ID, **options
        )
        self.players.append(player)
        return player

    @property
    def instance(self) -> Any:
        if not self.edge.discord.instances:
            self.edge.discord.instance(GUILD_ID, CHANNEL_ID, OWNER, STRANGER)
        return next(iter(self.edge.discord.instances.values()))


@pytest_asyncio.fixture(loop_scope="module")
async def table(database_url: str, workers: Any, browser: Any) -> AsyncIterator[Table]:
    h = await Harness(database_url, workers=workers).start()
    assert h.bot is not None
    edge = await ActivityEdge().start()
    activity = Activity(
        h.bot,
        ActivitySettings(0, CLIENT_SECRET),
        h.bot.changes,
        application_id=APP_ID,
        bot_token=BOT_TOKEN,
        api_base=edge.api_base,
        clock=lambda: h.now[0],
    )
    edge.target = await activity.start()
    setup = Table(h, edge, activity, browser, [])
    try:
        yield setup
        for player in setup.players:
            assert await player.clean() == [], player.problems
    finally:
        for player in setup.players:
            await player.close()
        await activity.close()
        await edge.stop()
        await h.stop()
    assert h.hub.invalid == [], h.hub.invalid


async def test_a_deal_shows_in_the_page(table: Table) -> None:
    await start(table.h, kings_and_pairs().code)
    player = await table.open(OWNER)
    await player.card(21).wait_for(timeout=WAIT)
    assert await player.card(21).get_attribute("data-card") == "K♠"
