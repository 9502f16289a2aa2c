"""Draws the Activity's reference screenshots (tests/reference/activity_<lang>_<width>x<height>.png): a game
in play at 360 x 640 (a phone held upright) and 1280 x 800, in English and Croatian, then the game ended from
the page with its choices (activity_ended_en_<width>x<height>.png), in a real Chromium against the real bot.
Run it after an intended change of the page, and look at the pictures."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.activity import serve_for_bench
from tests.support.activity_browser import DESKTOP, PHONE, launch, open_activity
from tests.support.deals import kings_and_pairs
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, start

HERE = Path(__file__).resolve().parent
# Every card picture loaded (a language's or a style's first faces are drawn on demand, half a second or more).
DRAWN = "() => [...document.images].every((image) => !image.getAttribute('src') || image.naturalWidth > 0)"


async def main() -> None:
    async with serve_for_bench(Path(tempfile.mkdtemp(prefix="pyramide-screens-"))) as (h, edge, _activity):
        playwright, browser = await launch()
        try:
            await start(h, kings_and_pairs().code)
            instance = edge.discord.instance(GUILD_ID, CHANNEL_ID, OWNER)
            shots = [(locale, viewport, False) for locale in ("en-US", "hr") for viewport in (PHONE, DESKTOP)]
            for locale, viewport, ended in [*shots, ("en-US", PHONE, True), ("en-US", DESKTOP, True)]:
                if ended and viewport is DESKTOP:
                    await start(h, kings_and_pairs().code)  # (the phone's shot ended the last one)
                player = await open_activity(
                    browser,
                    edge,
                    OWNER,
                    instance.instance_id,
                    guild_id=GUILD_ID,
                    channel_id=CHANNEL_ID,
                    locale=locale,
                    viewport=viewport,
                    name="Ana",
                )
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
        finally:
            await browser.close()
            await playwright.stop()


if __name__ == "__main__":
    asyncio.run(main())
