"""The browser side of the Activity's tests: Debian's Chromium driven by Playwright (one browser per test
module), and a player's page opened through the test's Discord client (``tests/support/activity_parent``), with
every console message, page error and CSP violation kept for the test to check."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

try:
    from playwright.async_api import Browser, ConsoleMessage, FrameLocator, Page, async_playwright
except ImportError:  # the bot's own install has no test tools
    async_playwright = None  # type: ignore[assignment]

from pyramide_bot.activity import WEB_ROOT, page_built
from tests.support.activity_edge import ActivityEdge
from tests.support.harness import APP_ID, CHANNEL_ID, GUILD_ID, OWNER

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
PHONE = {"width": 360, "height": 640}
DESKTOP = {"width": 1280, "height": 800}
AXE = WEB_ROOT / "node_modules" / "axe-core" / "axe.min.js"  # (npm ci at set-up; the tests inject it, never served)
# axe-core's serious and critical findings against WCAG 2.0 and 2.1, A and AA, as "rule: the elements".
AXE_RUN = """async () => {
  const rules = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
  const found = await axe.run(document, { runOnly: rules, resultTypes: ["violations"] });
  return found.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}"""


async def serious_findings(page: Any) -> list[str]:
    """axe-core's serious and critical findings on the Activity's frame ``page`` (injected the first time)."""
    if not await page.evaluate("() => typeof axe !== 'undefined'"):
        await page.evaluate(AXE.read_text(encoding="utf-8"))
    return await page.evaluate(AXE_RUN)


def chromium_found() -> str | None:
    """Debian's Chromium, when it and Playwright are here (``tests.support.outside`` lists them as needed)."""
    found = next((path for path in CHROMIUM if os.path.exists(path)), None) or shutil.which("chromium")
    return found if async_playwright is not None else None


def chromium_path() -> str:
    """Debian's Chromium, or the test is skipped (the run's summary says why once: ``tests.support.outside``;
    under CI the run stops at its start instead)."""
    found = chromium_found()
    if found is None:
        pytest.skip("Chromium or Playwright is missing: the Activity's browser tests are skipped")
    return found


async def module_browser() -> AsyncIterator[Browser]:
    """One Chromium for a test module, with the Activity's page built (``page_built``), else skipped."""
    if not page_built():
        pytest.skip("the Activity's page is not built (Node.js and npm at set-up: scripts/setup.sh)")
    playwright, chromium = await launch()
    yield chromium
    await chromium.close()
    await playwright.stop()


async def launch() -> tuple[Any, Browser]:
    path = chromium_path()
    playwright = await async_playwright().start()
    browser = await playwright.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"])
    return playwright, browser


@dataclass
class Player:
    """One person's Discord client with the Activity open in it."""

    page: Page
    user_id: int
    problems: list[str] = field(default_factory=list)  # console errors and warnings, page errors, violations

    @property
    def frame(self) -> FrameLocator:
        return self.page.frame_locator("iframe")

    def card(self, spot: str | int) -> Any:
        return self.frame.locator(f'#table [data-spot="{spot}"]')

    async def state(self, name: str) -> str | None:
        return await self.frame.locator("#table").get_attribute(f"data-{name}")

    async def words(self) -> str:
        return await self.frame.locator("#words").inner_text()

    async def clean(self) -> list[str]:
        """Every problem the page had: console errors and warnings, uncaught errors, CSP violations."""
        violations = await self.page.evaluate("window.violations")
        return self.problems + [f"csp: {v}" for v in violations]

    async def close(self) -> None:
        await self.page.context.close()


async def open_activity(
    browser: Browser,
    edge: ActivityEdge,
    user_id: int,
    instance_id: str,
    *,
    guild_id: int | None,
    channel_id: int,
    locale: str = "en-US",
    viewport: dict[str, int] = PHONE,
    motion: bool = False,
    name: str = "",
) -> Player:
    """A player's client with the Activity framed in it, signed in (or refused: the page says why); a DM has
    no ``guild_id``."""
    context = await browser.new_context(viewport=viewport, reduced_motion="no-preference" if motion else "reduce")
    page = await context.new_page()
    player = Player(page, user_id)
    if name:
        edge.discord.names[user_id] = name

    def console(message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            where = message.location.get("url") or "?"  # (which request failed, when one did)
            player.problems.append(f"console {message.type}: {message.text} ({where})")

    page.on("console", console)
    page.on("pageerror", lambda error: player.problems.append(f"page error: {error}"))
    await page.goto(
        edge.parent_url(
            user=user_id,
            name=name or f"player{user_id % 1000}",
            instance=instance_id,
            **({"guild": guild_id} if guild_id is not None else {}),
            channel=channel_id,
            locale=locale,
            client=APP_ID,
            code=edge.discord.code_for(user_id),
        )
    )
    return player


async def open_channel_game(browser: Browser, edge: ActivityEdge, **options: Any) -> Player:
    """The owner's page on the Activity of the harness's server channel (``open_activity``'s options)."""
    instance = edge.discord.instance(GUILD_ID, CHANNEL_ID, OWNER)
    return await open_activity(
        browser, edge, OWNER, instance.instance_id, guild_id=GUILD_ID, channel_id=CHANNEL_ID, **options
    )
