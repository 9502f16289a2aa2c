"""The month calendar of the dailies: how each day is counted, the badge, and its picture."""

import io
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pyramide.daily import DayKind, month_calendar
from pyramide.render import WIDTH, render_month
from pyramide_discord.daily_words import month_picture
from tests.reference.months import ATTEMPTS, MONTHS, TODAY, all_won, november

REFERENCE = Path(__file__).parent / "reference"


def test_every_kind_of_day_is_told_apart():
    month = november()
    days = month.days
    assert len(days) == 30 and month.first_weekday == 6  # 1 November 2026 is a Sunday
    assert days[0] is DayKind.CLEAN and days[3] is DayKind.HINTED  # the 4th: won with 2 hints
    assert days[4] is DayKind.GAVE_UP and days[21] is DayKind.GAVE_UP  # ended, and stuck
    assert days[5] is DayKind.MISSED and days[22] is DayKind.MISSED
    assert days[28] is DayKind.OPEN and days[29] is DayKind.NONE  # today still played, tomorrow to come
    assert month.today == 29 and month.won == 24 and not month.badge


def test_an_attempt_left_open_on_a_past_day_counts_as_given_up():
    later = month_calendar(2026, 11, ATTEMPTS, TODAY.replace(day=30), (0, 15))
    assert later.days[28] is DayKind.GAVE_UP and later.days[29] is DayKind.NONE  # today not opened yet


def test_the_badge_needs_every_day_of_the_month_won():
    assert all_won().badge
    picture, alt = month_picture(all_won(), "en")
    assert picture.badge_won and "every day of the month won" in picture.badge
    picture, alt = month_picture(november(), "en")
    assert not picture.badge_won and "24 of 30" in picture.badge
    assert "20 won without hints, 4 won with hints, 2 given up, 2 missed" in alt


@pytest.mark.parametrize("lang", ["en", "hr", "da", "ru"])
def test_the_calendar_speaks_every_language(lang):
    picture, alt = month_picture(november(), lang)
    words = [picture.title, picture.streak, picture.badge, *(text for _, text in picture.legend), alt]
    assert all(words) and len(set(picture.weekdays)) == 7
    if lang != "en":
        english, _ = month_picture(november(), "en")
        assert picture.title != english.title and picture.legend != english.legend


@pytest.mark.parametrize("name", sorted(MONTHS))
def test_month_reference_images(name):
    month, lang = MONTHS[name]
    expected = Image.open(REFERENCE / f"{name}.png").convert("RGB")
    actual = Image.open(io.BytesIO(render_month(month_picture(month(), lang)[0]))).convert("RGB")
    assert actual.size == expected.size and actual.width == WIDTH
    changed = sum(ImageChops.difference(actual, expected).convert("L").histogram()[40:])
    assert changed / (actual.width * actual.height) < 0.005, f"{name}: run tests/reference/regenerate.py and look"


def test_each_kind_of_day_has_its_own_colour():
    image = Image.open(REFERENCE / "month_november_en.png").convert("RGB")
    # The middle of the tiles of the 2nd (clean), 4th (hinted), 5th (gave up) and 6th (missed).
    columns = {2: 0, 4: 2, 5: 3, 6: 4}
    colours = {day: image.getpixel((16 + column * 94 + 30, 98 + 84 + 50)) for day, column in columns.items()}
    assert len(set(colours.values())) == 4
