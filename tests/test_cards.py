import pytest

from pyramide import Card, InvalidCard
from pyramide.cards import full_deck


@pytest.mark.parametrize("text", ["10♣", "10C", "TC", "tc", "10c", " 10 ♣ ", "T♣", "10♧"])
def test_ten_of_clubs_spellings(text):
    card = Card.parse(text)
    assert card.value == 10
    assert str(card) == "10♣"


@pytest.mark.parametrize(
    ("text", "shown", "value"),
    [
        ("Q♠", "Q♠", 12),
        ("QS", "Q♠", 12),
        ("K♦", "K♦", 13),
        ("kd", "K♦", 13),
        ("A♥", "A♥", 1),
        ("2h", "2♥", 2),
        ("J♣", "J♣", 11),
    ],
)
def test_parse_and_display(text, shown, value):
    card = Card.parse(text)
    assert str(card) == shown
    assert card.value == value


@pytest.mark.parametrize("text", ["", "X", "11C", "ZS", "QX", "10", "♣", "AAS", "0C"])
def test_bad_names_raise_a_value_error_with_a_message(text):
    with pytest.raises(InvalidCard) as info:
        Card.parse(text)
    assert isinstance(info.value, ValueError)
    assert str(info.value)


def test_round_trip_of_all_52_cards():
    deck = full_deck()
    assert len(set(deck)) == 52
    for card in deck:
        assert Card.parse(str(card)) == card
        assert Card.parse(card.ascii) == card
        assert Card.from_index(card.index) == card


def test_colours():
    assert Card.parse("K♦").is_red and Card.parse("A♥").is_red
    assert not Card.parse("K♠").is_red and not Card.parse("A♣").is_red
