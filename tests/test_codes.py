import pytest

from pyramide import Card, Game, InvalidCode, InvalidLayout, Rules
from pyramide.codes import SplitMix64, decode_number
from tests.support.deals import EXAMPLE_PYRAMID, EXAMPLE_STOCK, EXAMPLE_WASTE, example_game

# Pinned forever: a code must deal the same cards on every machine and Python version.
PINNED = {
    "PY1-N-AAAAAAA": (
        "8♣ J♦ 9♠ 2♣ 2♥ Q♥ 6♣ 10♠ 3♥ A♠ J♠ 7♠ 9♦ 8♠ Q♣ K♦ 5♦ 2♠ 3♦ 5♠ A♦ 6♠ 4♣ 10♥ 5♥ 8♦ 8♥ A♥",
        "Q♦",
        "10♣ Q♠ J♥ 3♣ 4♥ 2♦ 9♥ 3♠ K♥ A♣ 7♣ 9♣ 7♥ J♣ 6♦ K♣ 4♠ 7♦ 5♣ 6♥ 4♦ K♠ 10♦",
    ),
    "PY1-N-AAAAAAS": (
        "A♥ 3♠ 7♥ 6♠ 5♠ 8♥ 2♦ 4♠ 8♠ 2♥ K♥ Q♥ 6♣ 8♦ 8♣ 9♦ 3♦ 4♥ 10♣ Q♠ K♦ 5♥ K♠ 2♣ J♦ 3♥ 10♦ A♣",
        "10♠",
        "3♣ 4♣ 9♥ Q♦ 9♠ 7♣ 10♥ 9♣ 2♠ 6♦ 5♦ A♦ 5♣ J♥ A♠ 7♦ J♣ 4♦ K♣ 6♥ J♠ 7♠ Q♣",
    ),
    "PY1-N-7777777": (
        "Q♥ K♠ 7♥ 6♣ K♥ 2♦ A♦ 4♦ 5♦ 7♠ 5♥ 9♠ 10♠ A♣ 4♣ J♠ Q♠ 4♠ 9♦ Q♣ 10♣ J♥ A♥ 3♥ 8♠ J♦ A♠ 3♠",
        "7♣",
        "8♣ 10♥ 6♠ 8♦ 4♥ 2♠ K♦ 6♥ 3♦ K♣ 8♥ 10♦ 9♥ 5♠ 5♣ J♣ 6♦ 2♥ 7♦ 9♣ 3♣ Q♦ 2♣",
    ),
}


def cards(text):
    return tuple(Card.parse(c) for c in text.split())


@pytest.mark.parametrize("code", sorted(PINNED))
def test_pinned_codes_deal_the_same_cards_forever(code):
    pyramid, waste, stock = PINNED[code]
    game = Game.from_code(code)
    assert game.pyramid == cards(pyramid)
    assert game.waste == cards(waste)
    assert game.stock == cards(stock)


def test_generator_matches_the_published_splitmix64_vectors():
    rng = SplitMix64(0)
    assert rng.next() == 0xE220A8397B1DCDAF
    rng = SplitMix64(1234567)
    assert [rng.next(), rng.next()] == [6457827717110365317, 3203168211198807973]


def test_deal_part_is_base32_number():
    assert decode_number("AAAAAAS") == 18
    assert Game.from_number(18).code == "PY1-N-AAAAAAS"


@pytest.mark.parametrize("text", ["py1-n-aaaaaas", "  PY1-N-AAAAAAS\n", "Py1-n-AaAaAaS"])
def test_codes_are_read_case_insensitively_and_canonicalised(text):
    assert Game.from_code(text).code == "PY1-N-AAAAAAS"
    assert Game.from_code(text).pyramid == Game.from_code("PY1-N-AAAAAAS").pyramid


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("PY2-N-AAAAAAS", "unknown code version"),
        ("PY1-X-AAAAAAS", "bad rules token"),
        ("PY1-N-AAAAAA1", "bad characters"),
        ("PY1-N-AAAAAAAA", "wrong length"),
        ("PY1-N-AAAA", "wrong length"),
        ("hello", "PY1-N-AAAAAAS"),
        ("PY1-SS-AAAAAAS", "twice"),
        ("", "not a deal code"),
    ],
)
def test_invalid_codes_say_what_is_wrong(code, words):
    with pytest.raises(InvalidCode) as info:
        Game.from_code(code)
    assert isinstance(info.value, ValueError)
    assert words in str(info.value)


def test_rules_tokens_round_trip():
    for rules in [
        Rules(),
        Rules(strict_win=True),
        Rules(pass_limit=0),
        Rules(pass_limit=2, draw_with_waste=True),
        Rules(strict_win=True, pass_limit=9, draw_with_waste=True, pair_with_cover=True),
    ]:
        assert Rules.from_token(rules.token) == rules
        game = Game.from_number(99, rules)
        assert Game.from_code(game.code).rules == rules
    assert Rules().token == "N"
    assert Rules(strict_win=True, pass_limit=2, draw_with_waste=True, pair_with_cover=True).token == "SP2WC"
    assert Rules.from_token("cws") == Rules(strict_win=True, draw_with_waste=True, pair_with_cover=True)


def test_rules_do_not_change_the_cards():
    assert Game.from_number(5, Rules(pass_limit=0)).pyramid == Game.from_number(5).pyramid


def test_layout_deals_get_a_long_code_that_replays_the_same_cards():
    game = example_game(Rules(draw_with_waste=True))
    code = game.code
    assert code.startswith("PY1-W-") and len(code.split("-")[2]) == 47
    again = Game.from_code(code.lower())
    assert again.pyramid == game.pyramid
    assert again.waste == game.waste
    assert again.stock == game.stock
    assert again.rules == game.rules
    assert again.code == code


def test_layout_code_keeps_a_larger_waste():
    game = Game.from_layout(EXAMPLE_PYRAMID, EXAMPLE_WASTE + EXAMPLE_STOCK[:3], EXAMPLE_STOCK[3:])
    again = Game.from_code(game.code)
    assert len(again.waste) == 4 and again.waste == game.waste and again.stock == game.stock


@pytest.mark.parametrize(
    ("pyramid", "waste", "stock", "words"),
    [
        (EXAMPLE_PYRAMID[:27], EXAMPLE_WASTE, EXAMPLE_STOCK, "28 cards"),
        (EXAMPLE_PYRAMID, EXAMPLE_WASTE, EXAMPLE_STOCK[:-1], "missing"),
        (EXAMPLE_PYRAMID, EXAMPLE_WASTE, [*EXAMPLE_STOCK[:-1], "J♦"], "twice"),
    ],
)
def test_layouts_that_are_not_a_deck_are_rejected(pyramid, waste, stock, words):
    with pytest.raises(InvalidLayout) as info:
        Game.from_layout(pyramid, waste, stock)
    assert words in str(info.value)


def test_layout_with_a_bad_card_name_is_rejected():
    with pytest.raises(ValueError, match="no rank"):
        Game.from_layout([*EXAMPLE_PYRAMID[:-1], "ZZ♠"], EXAMPLE_WASTE, EXAMPLE_STOCK)


def test_layout_code_out_of_range_is_rejected():
    with pytest.raises(InvalidCode, match="does not describe"):
        Game.from_code("PY1-N-" + "7" * 47)


def test_random_deals_differ_and_carry_short_codes():
    codes = {Game.new().code for _ in range(20)}
    assert len(codes) == 20
    assert all(len(c) == len("PY1-N-AAAAAAS") for c in codes)


@pytest.mark.parametrize("code", ["PY1-P10-AAAAAAS", "PY1-SP99W-AAAAAAS"])
def test_more_than_ten_passes_is_refused_with_its_own_reason(code):
    with pytest.raises(InvalidCode) as info:
        Game.from_code(code)
    assert info.value.kind == "passes" and "at most P9" in str(info.value)
    assert Game.from_code(code.replace("P10", "P9").replace("P99", "P9")).rules.pass_limit == 9
