"""The Activity's two latencies, in a real headless Chromium against the real bot (tests/support/harness.py) through
Discord's edge (tests/support/activity_edge.py), on a SQLite file:

- tap -> drawn: from a tap in the page to the new position drawn there (the DOM changed and a frame
  painted), over the socket, the channel's turn, the store and the answer;
- board press -> page: from a press on the board message (the bot's interaction flow) to the page showing
  the new position.

Each is measured ``ROUNDS`` times (draws and undos alternately) and printed as median and p99, in ms.
Run: ``.venv/bin/python bench/activity.py [rounds]`` (needs Chromium and the built page)."""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide_bot.activity import Activity
from pyramide_bot.activity.server import RATE
from tests.support.activity_browser import launch, open_activity
from tests.support.activity_edge import ActivityEdge, serve_activity
from tests.support.deals import kings_and_pairs
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, Harness, start

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 60

# In the page: click, then resolve with the ms until the table's version changed and a frame was painted.
TAP = """(selector) => new Promise((resolve) => {
  const table = document.getElementById("table");
  const version = table.dataset.version;
  const started = performance.now();
  const watch = new MutationObserver(() => {
    if (table.dataset.version !== version) {
      watch.disconnect();
      requestAnimationFrame(() => resolve(performance.now() - started));
    }
  });
  watch.observe(table, { attributes: true });
  document.querySelector(selector).click();
})"""
# In the page: start watching (returns once watching), kept as the wall-clock ms the next position is painted.
WATCH = """() => {
  const table = document.getElementById("table");
  const version = table.dataset.version;
  window.benchNext = new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (table.dataset.version !== version) {
        watch.disconnect();
        requestAnimationFrame(() => resolve(Date.now()));
      }
    });
    watch.observe(table, { attributes: true });
  });
}"""
NEXT = "() => window.benchNext"


def figures(name: str, samples: list[float]) -> None:  # printed as soon as known
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    print(
        f"{name:<22} median {statistics.median(ordered):6.1f} ms   p99 {p99:6.1f} ms   ({len(ordered)} rounds)",
        flush=True,
    )


@contextlib.asynccontextmanager
async def serve_for_bench(folder: Path) -> AsyncIterator[tuple[Harness, ActivityEdge, Activity]]:
    """The real bot on a SQLite file in ``folder``, serving the Activity behind Discord's edge."""
    h = await Harness(str(folder / "bench.db")).start()
    assert h.bot is not None
    edge = await ActivityEdge().start()
    activity = await serve_activity(h, edge)
    try:
        yield h, edge, activity
    finally:
        await activity.close()
        await edge.stop()
        await h.stop()


async def main() -> None:
    async with serve_for_bench(Path(tempfile.mkdtemp(prefix="pyramide-bench-activity-"))) as (h, edge, activity):
        await measure(h, edge, activity)


async def measure(h: Harness, edge: ActivityEdge, activity: Activity) -> None:
    playwright, browser = await launch()
    try:
        await start(h, kings_and_pairs().code)
        instance = edge.discord.instance(GUILD_ID, CHANNEL_ID, OWNER)
        player = await open_activity(
            browser, edge, OWNER, instance.instance_id, guild_id=GUILD_ID, channel_id=CHANNEL_ID
        )
        await player.card(21).wait_for(timeout=10000)
        frame = player.page.frames[1]
        taps = []
        for round_ in range(ROUNDS):
            selector = '#table [data-spot="stock"]' if round_ % 2 == 0 else '#table [data-action="undo"]'
            # A player's pace: the server closes a page that sends more than RATE messages a second after a
            # burst (4008, a flood, and the page does not reconnect); unpaced, this loop tripped it after ~28
            # taps and every later tap and board press went unseen (the "missing presses" of earlier runs).
            paced = asyncio.ensure_future(asyncio.sleep(1 / RATE))
            try:
                taps.append(await asyncio.wait_for(frame.evaluate(TAP, selector), 5))
            except TimeoutError:
                print(f"tap {round_} was not drawn within 5 s", flush=True)
            await paced
        figures("tap -> drawn", taps)
        # The page's moves edit the board message (coalesced, a second apart): the presses start on the board as
        # it ends up, else the first press is on a board that an edit then replaces, and is answered as stale.
        await activity.presses.edits.settle()
        presses, stale = [], 0
        for round_ in range(ROUNDS):
            board = h.board()
            labels = {b.get("label", ""): b["custom_id"] for row in board["components"] for b in row["components"]}
            wanted = next(i for label, i in labels.items() if label.startswith("Draw" if round_ % 2 == 0 else "Undo"))
            await frame.evaluate(WATCH)  # the page is watching before the press
            pressed = time.time() * 1000
            # The press's answer edits the board before the next round reads it (waited for, not slept on).
            answered = asyncio.ensure_future(h.press(wanted, int(board["id"])))
            try:
                presses.append(await asyncio.wait_for(frame.evaluate(NEXT), 5) - pressed)
            except TimeoutError:
                contents = [sent.content for sent in await answered]
                print(f"press {round_} did not reach the page within 5 s (answered {contents})", flush=True)
            if any("out of date" in (sent.content or "") for sent in await answered):
                stale += 1
        if stale:
            print(f"{stale} presses were answered as made on an out-of-date board", flush=True)
        if presses:
            figures("board press -> page", presses)
        await player.close()
    finally:
        await browser.close()
        await playwright.stop()


if __name__ == "__main__":
    asyncio.run(main())
