"""Draws the Activity's reference screenshots (tests/reference/activity_<lang>_<width>x<height>.png): a game
in play at 360 x 640 (a phone held upright) and 1280 x 800, in English and Croatian, in a real Chromium
against the real bot. Run it after an intended change of the page, and look at the pictures."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.activity import serve_for_bench
from tests.activity_browser import DESKTOP, PHONE, launch, open_activity
from tests.deals import kings_and_pairs
from tests.harness import CHANNEL_ID, GUILD_ID, OWNER, start

HERE = Path(__file__).resolve().parent


async def main() -> None:
    async with serve_for_bench(Path(tempfile.mkdtemp(prefix="pyramide-screens-"))) as (h, edge):
        playwright, browser = await launch()
        try:
            await start(h, kings_and_pairs().code)
            instance = edge.discord.instance(GUILD_ID, CHANNEL_ID, OWNER)
            for locale in ("en-US", "hr"):
                for viewport in (PHONE, DESKTOP):
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
                    name = f"activity_{locale[:2]}_{viewport['width']}x{viewport['height']}.png"
                    await player.page.screenshot(path=str(HERE / name))
                    print(name, await player.clean() or "clean")
                    await player.close()
        finally:
            await browser.close()
            await playwright.stop()


if __name__ == "__main__":
    asyncio.run(main())
