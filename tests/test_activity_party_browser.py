"""A party race in Chromium (issue #48): three players and a spectator in one instance, through the page's
own buttons. Started from the deal form with a code, joined during the countdown everyone sees, each racer
tapping their own board, every rival's count on the other pages after the moves, a page closed mid-race and
opened again on its board, give-ups, and the podium. With ``PYRAMIDE_WRITE_REFERENCE`` set it writes the
reference screenshots of a party (tests/reference/party_*), to be looked at."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from pyramide_service.parties import COUNTDOWN
from tests.support.activity_browser import AXE, DESKTOP, PHONE, Player, module_browser, open_activity, serious_findings
from tests.support.activity_edge import ActivityEdge, serve_activity
from tests.support.deals import clear_kings_and_pairs_taps, kings_and_pairs
from tests.support.fake_activity import ActivityDiscord
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, Harness

pytestmark = pytest.mark.asyncio(loop_scope="module")
ANA, BO, CY, DEE = OWNER, OWNER + 1, OWNER + 2, OWNER + 3
REFERENCE = Path(__file__).parent / "reference"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    async for chromium in module_browser():
        yield chromium


async def tap(player: Player, spot: int) -> None:
    """A tap on the player's own board, and its answer drawn (a card removed, or the card selected)."""
    version = await player.state("version")
    await player.card(spot).click()
    answered = f'#table:not([data-version="{version}"]), #pyramid [data-spot="{spot}"][aria-pressed="true"]'
    await player.frame.locator(answered).first.wait_for()


async def test_a_party_of_three_with_a_spectator_runs_to_a_podium_in_the_page(tmp_path, browser) -> None:
    h = Harness(str(tmp_path / "pyramide.db"))
    await h.start()
    edge = await ActivityEdge(ActivityDiscord(instances=h.hub.activity_instances)).start()
    activity = await serve_activity(h, edge)
    instance = edge.discord.instance(GUILD_ID, CHANNEL_ID, ANA, BO, CY, DEE).instance_id
    players: list[Player] = []

    async def opened(user: int, name: str, viewport: dict[str, int] = PHONE) -> Player:
        player = await open_activity(
            browser, edge, user, instance, guild_id=GUILD_ID, channel_id=CHANNEL_ID, name=name, viewport=viewport
        )
        players.append(player)
        await player.frame.locator('#table[aria-busy="false"]').wait_for()
        return player

    try:
        ana, bo, cy = [await opened(user, name) for user, name in ((ANA, "Ana"), (BO, "Bo"), (CY, "Cy"))]
        dee = await opened(DEE, "Dee", DESKTOP)
        await ana.frame.locator('#deal input[name="code"]').fill(kings_and_pairs().code)
        await ana.frame.locator('[data-action="party-these"]').click()
        for player in (bo, cy):
            join = player.frame.locator('[data-action="join"]')
            if player is cy:  # (by keyboard: the control reached and pressed as a keyboard player does)
                await join.focus()
                await player.page.keyboard.press("Enter")
            else:
                await join.click()
            await join.wait_for(state="hidden")  # joined
        await dee.frame.locator('#party[data-phase="gathering"]').wait_for()
        assert "Ana, Bo, Cy" in await dee.frame.locator("#party-status").inner_text()
        assert await dee.frame.locator('[data-action="join"]').is_visible()  # the spectator may still join
        h.now[0] += COUNTDOWN
        for player in (ana, bo, cy, dee):
            await player.frame.locator('#party[data-phase="racing"]').wait_for()
        assert await dee.frame.locator("[data-rival]").count() == 3  # the spectator sees every racer
        assert await ana.frame.locator("[data-rival]").count() == 2  # a racer, the two others

        taps = clear_kings_and_pairs_taps()
        for spot in taps[:4]:
            await tap(bo, spot)
        removed = await bo.frame.locator("#pyramid [data-spot]:not([hidden])").count()
        assert removed == 28 - 3
        for player in (ana, cy, dee):  # every rival's count, on every other page
            await player.frame.locator(f'[data-rival][data-user="{BO}"][data-removed="3"]').wait_for(timeout=1000)
        if AXE.is_file():  # (issue #49: a racer's page at phone size and a spectator's at desktop size)
            for player in (bo, dee):
                assert await serious_findings(player.page.frames[1]) == [], player.user_id
        if os.environ.get("PYRAMIDE_WRITE_REFERENCE"):
            await bo.page.screenshot(path=str(REFERENCE / "party_en_360x640.png"))
            await dee.page.screenshot(path=str(REFERENCE / "party_en_1280x800.png"))

        await cy.close()  # Cy closes the page mid-race, and comes back on their board
        players.remove(cy)
        cy = await opened(CY, "Cy")
        await cy.frame.locator('#party[data-phase="racing"]').wait_for()
        await cy.frame.locator('#table[data-state="playing"][data-role="play"]').wait_for()
        await tap(cy, taps[0])
        await bo.frame.locator(f'[data-rival][data-user="{CY}"][data-removed="1"]').wait_for(timeout=1000)

        for spot in taps:
            await tap(ana, spot)
        for player in (bo, cy):  # the others give up
            await player.frame.locator('[data-action="end"]').click()
            await player.frame.locator('[data-action="end-yes"]').click()
        podium = dee.frame.locator("[data-podium]")
        await podium.wait_for()
        await dee.frame.locator(f'[data-podium] [data-place="1"][data-user="{ANA}"]').wait_for()
        places = [await item.get_attribute("data-user") for item in await podium.locator("[data-place]").all()]
        assert places == [str(ANA), str(BO), str(CY)]  # cleared, then 3 cards removed, then 1
        # The spectator's screen reader hears the race's news, not every move: here its end (#49).
        await dee.frame.locator("#words", has_text="Winner: Ana").wait_for(timeout=5000)
        if AXE.is_file():  # the podium, at both sizes
            for size in (DESKTOP, PHONE):
                await dee.page.set_viewport_size(size)
                assert await serious_findings(dee.page.frames[1]) == [], size
        if os.environ.get("PYRAMIDE_WRITE_REFERENCE"):
            await dee.page.screenshot(path=str(REFERENCE / "party_podium_en_1280x800.png"))
        for player in players:
            assert await player.clean() == [], player.problems
    finally:
        for player in players:
            await player.close()
        await activity.close()
        await edge.stop()
        await h.stop()
