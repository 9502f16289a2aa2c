"""The rules of RULES.md, example by example."""

import pytest

from pyramide import STOCK, UNDER, WASTE, Card, Game, GameResult, InvalidSpot, Rules
from pyramide import effects as ev
from pyramide.cards import full_deck
from tests.support.deals import (
    EXAMPLE_PYRAMID,
    EXAMPLE_STOCK,
    clear_kings_and_pairs,
    example_game,
    kings_and_pairs,
    play_stuck_line,
    spot_of,
    stuck_game,
)

C = Card.parse


def test_only_bottom_row_and_waste_are_free_at_start(example):
    assert example.free_spots() == [21, 22, 23, 24, 25, 26, 27, WASTE]
    assert example.score == 0 and example.moves == 0 and example.outcome is None
    assert len(example.stock) == 23 and example.waste == (C("7♦"),)


def test_tapping_covered_queen_of_clubs_is_blocked(example):
    q = spot_of(example, "Q♣")
    assert q == 15
    before = example.state()
    event = example.tap(q)
    assert event == ev.Blocked(q, C("Q♣"))
    assert example.state() == before


def test_seven_and_seven_is_not_13_and_second_stays_selected(example):
    assert example.tap_card("7♣") == ev.Selected(21, C("7♣"))
    event = example.tap_card("7♠")
    assert isinstance(event, ev.SumNot13)
    assert (event.first, event.second) == (C("7♣"), C("7♠"))
    assert example.selected == 27
    assert example.moves == 0 and example.removed == 0


def test_first_move_king_second_pair_leaves_row_seven_with_gaps(example):
    first = example.tap_card("K♦")
    assert first == ev.KingRemoved(26, C("K♦"), 10)
    example.tap_card("10♣")
    second = example.tap_card("3♠")
    assert isinstance(second, ev.PairRemoved) and set(second.cards) == {C("10♣"), C("3♠")}
    assert second.points == 20
    row7 = example.pyramid[21:28]
    assert row7 == (C("7♣"), None, C("3♥"), C("4♥"), None, None, C("7♠"))
    assert example.score == 30 and example.moves == 2


def test_tapping_the_selected_card_again_deselects(example):
    example.tap(21)
    assert example.tap(21) == ev.Deselected(21, C("7♣"))
    assert example.selected is None


def test_pair_with_the_waste_scores_10():
    # 7♦ on the waste pairs with 6♥? It is covered; draw until a partner of a free card is on top.
    game = example_game(stock=["6♦", *[c for c in EXAMPLE_STOCK if c != "6♦"]])
    game.tap(STOCK)  # 6♦ onto the waste
    game.tap(WASTE)
    event = game.tap_card("7♠")
    assert isinstance(event, ev.PairRemoved)
    assert event.points == 10 and game.score == 10
    assert game.waste == (C("7♦"),)


def test_king_from_the_waste_scores_nothing():
    stock = ["K♠" if c == "K♠" else c for c in EXAMPLE_STOCK]
    # K♠ is in the pyramid of the example; build a deal with a king in the stock instead.
    pyramid = [("2♠" if c == "K♠" else c) for c in EXAMPLE_PYRAMID]
    stock = ["K♠", *[c for c in EXAMPLE_STOCK if c != "2♠"]]
    game = Game.from_layout(pyramid, ["7♦"], stock)
    game.tap(STOCK)
    event = game.tap(WASTE)
    assert event == ev.KingRemoved(WASTE, C("K♠"), 0)
    assert game.score == 0 and game.moves == 2 and game.waste == (C("7♦"),)


def test_draw_and_turn_back_keep_the_order_over_several_passes(example):
    order = list(example.waste) + list(example.stock)
    for _ in range(3):
        drawn = [example.waste[-1]]
        for _ in range(23):
            event = example.tap(STOCK)
            assert isinstance(event, ev.Drew)
            drawn.append(event.card)
        assert drawn == order
        assert example.stock == ()
        turned = example.tap(STOCK)
        assert turned == ev.TurnedBack(24, example.passes)
        assert example.stock == tuple(order) and example.waste == ()
        first = example.tap(STOCK)
        assert first == ev.Drew(order[0])
    assert example.passes == 3
    assert example.outcome is None


def test_drawn_card_cannot_pair_with_the_waste_card_it_covers():
    # 7♦ on the waste, 6♣ drawn onto it: 6 + 7 = 13, but only the top counts.
    stock = ["6♠", *[c for c in EXAMPLE_STOCK if c != "6♠"]]
    game = example_game(stock=stock)
    game.tap(STOCK)
    assert game.tap(UNDER) == ev.NothingToDo(UNDER)
    assert game.tap_card("7♦") == ev.NotInPlay(C("7♦"), removed=False)
    assert not any(m.spots == (WASTE, UNDER) for m in game.legal_moves())


def test_drawn_card_pairs_with_the_waste_card_under_it_in_that_variant():
    stock = ["6♠", *[c for c in EXAMPLE_STOCK if c != "6♠"]]
    game = example_game(Rules(draw_with_waste=True), stock=stock)
    game.tap(STOCK)
    assert ev.Selected(UNDER, C("7♦")) == game.tap_card("7♦")
    event = game.tap(WASTE)
    assert event == ev.PairRemoved((UNDER, WASTE), (C("7♦"), C("6♠")), 0)
    assert game.waste == () and game.score == 0


def test_under_card_pairs_only_with_the_top_in_that_variant():
    stock = ["6♠", *[c for c in EXAMPLE_STOCK if c != "6♠"]]
    game = example_game(Rules(draw_with_waste=True), stock=stock)
    game.tap(STOCK)  # waste: 7♦ under 6♠; 7♦ + 6♥ would be 13 but 6♥ is not the top
    game.tap_card("6♠")
    game.tap_card("7♣")  # 6♠ + 7♣ from the top works as usual
    assert game.waste == (C("7♦"),) and game.score == 10
    game = example_game(Rules(draw_with_waste=True), stock=["6♦", *[c for c in EXAMPLE_STOCK if c != "6♦"]])
    game.tap(STOCK)
    game.tap(UNDER)  # 7♦ selected as the under card
    event = game.tap_card("6♥")  # covered in the pyramid
    assert isinstance(event, ev.Blocked)
    assert game.pyramid[spot_of(game, "6♥")] == C("6♥")


def _cover_game(rules: Rules = Rules()) -> Game:
    """The example deal with A♥ and a king on Q♣ (index 15): once the king goes, A♥ is its only cover."""
    pyramid = list(EXAMPLE_PYRAMID)
    pyramid[21], pyramid[22], pyramid[26] = "A♥", "K♦", "10♣"
    pyramid[pyramid.index("A♦")] = "7♣"
    stock = [str(c) for c in full_deck() if str(c) not in pyramid and str(c) != "7♦"]
    return Game.from_layout(pyramid, ["7♦"], stock, rules)


def test_card_cannot_pair_with_its_cover():
    game = _cover_game()
    game.tap(22)  # the king on Q♣ goes
    assert game.covering(15) == (21,)
    game.tap(21)  # A♥ selected
    assert game.tap(15) == ev.Blocked(15, C("Q♣"))
    assert game.pyramid[15] == C("Q♣") and game.pyramid[21] == C("A♥")
    assert not any(set(m.spots) == {15, 21} for m in game.legal_moves())


def test_card_pairs_with_its_only_cover_in_that_variant():
    game = _cover_game(Rules(pair_with_cover=True))
    assert game.tap(15) == ev.Blocked(15, C("Q♣"))  # two covers still lie on it
    game.tap(22)
    assert 15 in game.selectable_spots() and 15 not in game.free_spots()
    assert any(m.spots == (15, 21) for m in game.legal_moves())
    game.tap(15)
    event = game.tap(21)
    assert isinstance(event, ev.PairRemoved) and event.points == 20
    assert game.pyramid[15] is None and game.pyramid[21] is None


def test_card_with_cover_variant_pairs_only_with_that_cover():
    game = _cover_game(Rules(pair_with_cover=True))
    game.tap(22)  # only A♥ (21) lies on Q♣ now
    while game.waste[-1] != C("A♣"):
        game.tap(STOCK)
    game.tap(15)  # Q♣ selected through the variant
    event = game.tap(WASTE)  # A♣ sums to 13 but Q♣ is still covered by A♥
    assert event == ev.Blocked(15, C("Q♣"))
    assert game.selected == WASTE and game.pyramid[15] == C("Q♣")


def test_limited_passes():
    game = example_game(Rules(pass_limit=1))
    for _ in range(23):
        assert not game.can_turn  # cards still to draw
        game.tap(STOCK)
    assert game.can_turn
    assert isinstance(game.tap(STOCK), ev.TurnedBack)
    for _ in range(24):
        game.tap(STOCK)
    assert not game.can_turn  # the one allowed turn is used
    moves = game.moves
    assert game.tap(STOCK) == ev.NoPassesLeft(1)
    assert game.moves == moves and game.passes == 1
    assert not any(m.kind == "turn" for m in game.legal_moves())


def test_three_pass_game_allows_two_turns():
    game = example_game(Rules(pass_limit=2))
    turns = 0
    for _ in range(200):
        if isinstance(game.tap(STOCK), ev.TurnedBack):
            turns += 1
    assert turns == 2 and game.passes == 2


def test_strict_win_requires_stock_and_waste_cleared():
    game = kings_and_pairs(Rules(strict_win=True))
    clear_kings_and_pairs(game)
    assert game.removed == 28 and game.score == 280
    assert game.outcome is None  # the stock and waste still hold 24 cards
    relaxed = kings_and_pairs()
    clear_kings_and_pairs(relaxed)
    assert relaxed.outcome == GameResult.WON and len(relaxed.stock) == 23


def test_strict_one_pass_game_is_stuck_with_cards_left_outside():
    game = kings_and_pairs(Rules(strict_win=True, pass_limit=0))
    clear_kings_and_pairs(game)
    for _ in range(23):
        game.tap(STOCK)
    assert game.outcome == GameResult.STUCK


def test_strict_win_with_drawn_card_against_waste_clears_everything():
    game = kings_and_pairs(Rules(strict_win=True, draw_with_waste=True))
    clear_kings_and_pairs(game)
    game.tap(STOCK)  # Q♦ onto A♦
    game.tap(WASTE)
    game.tap(UNDER)
    for _ in range(11):
        assert game.outcome is None
        game.tap(STOCK)
        game.tap(STOCK)
        game.tap(UNDER)
        game.tap(WASTE)
    assert game.stock == () and game.waste == ()
    assert game.outcome == GameResult.WON and game.score == 280


def test_won_game_scores_280_and_ends_at_once():
    game = kings_and_pairs()
    clear_kings_and_pairs(game)
    assert game.outcome == GameResult.WON
    assert game.score == 280 and game.moves == 16
    assert game.tap(STOCK) == ev.GameOver(GameResult.WON)
    assert game.undo() == ev.GameOver(GameResult.WON)


def test_stuck_exactly_when_stock_and_waste_are_empty_and_nothing_can_go():
    game = stuck_game()
    play_stuck_line(game, check=True)
    assert game.stock == () and game.waste == () and game.removed == 20
    assert game.outcome == GameResult.STUCK and game.score == 200
    assert game.legal_moves() == []
    assert game.tap(5) == ev.GameOver(GameResult.STUCK)


def test_stuck_position_is_playable_with_the_cover_variant():
    game = stuck_game(Rules(pair_with_cover=True))
    play_stuck_line(game)
    assert game.outcome is None
    assert any(set(m.spots) == {4, 7} for m in game.legal_moves())


def test_never_stuck_while_a_card_can_be_drawn_or_turned_back():
    game = stuck_game()
    for _ in range(500):  # draw and turn back without removing anything
        game.tap(STOCK)
        assert game.outcome is None
    assert game.passes > 0


def test_one_pass_game_goes_on_while_a_removal_exists():
    game = example_game(Rules(pass_limit=0))
    for _ in range(23):
        game.tap(STOCK)
    assert game.tap(STOCK) == ev.NoPassesLeft(0)
    assert game.outcome is None  # K♦ is free at the bottom
    game.tap_card("K♦")
    assert game.outcome is None


def test_undo_101_actions_then_100_undos():
    game = Game.from_code("PY1-N-AAAAAAS")
    assert game.tap(22) == ev.KingRemoved(22, C("K♠"), 10)  # the first action
    after_first = game.state()
    for _ in range(100):  # draws and turns of the waste
        assert game.tap(STOCK).is_action
    assert game.moves == 101 and game.passes > 0
    for _ in range(100):
        assert isinstance(game.undo(), ev.Undone)
    state = game.state()
    assert state[:5] == after_first[:5] and game.passes == 0  # cards, selection and score as after move 1
    assert game.score == 10 and game.pyramid[22] is None
    assert game.moves == 101  # the move counter never goes down
    assert game.undo() == ev.NothingToUndo()  # only the last 100 actions can be taken back
    assert game.pyramid[22] is None and game.score == 10


def test_undo_restores_cards_and_score_but_not_moves(example):
    example.tap_card("K♦")
    example.tap_card("10♣")
    example.tap_card("3♠")
    assert example.score == 30
    assert example.undo() == ev.Undone("pair", 20)
    assert example.score == 10 and example.moves == 2
    assert example.pyramid[22] == C("10♣") and example.pyramid[25] == C("3♠")
    assert example.undo() == ev.Undone("king", 10)
    assert example.pyramid == example_game().pyramid and example.score == 0 and example.moves == 2


def test_undo_of_a_turn_back_and_of_a_waste_pair():
    game = example_game(stock=["6♦", *[c for c in EXAMPLE_STOCK if c != "6♦"]])
    game.tap(STOCK)
    game.tap(WASTE)
    game.tap_card("7♠")
    assert game.undo() == ev.Undone("pair", 10)
    assert game.waste == (C("7♦"), C("6♦")) and game.pyramid[27] == C("7♠")
    for _ in range(22):
        game.tap(STOCK)
    waste = game.waste
    game.tap(STOCK)
    assert game.passes == 1
    assert game.undo() == ev.Undone("turn", 0)
    assert game.passes == 0 and game.waste == waste and game.stock == ()


def test_invalid_spot_raises(example):
    with pytest.raises(InvalidSpot):
        example.tap(28)
    with pytest.raises(InvalidSpot):
        example.tap("pile")


def test_tap_card_with_bad_names_gives_events_not_exceptions(example):
    event = example.tap_card("Z♣")
    assert isinstance(event, ev.UnknownCard) and "no rank" in event.reason
    assert example.tap_card("2♥") == ev.NotInPlay(C("2♥"), removed=False)
    example.tap_card("K♦")
    assert example.tap_card("K♦") == ev.NotInPlay(C("K♦"), removed=True)


def test_tapping_a_removed_place_does_nothing(example):
    example.tap_card("K♦")
    assert example.tap(26) == ev.NothingToDo(26)


def test_replay_rebuilds_selection_and_undo_history(example):
    example.tap_card("K♦")
    example.tap(STOCK)
    example.undo()
    example.tap(21)
    again = Game.replay(example.code, example.actions)
    assert again.state() == example.state()
    assert again.undo() == example.undo()
    assert again.state() == example.state()


def test_play_completes_a_pair_whatever_is_selected(example):
    pair = next(m for m in example.legal_moves() if m.kind == "pair")
    for selected in (None, pair.spots[0], pair.spots[1], 21):
        game = example_game()
        if selected is not None:
            game.tap(selected)
        event = game.play(pair)
        assert isinstance(event, ev.PairRemoved), (selected, event)
        assert game.selected is None and game.moves == 1
