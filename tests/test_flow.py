"""The interaction flow when Discord's edge fails, answers late, or players press at the same time.

Real discord.py objects, a real SQLite file; Discord's HTTP edge refuses (404 Unknown interaction),
drops the connection or answers late as the real one does (tests/support/harness.py: Hub.fail)."""

import asyncio
import logging

import pytest

from pyramide import STOCK, WASTE, Game
from tests.support.deals import kings_and_pairs
from tests.support.harness import (
    ADMIN,
    CHANNEL_ID,
    GUILD_ID,
    MANAGE_MESSAGES,
    OTHER_CHANNEL_ID,
    OWNER,
    PLAIN,
    STRANGER,
    labels,
    start,
)
from tests.support.manager_turns import play


@pytest.mark.parametrize(("kind", "seconds"), [("unknown", 0.0), ("network", 0.0), ("slow", 3.2)])
async def test_a_lost_answer_never_leaves_a_dead_board(harness, kind, seconds):
    await start(harness, kings_and_pairs().code)
    board_id = int(harness.board()["id"])
    king = harness.board_button("K♠")
    harness.hub.fail("callback", kind, seconds)
    await harness.press(king, board_id)  # stored, but Discord never shows the answer
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 1
    assert "K♠" in labels(harness.hub.messages[board_id])  # the message still shows the old board
    sent = await harness.press(harness.board_button("Draw (23)"), board_id)
    assert sent[-1].data["type"] == 7 and not sent[-1].ephemeral
    assert "brought up to date" in sent[-1].content and "out of date" not in sent[-1].content
    assert "K♠" not in labels(harness.hub.messages[board_id]) and live.game.moves == 1
    sent = await harness.press(harness.board_button("Draw (23)"), board_id)  # and it plays again
    assert "You drew" in sent[-1].content and live.game.moves == 2


async def test_a_lost_answer_to_the_winning_move_still_brings_the_new_game_buttons(harness):
    await start(harness, kings_and_pairs().code)
    board_id = int(harness.board()["id"])
    live = await harness.bot.manager.live(CHANNEL_ID)
    game = live.game
    while game.removed < 27:  # play all but the last removal through the manager
        move = next(m for m in game.legal_moves() if m.kind in ("pair", "king"))
        await play(harness.bot.manager, CHANNEL_ID, lambda g, m=move: g.play(m))
    await harness.press(harness.board_button("Hint"), board_id)  # the board shows the position
    last = next(m for m in game.legal_moves() if m.kind in ("pair", "king"))
    assert last.kind == "king"
    name = str(game.card_at(last.spots[0]))
    harness.hub.fail("callback", "unknown")
    await harness.press(harness.board_button(name), board_id)
    assert await harness.storage.live_game(CHANNEL_ID) is None  # won and recorded
    sent = await harness.press(harness.board_button("Undo"), board_id)
    assert sent[-1].data["type"] == 7 and "You won!" in sent[-1].content
    assert labels(harness.hub.messages[board_id]) == [
        "New game",
        "Same deal again",
        "Show a winning line",
        "Replay my game",
    ]


async def test_end_and_hint_racing_moves_leave_the_newest_board(harness):
    await start(harness, kings_and_pairs().code)
    board_id = int(harness.board()["id"])
    draw = harness.board_button("Draw (23)")
    hint = harness.board_button("Hint")
    known = asyncio.all_tasks()
    harness.fire(harness.press_payload(hint, harness.hub.messages[board_id]), board_id)
    harness.fire(harness.press_payload(draw, harness.hub.messages[board_id]), board_id)
    await harness.settle(known)
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 1
    newest = harness.hub.messages[board_id]
    version = live.game.version
    assert all(c.split(":")[2] == str(version) for c in _ids(newest)), "the last edit is the newest board"
    # End pressed on the board a draw just changed: it ends nothing unseen, it shows the newest board.
    known = asyncio.all_tasks()
    end = harness.board_button("End")
    draw = harness.board_button("Draw (22)")
    harness.fire(harness.press_payload(draw, harness.hub.messages[board_id]), board_id)
    harness.fire(harness.press_payload(end, harness.hub.messages[board_id]), board_id)
    await harness.settle(known)
    assert live.game.moves == 2 and await harness.storage.live_game(CHANNEL_ID) is not None
    assert all(c.split(":")[2] == str(live.game.version) for c in _ids(harness.hub.messages[board_id]))
    await harness.press(harness.board_button("End"), board_id)
    assert labels(harness.hub.messages[board_id]) == [
        "New game",
        "Same deal again",
        "Show a winning line",
        "Replay my game",
    ]
    assert [r.status for r in await harness.storage.results(GUILD_ID, OWNER)] == ["ended"]


def _ids(message):
    return [c["custom_id"] for row in message["components"] for c in row["components"]]


async def test_permission_is_checked_against_the_game_actually_changed(harness):
    await start(harness, "PY1-N-AAAAAAS")
    # An admin replaces the owner's game while the owner's typed draw waits for the channel.
    await harness.command("new", user=ADMIN, code="PY1-N-AAAAAAA", permissions=PLAIN | MANAGE_MESSAGES)
    prompt = harness.hub.sent[-1]
    known = asyncio.all_tasks()
    async with harness.bot.manager.turn(CHANNEL_ID):
        replace = harness.press_payload(
            prompt.button("End it and deal a new one"), harness.hub.messages[int(harness.hub.history[-1]["id"])], ADMIN
        )
        replace["member"]["permissions"] = str(PLAIN | MANAGE_MESSAGES)
        harness.fire(replace, int(harness.hub.history[-1]["id"]))
        await harness.queued(CHANNEL_ID, 2)  # the replace waits for the channel
        draw = harness.command_payload("draw", user=OWNER)
        harness.fire(draw)
        await harness.queued(CHANNEL_ID, 3)  # and the draw behind it
    await harness.settle(known)
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.record.owner_id == ADMIN and live.game.moves == 0  # the owner's draw did not land on it
    answer = harness.answers(draw["token"])[-1]
    assert f"This is <@{ADMIN}>'s game" in answer.content and answer.ephemeral


async def test_a_private_answer_stays_private_when_it_had_to_be_deferred(harness):
    await start(harness, "PY1-N-AAAAAAS")
    known = asyncio.all_tasks()
    async with harness.bot.manager.turn(CHANNEL_ID):  # another request holds the channel for 1.5 s
        covered = harness.command_payload("tap", card="Q♠")
        stranger = harness.command_payload("draw", user=STRANGER)
        harness.fire(covered)
        harness.fire(stranger)
        for payload in (covered, stranger):  # both deferred by the watchdog while they wait
            await harness.hub.first_answer(payload["token"])
    await harness.settle(known)
    for payload, words in ((covered, "This card is blocked"), (stranger, "This is <@")):
        sent = harness.answers(payload["token"])
        deferral = sent[0]
        assert deferral.data["type"] == 5 and deferral.flags & 64  # private from the first byte
        assert words in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 0


async def test_a_typed_move_deferred_in_a_busy_channel_still_posts_its_board(harness):
    await start(harness, "PY1-N-AAAAAAS")
    known = asyncio.all_tasks()
    async with harness.bot.manager.turn(CHANNEL_ID):
        draw = harness.command_payload("draw")
        harness.fire(draw)
        await harness.hub.first_answer(draw["token"])  # deferred by the watchdog while it waits
    await harness.settle(known)
    sent = harness.answers(draw["token"])
    assert sent[0].data["type"] == 5 and not sent[0].flags & 64  # a move: public
    assert any(s.png for s in sent) and "You drew" in sent[-1].content
    assert int(harness.board()["id"]) == (await harness.storage.live_game(CHANNEL_ID)).message_id


async def test_winnable_new_in_a_busy_channel_asks_privately_before_any_deferral(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.command("new", winnable=True, user=STRANGER)
    assert len(sent) == 1 and sent[0].data["type"] == 4 and sent[0].ephemeral
    assert "already running" in sent[0].content
    assert (await harness.storage.live_game(CHANNEL_ID)).code == "PY1-N-AAAAAAS"


async def test_the_replace_prompt_works_once(harness):
    await start(harness, "PY1-N-AAAAAAS")
    prompt = (await harness.command("new", code="PY1-N-AAAAAAA"))[-1]
    replace = prompt.button("End it and deal a new one")
    sent = await harness.press(replace)
    assert sent[0].data["type"] == 7 and sent[0].body["components"] == []  # the prompt loses its buttons
    dealt = await harness.storage.live_game(CHANNEL_ID)
    assert dealt.code == "PY1-N-AAAAAAA"
    sent = await harness.press(replace)  # a second press on the same (old render of the) prompt
    assert "already answered" in sent[-1].content
    assert (await harness.storage.live_game(CHANNEL_ID)).id == dealt.id  # the new game was not ended


async def test_winnable_replace_finds_a_winnable_deal_after_the_choice(harness):
    await start(harness, "PY1-N-AAAAAAS")
    prompt = (await harness.command("new", winnable=True))[-1]
    sent = await harness.press(prompt.button("End it and deal a new one"))
    assert sent[0].data["type"] == 6  # deferred before the solver looked for a deal
    from pyramide.solver import solve

    record = await harness.storage.live_game(CHANNEL_ID)
    assert record.code != "PY1-N-AAAAAAS" and solve(Game.from_code(record.code)).won


@pytest.mark.parametrize(
    "custom_id",
    ["pyr:-1:0:s", "pyr:5:0:", "pyr:5:0:S", "pyr:99999999999999999999:0:s", "pyr:0:0:s", "pyr:5:0:zz", "pyrx:1"],
)
async def test_malformed_or_forged_ids_are_answered_without_an_error(harness, custom_id, caplog):
    await start(harness, "PY1-N-AAAAAAS")
    board = harness.board()
    board["components"][0]["components"][0]["custom_id"] = custom_id
    harness.hub.history.append(board)
    caplog.set_level(logging.WARNING)
    sent = await harness.press(custom_id)
    assert sent and sent[-1].ephemeral and "out of date" in sent[-1].content
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 0


async def test_same_deal_again_only_from_this_channel(harness):
    await start(harness, "PY1-N-AAAAAAS")
    await harness.press(harness.board_button("End"))
    finished = harness.board()
    again = harness.board_button("Same deal again")
    # The same finished board pressed from another channel (a forged or copied message).
    payload = harness.press_payload(again, {**finished, "channel_id": str(OTHER_CHANNEL_ID)})
    known = asyncio.all_tasks()
    harness.fire(payload, int(finished["id"]))
    await harness.settle(known)
    assert "out of date" in harness.answers(payload["token"])[-1].content
    assert await harness.storage.live_game(OTHER_CHANNEL_ID) is None


async def test_a_long_card_name_is_answered_within_discords_limits(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.command("tap", card="Z" * 5000)
    assert sent[-1].ephemeral and "card must be 1 to 40 characters long" in sent[-1].content
    sent = await harness.command("tap", card="Z" * 40)
    assert sent[-1].ephemeral and "is not a card" in sent[-1].content
    assert len(sent[-1].content) < 200


async def test_one_hint_per_game_at_a_time_and_a_repeated_hint_costs_nothing(harness, monkeypatch):
    await start(harness, kings_and_pairs().code)
    calls = []
    real = harness.bot.workers.hints.run

    async def counted(function, game, *args):
        calls.append(game.version)
        return await real(function, game, *args)

    monkeypatch.setattr(harness.bot.workers.hints, "run", counted)
    board_id = int(harness.board()["id"])
    hint = harness.board_button("Hint")
    known = asyncio.all_tasks()
    for _ in range(3):
        harness.fire(harness.press_payload(hint, harness.hub.messages[board_id]), board_id)
    await harness.settle(known)
    await harness.command("hint")
    assert calls == [0]  # one search for the position, whoever asked
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record.hints == 4  # every hint shown is counted


async def test_too_many_hints_at_once_are_refused_as_busy(harness):
    harness.bot.solver.limits["hint"] = 0
    await start(harness, kings_and_pairs().code)
    sent = await harness.press(harness.board_button("Hint"))
    assert "busy" in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64


async def test_a_stuck_ending_move_is_deferred_before_the_verdict_is_worked_out(harness, monkeypatch):
    from tests.support.deals import STUCK_ORDER, stuck_layout

    pyramid, waste, stock = stuck_layout()
    await start(harness, Game.from_layout(pyramid, waste, stock).code)
    manager = harness.bot.manager
    game = (await manager.live(CHANNEL_ID)).game
    # The stuck deal's line through the manager, all but its last tap (the waste top).
    taps = [WASTE] + [spot for index in STUCK_ORDER for spot in (STOCK, WASTE, index)] + [STOCK, WASTE] * 2 + [STOCK]
    for spot in taps:
        await play(manager, CHANNEL_ID, lambda g, s=spot: g.tap(s))
    assert game.outcome is None and len(game.stock) == 0
    seen = []
    solver = harness.bot.solver
    real = solver.verdict

    async def watched(code):
        seen.append([s.data["type"] for s in harness.hub.sent[-3:] if s.path.endswith("/callback")])
        return await real(code)

    monkeypatch.setattr(solver, "verdict", watched)
    board_id = int(harness.board()["id"])
    await harness.press(harness.board_button("Hint"), board_id)  # bring the message up to date
    top = harness.board_button(str(game.card_at("waste")))
    sent = await harness.press(top, board_id)
    assert "No more possible moves" in sent[-1].content, [s.content for s in sent]
    assert seen and seen[0][-1] == 6  # the press was acknowledged before the solver was asked


async def test_a_dead_game_says_so_and_offers_a_new_deal(harness):
    """PY1-N-AAAAAAJ played greedily: after 40 moves no card can ever be removed again, though cards can
    still be drawn (so the rule texts' "No more possible moves" does not apply yet)."""
    await start(harness, "PY1-N-AAAAAAJ")
    manager = harness.bot.manager
    game = (await manager.live(CHANNEL_ID)).game
    for _ in range(40):
        moves = game.legal_moves()
        removals = [m for m in moves if m.kind in ("pair", "king")]
        await play(manager, CHANNEL_ID, lambda g, m=(removals[0] if removals else moves[-1]): g.play(m))
    assert game.outcome is None and game.legal_moves()  # formally the game goes on
    board_id = int(harness.board()["id"])
    await harness.press(harness.board_button("Hint"), board_id)  # the message catches up
    sent = await harness.press(harness.board_button("Hint"), board_id)
    assert f"No card can be removed any more: the most this deal allows now is {game.removed} cards" in sent[-1].content
    assert labels(harness.hub.messages[board_id])[-2:] == ["New game", "Same deal again"]
    sent = await harness.press(harness.board_button("Same deal again"), board_id)
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record.code == "PY1-N-AAAAAAJ" and record.moves == 0  # dealt again
    ended = await harness.storage.results(GUILD_ID, OWNER)
    assert [r.status for r in ended] == ["ended"]


async def test_every_board_has_alt_text_and_a_hint_colours_its_buttons(harness):
    first = await start(harness, kings_and_pairs().code)
    alt = first.body["attachments"][0]["description"]
    assert alt.startswith("Pyramide board") and "Pyramid cards removed: 0 of 28" in alt and "king of spades" in alt
    sent = await harness.press(harness.board_button("Hint"))
    assert "Hint: K♠." in sent[-1].content
    buttons = {b["label"]: b for b in sent[-1].buttons().values()}
    assert buttons["K♠"]["style"] == 1 and buttons["A♠"]["style"] == 2  # the hinted card is blue
    harness.locale = "ru"
    sent = await harness.press(harness.board_button("Hint"))
    assert sent[-1].body["attachments"][0]["description"].startswith("Доска Pyramide")


async def test_an_idle_game_may_be_replaced_by_anyone_and_counts_as_abandoned(harness):
    from tests.support.harness import MANAGE_GUILD

    await start(harness, "PY1-N-AAAAAAS")
    await harness.command("draw")
    prompt = (await harness.command("new", user=STRANGER, code="PY1-N-AAAAAAA"))[-1]
    assert prompt.buttons()[prompt.button("End it and deal a new one")]["disabled"] is True
    assert "After 15 min without a move, anyone here may replace it." in prompt.content
    harness.now[0] += 16 * 60  # a quarter of an hour and more without a move
    prompt = (await harness.command("new", user=STRANGER, code="PY1-N-AAAAAAA"))[-1]
    assert prompt.buttons()[prompt.button("End it and deal a new one")]["disabled"] is False
    assert "anyone here may end it (it counts as abandoned)" in prompt.content
    await harness.press(prompt.button("End it and deal a new one"), user=STRANGER)
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record.code == "PY1-N-AAAAAAA" and record.owner_id == STRANGER
    rows = await harness.storage.results(GUILD_ID, OWNER)
    assert [r.status for r in rows] == ["abandoned"]  # played, not won
    # a server can choose its own limit
    sent = await harness.command("/pyramide-admin settings", permissions=PLAIN | MANAGE_GUILD, idle_minutes=60)
    assert "after 60 min" in sent[-1].content
    assert (await harness.storage.settings(GUILD_ID)).idle_minutes == 60


async def test_a_new_game_in_a_thread_of_its_own_leaves_the_channel_free(harness):
    from tests.support.harness import MANAGE_GUILD

    await start(harness, "PY1-N-AAAAAAS")  # the channel is busy
    sent = await harness.command("new", user=STRANGER, code="PY1-N-AAAAAAA", thread=True)
    thread = harness.hub.threads[-1]
    assert thread["type"] == 11 and int(thread["parent_id"]) == CHANNEL_ID  # a public thread of the channel
    link = sent[-1]
    assert not link.ephemeral and f"<#{thread['id']}>" in link.content
    board = next(s for s in sent if s.path == "/channels/{channel_id}/messages" and s.png)
    assert f"/channels/{thread['id']}/messages" in board.url
    record = await harness.storage.live_game(int(thread["id"]))
    assert record.code == "PY1-N-AAAAAAA" and record.owner_id == STRANGER and record.message_id is not None
    assert (await harness.storage.live_game(CHANNEL_ID)).code == "PY1-N-AAAAAAS"  # untouched
    # a server may make threads the default
    await harness.command("/pyramide-admin settings", permissions=PLAIN | MANAGE_GUILD, new_in_thread=True)
    before = len(harness.hub.threads)
    await harness.command("new", user=ADMIN, code="PY1-N-AAAAAAB")
    assert len(harness.hub.threads) == before + 1
    # without the permission to make threads, the player is told which one is missing
    harness.app_permissions = PLAIN | (1 << 15)
    sent = await harness.command("new", user=STRANGER, thread=True)
    assert "I need the Create Public Threads permission" in sent[-1].content and sent[-1].ephemeral
