"""The pictures of server events, against reference images in each language (tests/reference/event_*.png,
written by tests/reference/regenerate.py and looked at), their alt texts, and the empty podium."""

import io
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from cogs.pyramide.podium import podium_picture, standings_picture
from pyramide.render import WIDTH, render_podium
from tests.reference.event_scenes import EVENT, LANGUAGES, PICTURES, STANDINGS
from tests.reference.regenerate import event_png

REFERENCE = Path(__file__).parent / "reference"


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_event_reference_images(name):
    kind, lang = PICTURES[name]
    expected = Image.open(REFERENCE / f"{name}.png").convert("RGB")
    actual = Image.open(io.BytesIO(event_png(kind, lang))).convert("RGB")
    assert actual.size == expected.size and actual.width == WIDTH  # phone width, as the board
    changed = sum(ImageChops.difference(actual, expected).convert("L").histogram()[40:])
    assert changed / (actual.width * actual.height) < 0.005, f"{name}: run tests/reference/regenerate.py and look"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_alt_texts_name_the_places_in_the_players_language(lang):
    _, alt = podium_picture(EVENT, STANDINGS, lang)
    assert "December Cup" in alt and "1. Ana Kovačević" in alt and "3. mads_the_very_long_name_that_is_cut" in alt
    assert "Ida" not in alt  # the podium is the top three
    picture, alt = standings_picture(EVENT, STANDINGS, lang)
    assert len(picture.rows) == 5 and "5. Tomislav" in alt and len(alt) <= 1000
    words = {"en": "Final standings", "hr": "Konačni poredak", "da": "Slutstilling", "ru": "Итоговая таблица"}
    assert picture.subtitle.startswith(words[lang])


def test_an_event_nobody_finished_has_an_empty_podium_that_says_so():
    picture, alt = podium_picture(EVENT, [], "en")
    assert picture.places == () and "Nobody has finished a deal yet" in alt
    image = Image.open(io.BytesIO(render_podium(picture)))
    assert image.width == WIDTH
