"""A player's style as plain data: its names, what a wrong one is told, and the JSON the Activity draws from."""

import json

import pytest

from pyramide.style import DEFAULT, Corners, Deck, Felt, Style, StyleError


def test_a_style_is_parsed_from_its_three_names():
    assert Style.parse("four-colour", "large", "dark") == Style(Deck.FOUR_COLOUR, Corners.LARGE, Felt.DARK)
    assert Style.parse(" Classic ", "NORMAL", "green") == DEFAULT


@pytest.mark.parametrize(
    "deck, corners, table, field, choices",
    [
        ("rainbow", "normal", "green", "deck", ("classic", "four-colour")),
        ("classic", "huge", "green", "corners", ("normal", "large")),
        ("classic", "normal", "red", "table", ("green", "blue", "dark")),
    ],
)
def test_an_unknown_name_is_refused_with_the_choices(deck, corners, table, field, choices):
    with pytest.raises(StyleError) as refused:
        Style.parse(deck, corners, table)
    assert refused.value.field == field
    assert refused.value.choices == choices
    assert isinstance(refused.value, ValueError)


def test_changing_one_name_keeps_the_others():
    style = Style(Deck.FOUR_COLOUR, Corners.LARGE, Felt.BLUE)
    assert style.with_values(table="dark", deck=None) == Style(Deck.FOUR_COLOUR, Corners.LARGE, Felt.DARK)
    with pytest.raises(StyleError):
        style.with_values(corners="tiny")


def test_the_json_gives_a_client_every_colour_it_draws_with():
    data = json.loads(json.dumps(Style(Deck.FOUR_COLOUR, Corners.LARGE, Felt.DARK).to_json()))
    assert data["deck"] == "four-colour" and data["corners"] == "large" and data["table"] == "dark"
    assert data["suits"] == {"S": "#141414", "H": "#c8141e", "D": "#1450dc", "C": "#288064"}
    assert data["cornerScale"] > 1
    assert set(data["tableColours"]) == {"top", "bottom", "band", "text", "muted", "slot_line", "mark", "dim"}
    assert DEFAULT.to_json()["suits"]["D"] == DEFAULT.to_json()["suits"]["H"]  # the classic deck: two colours
