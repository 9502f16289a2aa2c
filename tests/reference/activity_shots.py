"""Draws the Activity's reference screenshots (tests/reference/activity_<lang>_<width>x<height>.png): a game
in play at 360 x 640 (a phone held upright) and 1280 x 800, in English and Croatian, then the game ended from
the page with its choices (activity_ended_en_<width>x<height>.png), and the keyboard's focus ring on a card
on the dark table and on the deal form on the blue one (activity_focus_<lang>_<width>x<height>.png), in a
real Chromium against the real bot. Run it after an intended change of the page, and look at the pictures."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.activity import serve_for_bench
from tests.support.activity_browser import DESKTOP, PHONE, Player, launch, open_channel_game
from tests.support.deals import kings_and_pairs
from tests.support.harness import start

HERE = Path(__file__).resolve().parent
# Every card picture loaded (a language's or a style's first faces are drawn on demand, half a second or more).
DRAWN = "() => [...document.images].every((image) => !image.getAttribute('src') || image.naturalWidth > 0)"


async def focused(player: Player, form: bool) -> None:
    """The focus ring as the keyboard brings it: on a card (Tab into the pyramid, a step right, Enter to
    select it), or on the deal form's first field (the form opened with Enter)."""
    await player.card(22).wait_for(timeout=15000)
    await player.page.frames[1].wait_for_function(DRAWN, timeout=15000)
    await player.page.keyboard.press("Tab")
    await player.page.keyboard.press("ArrowRight")
    if not form:  # the card selected too: its gold mark within the focus ring
        await player.page.keyboard.press("Enter")
        await player.frame.locator('[data-spot="22"][aria-pressed="true"]').wait_for(timeout=15000)
    else:
        await player.frame.locator('[data-action="deal-form"]').focus()
        await player.page.keyboard.press("Enter")


async def main() -> None:
    async with serve_for_bench(Path(tempfile.mkdtemp(prefix="pyramide-screens-"))) as (h, edge, _activity):
        playwright, browser = await launch()
        try:
            await start(h, kings_and_pairs().code)
            shots = [(locale, viewport, False) for locale in ("en-US", "hr") for viewport in (PHONE, DESKTOP)]
            for locale, viewport, ended in [*shots, ("en-US", PHONE, True), ("en-US", DESKTOP, True)]:
                if ended and viewport is DESKTOP:
                    await start(h, kings_and_pairs().code)  # (the phone's shot ended the last one)
                player = await open_channel_game(browser, edge, locale=locale, viewport=viewport, name="Ana")
                await player.card(22).wait_for(timeout=15000)
                await player.frame.locator("#players").filter(has_text="Ana").wait_for(timeout=15000)
                if ended:  # ended from the page: its lines and the finished game's choices
                    await player.frame.locator('[data-action="end"]').click()
                    await player.frame.locator('[data-action="end-yes"]').click()
                    await player.frame.locator('[data-action="line"]').wait_for(timeout=15000)
                await player.page.frames[1].wait_for_function(DRAWN, timeout=15000)
                kind = "ended_" if ended else ""
                name = f"activity_{kind}{locale[:2]}_{viewport['width']}x{viewport['height']}.png"
                await player.page.screenshot(path=str(HERE / name))
                print(name, await player.clean() or "clean")
                await player.close()
            for locale, viewport, felt in (("en-US", PHONE, "dark"), ("hr", DESKTOP, "blue")):
                await h.command("end")  # (each shot on a fresh deal)
                await start(h, kings_and_pairs().code)
                await h.command("style", table=felt)  # the ring on the other tables than the green one
                player = await open_channel_game(browser, edge, locale=locale, viewport=viewport, name="Ana")
                await focused(player, viewport is DESKTOP)
                name = f"activity_focus_{locale[:2]}_{viewport['width']}x{viewport['height']}.png"
                await player.page.screenshot(path=str(HERE / name))
                print(name, await player.clean() or "clean")
                await player.close()
        finally:
            await browser.close()
            await playwright.stop()


if __name__ == "__main__":
    asyncio.run(main())
