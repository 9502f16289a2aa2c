"""The buttons' ids, built and read back in one module (pyramide_discord/controls.py): each id a button is
sent with is read back as what it was built from, and the ids of earlier versions, still on messages in
Discord, keep working or are answered as out of date, never with an error."""

import logging

from pyramide_discord import controls
from tests.support.finished_games import T0, add_game
from tests.support.harness import CHANNEL_ID, start


def test_every_board_action_round_trips_and_anything_else_is_refused():
    for action in sorted(controls.BOARD_ACTIONS):
        custom_id = controls.board_id(123, 7, action)
        assert controls.ours(custom_id)
        assert controls.parse_board(custom_id.removeprefix("pyr:")) == controls.BoardPress(123, 7, action)
    for rest in ("0:0:s", "5:0:", "5:0:S", "5:0:zz", "-1:0:s", "99999999999999999999:0:s", "5:0:s:x"):
        assert controls.parse_board(rest) is None
    assert controls.spot_of("w") == "waste" and controls.spot_of("21") == 21


def test_the_ids_of_every_kind_of_button_are_ours_and_strangers_are_not():
    sent = [
        controls.new_game_choice("replace", 5, "W-N").custom_id,
        controls.share_button(5).custom_id,
        controls.animation_button("line", 5).custom_id,
        controls.race_give_up(5).custom_id,
        controls.leaderboard_page("week", 2, "n", "P0").custom_id,
        controls.confirmation("pyrreset", "yes", 0).custom_id,
        controls.confirmation("pyrforget", "no", 9).custom_id,
        controls.event_play_button(5).custom_id,
        controls.event_line_button(5, 2).custom_id,
    ]
    assert all(controls.ours(custom_id) for custom_id in sent)
    assert not any(controls.ours(custom_id) for custom_id in ("pyrx:1", "pyrshare:x", "pyrlb:year:1:n", "other"))
    choice = controls.parse_new_game_choice("replace:5:W-N")
    assert choice == controls.NewGameChoice("replace", 5, "W-N")


async def test_a_leaderboard_page_button_sent_before_rule_sets_still_turns_the_page(harness, caplog):
    """``pyrlb:<period>:<page>:<way>`` (no rule set) is what earlier versions sent: it reads as every rule set."""
    for player in range(25):
        await add_game(harness.storage, player=1000 + player, seconds=100.0 + player, finished=T0 + player)
    sent = await harness.command("leaderboard", period="all")
    old = "pyrlb:all:1:n"
    board = dict(harness.hub.history[-1])
    board["components"] = [{"type": 1, "components": [{"type": 2, "style": 2, "custom_id": old, "label": "Next"}]}]
    harness.hub.history.append(board)
    caplog.set_level(logging.WARNING)
    sent = await harness.press(old)
    assert sent[-1].body["embeds"][0]["description"].splitlines()[0].startswith("**11.** <@1010>")
    assert sent[-1].body["embeds"][0]["footer"]["text"] == "Page 2 of 3"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_board_button_of_an_earlier_version_of_the_board_is_brought_up_to_date_not_played(harness):
    await start(harness, "PY1-N-AAAAAAS")
    live = await harness.bot.manager.live(CHANNEL_ID)
    await harness.press(harness.board_button("Draw (23)"))  # the board moves on to version 1
    sent = await harness.press(controls.board_id(live.record.id, 0, controls.TAP_STOCK))
    assert "brought up to date" in sent[-1].content
    assert (await harness.bot.manager.live(CHANNEL_ID)).game.moves == 1  # the old press drew nothing more
