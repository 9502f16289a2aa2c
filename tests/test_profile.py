"""The player card and the achievements grid as pictures: against reference images a person has looked
at (tests/reference/card_*.png, achievements_*.png; regenerate.py makes them), in all four languages,
readable at phone width, with alt text that carries their figures."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from pyramide.achievements import CATALOGUE
from pyramide.render.badges import ICON, icon, render_badges
from pyramide.render.card import render_card
from pyramide.render.geometry import WIDTH
from tests.reference import profile_scenes
from tests.reference.regenerate import REFERENCE_NOTE

REFERENCE = profile_scenes.__file__.rsplit("/", 1)[0]


def same(actual: bytes, name: str) -> None:
    expected = Image.open(f"{REFERENCE}/{name}.png").convert("RGB")
    image = Image.open(io.BytesIO(actual)).convert("RGB")
    assert image.size == expected.size and image.width >= 640
    changed = sum(ImageChops.difference(image, expected).convert("L").histogram()[40:])
    assert changed / (image.width * image.height) < 0.005, f"{name}: {REFERENCE_NOTE}"


@pytest.mark.parametrize("lang", profile_scenes.LANGUAGES)
def test_the_player_card_against_its_reference(lang):
    same(render_card(profile_scenes.card(lang)), f"card_{lang}")


@pytest.mark.parametrize("lang", profile_scenes.LANGUAGES)
def test_the_achievements_grid_against_its_reference(lang):
    same(render_badges(profile_scenes.grid(lang)[0]), f"achievements_{lang}")


@pytest.mark.parametrize("lang", profile_scenes.LANGUAGES)
def test_the_alt_texts_carry_the_figures_in_each_language(lang):
    from cogs.pyramide.profile import card_alt

    card = profile_scenes.card(lang)
    alt = card_alt(card, profile_scenes.DAILIES, lang)
    assert len(alt) <= 1024 and card.title in alt
    for label, value in card.figures:
        assert f"{label}: {value}" in alt
    grid, grid_alt = profile_scenes.grid(lang)
    assert len(grid_alt) <= 1024 and grid.subtitle in grid_alt
    if lang != "en":
        assert grid.subtitle != profile_scenes.grid("en")[0].subtitle and alt != card_alt(
            profile_scenes.card("en"), profile_scenes.DAILIES, "en"
        )


def test_the_grid_shows_unlocked_first_with_dates_and_locked_with_what_they_ask():
    grid, _ = profile_scenes.grid("en")
    unlocked = [cell for cell in grid.cells if cell.unlocked]
    assert len(grid.cells) == len(CATALOGUE) and grid.cells[: len(unlocked)] == tuple(unlocked)
    assert unlocked[0].detail == "Nov 15, 2026" and unlocked[0].rarity == "2%"
    locked = {cell.key: cell for cell in grid.cells if not cell.unlocked}
    assert locked["wins_100"].detail == "A hundred games won."
    assert grid.subtitle == f"{len(unlocked)} of {len(CATALOGUE)} achievements unlocked"


def test_icons_are_distinct_and_greyed_when_locked():
    pictures = {a.key: icon(a.key, a.group, True).tobytes() for a in CATALOGUE}
    assert len(set(pictures.values())) == len(CATALOGUE)  # every achievement its own icon
    coloured = icon("first_win", "volume", True).convert("RGB").getpixel((ICON // 2, ICON // 5))
    grey = icon("first_win", "volume", False).convert("RGB").getpixel((ICON // 2, ICON // 5))
    assert max(coloured) - min(coloured) > 100 and max(grey) - min(grey) < 40


def test_the_card_is_as_wide_as_the_board():
    image = Image.open(io.BytesIO(render_card(profile_scenes.card("en"))))
    assert image.width == WIDTH
