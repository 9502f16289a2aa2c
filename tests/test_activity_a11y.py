"""Everyone can play the Activity (issue #49): by keyboard alone, with a screen reader, with reduced motion,
at 320 px and with the text at 200 %, in a real Chromium against the real bot (tests/activity_browser.py),
with axe-core (pinned in web/package-lock.json, injected by the test, never served) finding nothing
serious or critical on the playing page, the deal form and a finished page, in English and Croatian, at
360 x 640 and 1280 x 800. Two page sessions, each checking much; the rest without a browser."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from pyramide import STOCK, UNDER, WASTE, Card, Game, Rules
from pyramide.i18n import LANGUAGES, card_spoken, describe
from pyramide.style import TABLES
from pyramide_bot.activity import WEB_ROOT
from pyramide_discord.board import ALT_LIMIT, alt_text
from tests.support.activity_browser import (
    AXE,
    DESKTOP,
    PHONE,
    Player,
    module_browser,
    open_channel_game,
    serious_findings,
)
from tests.support.activity_edge import ActivityEdge, serve_activity
from tests.support.deals import kings_and_pairs
from tests.support.harness import Harness, start

ASYNC = pytest.mark.asyncio(loop_scope="module")
WAIT = 5000  # ms a page is given to show what it was sent
# Every visible control: a name for the report, its box, and whether its own words are cut off (a card has
# none: its picture fills it, its name is its label).
CONTROLS = """() => [...document.querySelectorAll("button, input, select")].filter((e) => e.getClientRects().length)
  .map((e) => { const r = e.getBoundingClientRect();
    return { name: e.dataset.spot ? "card " + e.dataset.spot : e.dataset.action || e.name || e.id || e.type,
             card: e.closest("#pyramid") !== null, left: r.left, top: r.top, right: r.right, bottom: r.bottom,
             cut: !e.matches(".card") && e.scrollWidth > e.clientWidth + 1 }; })"""
SIDEWAYS = """() => { const m = document.getElementById("table");
  return Math.max(m.scrollWidth - m.clientWidth, document.documentElement.scrollWidth - innerWidth); }"""
# The longest animation or transition any element has now, in seconds.
LONGEST = """() => Math.max(0, ...[...document.querySelectorAll("*")].flatMap((e) => {
  const s = getComputedStyle(e), times = [s.animationDuration, s.transitionDuration].flatMap((d) => d.split(","));
  return times.map((d) => parseFloat(d) * (d.trim().endsWith("ms") ? 0.001 : 1)); }))"""
SHOWN = "() => document.getElementById('table').dataset.version + '|' + document.getElementById('words').textContent"
# The drawn card's slide started again, and what a tap on the stock's middle hits at its first frame.
SLIDING = """() => { const waste = document.getElementById("waste"), stock = document.getElementById("stock");
  waste.classList.remove("slide"); void waste.offsetWidth; waste.classList.add("slide");
  const r = stock.getBoundingClientRect();
  return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2).closest("button").id; }"""
# What has the focus: a card's spot, a control's action, a field's name.
ACTIVE = """() => { const a = document.activeElement;
  return a.dataset.spot || a.dataset.action || a.name || a.id || a.tagName; }"""


def luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_focus_ring_and_the_words_stand_out_on_every_table_and_on_a_card() -> None:
    """The ring 3:1, the words 4.5:1 on each table's gradient and band (axe-core cannot measure text over a
    gradient: it leaves it out)."""
    css = (WEB_ROOT / "style.css").read_text(encoding="utf-8")
    light, dark, text, muted = (
        re.search(rf"--{part}: (#[0-9a-f]{{6}});", css).group(1)  # type: ignore[union-attr]
        for part in ("focus-light", "focus-dark", "text", "muted")
    )
    assert "outline: none" not in css and "outline: 0" not in css  # never taken away
    for felt, colours in TABLES.items():
        for name in ("top", "bottom", "band"):
            colour = "#" + "".join(f"{channel:02x}" for channel in getattr(colours, name))
            assert contrast(light, colour) >= 3, (felt, name)
            assert contrast(text, colour) >= 4.5 and contrast(muted, colour) >= 4.5, (felt, name)
    assert contrast(dark, "#ffffff") >= 3  # (where the ring crosses a neighbouring card's face)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_boards_alt_text_names_the_cards_in_play_in_order_and_fits_discord(lang: str) -> None:
    game = kings_and_pairs(Rules(draw_with_waste=True))
    game.tap(STOCK)
    game.tap(STOCK)  # a waste of two: its top, and the card under it this variant plays
    text = alt_text(game, lang, "PY1-N-AAAAAAS")
    free = [card_spoken(game.pyramid[spot], lang) for spot in range(21, 28)]  # type: ignore[arg-type]
    waste, under = card_spoken(game.card_at(WASTE), lang), card_spoken(game.card_at(UNDER), lang)  # type: ignore[arg-type]
    places = [text.index(name) for name in [*free, waste, under]]
    assert places == sorted(places), text  # the bottom row left to right, then the waste, then under it
    # At its longest: the seven free cards, the waste and the card under it with the longest spoken
    # names of the language (at most seven pyramid cards are ever free at once), and a code at its longest.
    deck = sorted(
        (Card(rank, suit) for rank in range(1, 14) for suit in range(4)), key=lambda c: -len(card_spoken(c, lang))
    )
    longest, rest = deck[:10], deck[10:]
    worst = Game.from_layout(
        rest[:21] + longest[:7], [longest[7]], [longest[8], *rest[21:], longest[9]], Rules(draw_with_waste=True)
    )
    worst.tap(STOCK)
    assert len(alt_text(worst, lang, "PY1-X-" + "A" * 54)) <= ALT_LIMIT == 1024


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(
    tmp_path_factory: pytest.TempPathFactory, workers: Any
) -> AsyncIterator[tuple[Harness, ActivityEdge, Any]]:
    if not AXE.is_file():
        pytest.skip("axe-core is not installed (Node.js and npm at set-up: scripts/setup.sh)")
    h = await Harness(str(tmp_path_factory.mktemp("a11y") / "pyramide.db"), workers=workers).start()
    edge = await ActivityEdge().start()
    activity = await serve_activity(h, edge)
    async for browser in module_browser():
        try:
            yield h, edge, browser
        finally:
            await activity.close()
            await edge.stop()
            await h.stop()


async def opened(
    served: tuple[Harness, ActivityEdge, Any],
    locale: str,
    viewport: dict[str, int],
    game: Game | None = None,
    **options: Any,
) -> Player:
    h, edge, browser = served
    await h.command("end")  # (whatever an earlier test left running)
    await start(h, (game or kings_and_pairs()).code)
    player = await open_channel_game(browser, edge, locale=locale, viewport=viewport, **options)
    await player.card(21).wait_for(timeout=WAIT)
    await page(player).evaluate(AXE.read_text(encoding="utf-8"))
    return player


def page(player: Player) -> Any:
    return player.page.frames[1]


async def axe(player: Player, *sizes: dict[str, int]) -> None:
    for size in sizes:
        await player.page.set_viewport_size(size)
        assert await serious_findings(page(player)) == [], size


async def press(player: Player, key: str) -> None:
    """A key, and the bot's answer shown: a new position, or new words (a card selected, a refusal)."""
    before = await page(player).evaluate(SHOWN)
    await player.page.keyboard.press(key)
    # (polled every 50 ms, not at each animation frame: a frame that stops drawing, as at a game's end, is
    # still read)
    shown = f"(before) => ({SHOWN})() !== before"
    await page(player).wait_for_function(shown, arg=before, timeout=WAIT, polling=50)


async def focus_on(player: Player, spot: int) -> None:
    """The arrow keys from the focused pyramid card to ``spot`` (the free cards in the pyramid's order)."""
    for _ in range(28):
        at = int(await page(player).evaluate(ACTIVE))
        if at == spot:
            return
        await player.page.keyboard.press("ArrowRight" if at < spot else "ArrowLeft")
    raise AssertionError(f"the arrow keys never reached spot {spot}")


@ASYNC
async def test_a_game_won_by_keyboard_alone_with_each_move_said(served: tuple[Harness, ActivityEdge, Any]) -> None:
    h = served[0]
    player = await opened(served, "en-US", PHONE)
    keys = player.page.keyboard
    await keys.press("Tab")  # from the Discord client into the page: the pyramid is the first stop
    assert await page(player).evaluate(ACTIVE) == "21"
    await keys.press("Shift+Tab")  # and out again: Tab is never trapped
    assert not await page(player).evaluate("() => document.hasFocus()")
    await keys.press("Tab")
    assert await page(player).evaluate(ACTIVE) == "21"
    assert await player.card(21).get_attribute("aria-label") == "king of spades"
    assert await player.card(0).get_attribute("aria-disabled") == "true"  # blocked, and no stop
    assert await page(player).evaluate("() => document.querySelectorAll('#pyramid [tabindex=\"0\"]').length") == 1
    await keys.press("ArrowRight")  # A♠
    await press(player, "Enter")
    assert await player.card(22).get_attribute("aria-pressed") == "true"
    await keys.press("ArrowRight")
    await keys.press("ArrowRight")  # 2♠: 1 + 2 is no 13
    await press(player, "Space")
    assert (await player.words()).strip() == "The sum must be 13"
    await keys.press("Tab")  # the stock
    await press(player, "Enter")
    expected = kings_and_pairs()
    assert await player.words() == describe(expected.tap(STOCK), "en", True, card_spoken)  # "You drew ..."
    await keys.press("ArrowRight")  # the piles are one stop too: the arrows go from the stock to the waste
    assert await page(player).evaluate(ACTIVE) == "waste"
    await keys.press("ArrowLeft")
    await keys.press("Shift+Tab")  # back to the pyramid, on the card last there
    assert await page(player).evaluate(ACTIVE) == "24"
    said = []
    for row in range(6, -1, -1):  # row by row, bottom up: a king alone, neighbours in pairs
        spots = list(range(row * (row + 1) // 2, row * (row + 1) // 2 + row + 1))
        while spots:
            first = spots.pop(0)
            move = (first,) if kings_and_pairs().pyramid[first].is_king else (first, spots.pop(0))  # type: ignore[union-attr]
            for spot in move:
                await focus_on(player, spot)
                await press(player, "Enter")
            said.append(await player.words())
    assert said[0].startswith("king of spades removed"), said
    assert said[1].startswith("ace of spades + queen of spades removed"), said
    await player.frame.locator("#ending").wait_for(timeout=WAIT)
    result = (await player.frame.locator("#ending-lines li").first.inner_text()).strip()
    assert said[-1].count(result) == 1, (said[-1], result)  # the result said once, after the last move
    assert await page(player).evaluate(ACTIVE) == "new"  # the focus on the finished game's first choice
    record = await h.storage.game(int(await player.state("game") or 0))
    assert record is not None and record.status == "won" and record.score == 280  # the same game a tap plays
    await axe(player, PHONE, DESKTOP)  # the finished page
    assert await player.clean() == []
    await player.close()


@ASYNC
async def test_in_croatian_dialogs_motion_and_reflow(served: tuple[Harness, ActivityEdge, Any]) -> None:
    player = await opened(served, "hr", DESKTOP, motion=True)
    frame, keys = player.frame, player.page.keyboard
    assert await player.card(21).get_attribute("aria-label") == "pik kralj"
    assert await frame.locator("#pyramid").get_attribute("aria-label") == "Piramida"
    await frame.locator('[data-action="hint"]').click()
    await frame.locator("#words").filter(has_text="pik kralj").wait_for(timeout=WAIT)  # the hint, spoken
    await axe(player, DESKTOP, PHONE)  # the playing page
    # A tap lands where it was aimed: a second quick tap on the stock, while the drawn card slides over it
    # to the waste, draws again.
    await player.page.set_viewport_size(DESKTOP)
    box = await player.card("stock").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    await player.page.mouse.click(x, y)
    await frame.locator('[data-spot="stock"][aria-label="Izvuci (22)"]').wait_for(timeout=WAIT)
    assert await page(player).evaluate(SLIDING) == "stock"  # what a tap there hits as the slide begins
    await player.page.mouse.click(x, y)
    await frame.locator('[data-spot="stock"][aria-label="Izvuci (21)"]').wait_for(timeout=WAIT)
    assert await player.card("waste").get_attribute("aria-pressed") == "false"
    # Motion: short animations, and none longer than 0.1 s with reduced motion or the page's switch off.
    assert await page(player).evaluate(LONGEST) > 0.1
    await player.page.emulate_media(reduced_motion="reduce")
    assert await page(player).evaluate(LONGEST) <= 0.1
    await player.page.emulate_media(reduced_motion="no-preference")
    await frame.locator("#motion").uncheck()
    assert await page(player).evaluate(LONGEST) <= 0.1
    # The deal form by keyboard: it opens on its first field, Escape closes it and gives the focus back.
    toggle = frame.locator('[data-action="deal-form"]')
    await toggle.focus()
    await keys.press("Enter")
    assert await page(player).evaluate(ACTIVE) == "code"
    assert await page(player).evaluate("() => getComputedStyle(document.activeElement).outlineStyle") == "solid"
    await axe(player, PHONE, DESKTOP)  # the deal form
    await reflowed(player, "the deal form")
    await press(player, "Enter")  # dealt over the running game: first the question, its choice focused
    assert await page(player).evaluate(ACTIVE) == "replace"
    await keys.press("Escape")  # "keep it", and back in the form
    assert await frame.locator("#ask").is_hidden() and await page(player).evaluate(ACTIVE) == "code"
    await keys.press("Escape")
    assert await frame.locator("#deal").is_hidden() and await page(player).evaluate(ACTIVE) == "deal-form"
    # End asks first; Escape keeps the game, and the focus goes back to End.
    await frame.locator('[data-action="end"]').focus()
    await keys.press("Enter")
    assert await page(player).evaluate(ACTIVE) == "end-yes"
    await keys.press("Escape")
    assert await frame.locator("#confirm").is_hidden() and await page(player).evaluate(ACTIVE) == "end"
    await reflowed(player, "the playing page")
    await keys.press("Enter")
    await frame.locator('[data-action="end-yes"]:focus').wait_for(timeout=WAIT)  # (the question, its choice focused)
    await press(player, "Enter")  # End, confirmed
    assert await page(player).evaluate(ACTIVE) == "new"
    await axe(player, DESKTOP, PHONE)  # the finished page
    await reflowed(player, "the finished page")
    assert await player.clean() == []
    await player.close()


async def reflowed(player: Player, what: str) -> None:
    """At 320 px, and at 360 x 640 with the text at 200 %: nothing scrolls sideways, no control is cut off
    or lies over another (the pyramid's cards overlap one another as dealt cards do)."""
    frame = page(player)
    for size, text in (({"width": 320, "height": 640}, "100%"), (PHONE, "200%")):
        await player.page.set_viewport_size(size)
        await frame.evaluate(f"() => {{ document.documentElement.style.fontSize = '{text}'; }}")
        assert await frame.evaluate(SIDEWAYS) <= 0, (what, size, text)
        controls = await frame.evaluate(CONTROLS)
        for n, one in enumerate(controls):
            assert not one["cut"] and one["left"] >= 0 and one["right"] <= size["width"], (what, text, one)
            for other in controls[n + 1 :]:
                if one["card"] and other["card"]:
                    continue
                apart = (
                    one["right"] <= other["left"] + 0.5
                    or other["right"] <= one["left"] + 0.5
                    or one["bottom"] <= other["top"] + 0.5
                    or other["bottom"] <= one["top"] + 0.5
                )
                assert apart, (what, text, one, other)
    await frame.evaluate("() => { document.documentElement.style.fontSize = ''; }")
    await player.page.set_viewport_size(DESKTOP)


@ASYNC
async def test_the_card_under_the_waste_says_it_is_selected(served: tuple[Harness, ActivityEdge, Any]) -> None:
    player = await opened(served, "en-US", PHONE, kings_and_pairs(Rules(draw_with_waste=True)))
    await player.card(STOCK).click()
    await player.frame.locator('#table [data-spot="waste"]:not([disabled])').wait_for(timeout=WAIT)
    await player.card(STOCK).click()  # a waste of two: its top, and the card under it this variant plays
    under = player.card(UNDER)
    await under.wait_for(timeout=WAIT)
    assert await under.get_attribute("aria-pressed") == "false"
    await under.click()
    await player.frame.locator('#table [data-spot="under"][aria-pressed="true"]').wait_for(timeout=WAIT)
    assert await player.card(WASTE).get_attribute("aria-pressed") == "false"  # (the state, not only a colour)
    assert await player.clean() == []
    await player.close()
