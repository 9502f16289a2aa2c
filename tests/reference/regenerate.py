"""Regenerate the board's fixed palettes (assets/palette*.bin, one a deck and table), the reference boards, the
styles' boards (style_*.png), the months, the events'
podiums and standings (every language) and the sheet of the
card emojis (emojis.png: every emoji at 20 px, then at 40 px, on the grey, blue and green buttons) after
an intended design change:

    .venv/bin/python tests/reference/regenerate.py

Then look at the PNGs in tests/reference/ before committing them.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_NOTE = "run tests/reference/regenerate.py and look at the images"
sys.path.insert(0, str(ROOT))

from cogs.pyramide.podium import podium_picture, standings_picture  # noqa: E402
from pyramide import render  # noqa: E402
from pyramide.render.badges import render_badges  # noqa: E402
from pyramide.render.card import render_card  # noqa: E402
from pyramide.style import Style  # noqa: E402
from pyramide_discord.daily_words import month_picture  # noqa: E402
from pyramide_discord.emojis import emoji_images  # noqa: E402
from tests.reference import profile_scenes  # noqa: E402
from tests.reference.event_scenes import EVENT, PICTURES, STANDINGS  # noqa: E402
from tests.reference.months import MONTHS  # noqa: E402
from tests.reference.positions import OPTIONS, POSITIONS, mid_game  # noqa: E402
from tests.reference.style_scenes import OPTIONS as STYLE_OPTIONS  # noqa: E402
from tests.reference.style_scenes import STYLES  # noqa: E402


def main() -> None:
    for deck, table in {(style.deck, style.table) for style in STYLES.values()}:  # before any sprite uses them
        palette = render.palette_file(deck, table)
        palette.write_bytes(render.build_palette(Style(deck=deck, table=table)))
        print(f"wrote {palette.resolve().relative_to(ROOT)}")
    for name, build in POSITIONS.items():
        path = Path(__file__).with_name(f"{name}.png")
        path.write_bytes(render.render_board(build(), now=1000.0, **OPTIONS.get(name, {})))
        print(f"wrote {path.relative_to(ROOT)}")
    for name, style in STYLES.items():
        path = Path(__file__).with_name(f"{name}.png")
        path.write_bytes(render.render_board(mid_game(), style=style, **STYLE_OPTIONS))
        print(f"wrote {path.relative_to(ROOT)}")
    for name, (month, lang) in MONTHS.items():
        path = Path(__file__).with_name(f"{name}.png")
        path.write_bytes(render.render_month(month_picture(month(), lang)[0]))
        print(f"wrote {path.relative_to(ROOT)}")
    for lang in profile_scenes.LANGUAGES:  # the player card and the achievements grid
        for name, png in (
            (f"card_{lang}", render_card(profile_scenes.card(lang))),
            (f"achievements_{lang}", render_badges(profile_scenes.grid(lang)[0])),
        ):
            path = Path(__file__).with_name(f"{name}.png")
            path.write_bytes(png)
            print(f"wrote {path.relative_to(ROOT)}")
    for name, (kind, lang) in PICTURES.items():
        path = Path(__file__).with_name(f"{name}.png")
        path.write_bytes(event_png(kind, lang))
        print(f"wrote {path.relative_to(ROOT)}")
    sheet = Path(__file__).with_name("emojis.png")
    sheet.write_bytes(render.emoji_sheet([image.png for image in emoji_images().values()]))
    print(f"wrote {sheet.relative_to(ROOT)}")


def event_png(kind: str, lang: str) -> bytes:
    """An ended event's podium or standings picture in ``lang`` (tests/reference/event_scenes.py)."""
    if kind == "podium":
        return render.render_podium(podium_picture(EVENT, STANDINGS, lang)[0])
    return render.render_standings(standings_picture(EVENT, STANDINGS, lang)[0])


if __name__ == "__main__":
    main()
