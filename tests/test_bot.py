"""The bot end to end, offline: real discord.py objects, a real SQLite file, only HTTP recorded."""

import asyncio
import io
import logging

import pytest
from PIL import Image

from pyramide import Game, Rules
from pyramide.render import BANNER_BOTTOM, BANNER_TOP, HEIGHT, WIDTH
from tests.support import discord_internals as internals
from tests.support.deals import kings_and_pairs, stuck_layout
from tests.support.harness import (
    CHANNEL_ID,
    GUILD_ID,
    MANAGE_GUILD,
    MANAGE_MESSAGES,
    OTHER_CHANNEL_ID,
    OWNER,
    PLAIN,
    STRANGER,
    Harness,
    labels,
    start,
)

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def said(sent):
    """Everything the bot wrote in answer to one interaction."""
    return "\n".join(s.content for s in sent)


async def test_new_game_posts_the_board_with_a_button_per_free_card(harness):
    first = await start(harness, "py1-n-aaaaaas")
    assert "PY1-N-AAAAAAS" in first.content and "New game dealt." in first.content
    image = Image.open(io.BytesIO(first.png))
    assert image.size == (WIDTH, HEIGHT)
    game = Game.from_code("PY1-N-AAAAAAS")
    names = [str(game.pyramid[i]) for i in game.free_spots() if isinstance(i, int)]
    assert labels(harness.board()) == [*names, str(game.waste[-1]), "Draw (23)", "Undo", "Hint", "End"]
    undo = harness.board()["components"][-1]["components"][0]
    assert undo["disabled"] is True
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record.code == "PY1-N-AAAAAAS" and record.owner_id == OWNER and record.message_id is not None


async def test_a_whole_game_with_buttons_is_won_and_recorded(harness):
    await start(harness, kings_and_pairs().code)
    sent = await harness.press(harness.board_button("K♠"))
    update = sent[-1]
    assert update.path.endswith("/callback") and update.data["type"] == 7  # the same message is updated
    assert "K♠ removed (+10)." in update.content
    assert len(update.body["attachments"]) == 1 and update.png is not None  # the picture is replaced
    # draw through the stock, turn back, draw, undo
    for _ in range(23):
        await harness.press(
            harness.board_button(
                labels(harness.board())[[lab.startswith("Draw") for lab in labels(harness.board())].index(True)]
            )
        )
    sent = await harness.press(harness.board_button("Turn back"))
    assert "The waste went back into the stock (24 cards)." in sent[-1].content
    await harness.press(harness.board_button("Draw (24)"))
    sent = await harness.press(harness.board_button("Undo"))
    assert "Move taken back." in sent[-1].content
    assert "Draw (24)" in labels(harness.board())
    # clear the pyramid: every row falls by a king and pairs of neighbours
    game = kings_and_pairs()
    for row in range(6, -1, -1):
        start_index = row * (row + 1) // 2
        names = [str(game.pyramid[i]) for i in range(start_index, start_index + row + 1)]
        if row == 6:
            names = names[1:]  # K♠ is gone already
        while names:
            first = names.pop(0)
            sent = await harness.press(harness.board_button(first))
            if not first.startswith("K"):
                sent = await harness.press(harness.board_button(names.pop(0)))
    final = sent[-1]
    assert "You won! 280 points" in final.content
    assert labels(harness.board()) == ["New game", "Same deal again", "Show a winning line", "Replay my game"]
    rows = await harness.storage.results(GUILD_ID, OWNER)
    assert [(r.status, r.score) for r in rows] == [("won", 280)]
    assert await harness.storage.live_game(CHANNEL_ID) is None


async def test_stuck_game_is_declared_and_recorded_with_its_verdict(harness):
    pyramid, waste, stock = stuck_layout()
    code = Game.from_layout(pyramid, waste, stock).code
    await start(harness, code)
    await harness.press(harness.board_button("K♥"))
    from tests.support.deals import STUCK_ORDER, stuck_game

    cards = stuck_game()
    for index in STUCK_ORDER:
        await harness.press(
            harness.board_button(
                labels(harness.board())[[lab.startswith("Draw") for lab in labels(harness.board())].index(True)]
            )
        )
        top = labels(harness.board())[-5]  # the waste button sits before the stock button
        await harness.press(harness.board_button(top))
        sent = await harness.press(harness.board_button(str(cards.pyramid[index])))
    for _ in range(3):
        await harness.press(
            harness.board_button(next(lab for lab in labels(harness.board()) if lab.startswith("Draw")))
        )
        sent = await harness.press(harness.board_button(labels(harness.board())[-5]))
    content = sent[-1].content
    assert "No more possible moves" in content
    from pyramide.solver import max_removable

    most = max_removable(stuck_game())
    assert 20 <= most < 28
    assert f"This deal could not be won: at most {most} cards could be removed." in content
    rows = await harness.storage.results(GUILD_ID, OWNER)
    assert rows[-1].status == "stuck" and rows[-1].score == 200


async def test_restart_mid_game_continues_from_the_old_message(harness, tmp_path):
    await start(harness, kings_and_pairs().code)
    await harness.press(harness.board_button("K♠"))
    await harness.press(harness.board_button("A♠"))  # selected before the crash
    old_board = harness.board()
    queen = harness.board_button("Q♠")
    await harness.restart()
    sent = await harness.press(queen, message_id=int(old_board["id"]))
    assert "A♠ + Q♠ removed (+20)." in sent[-1].content
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.score == 30 and live.game.moves == 2
    sent = await harness.press(harness.board_button("Undo"))
    assert "Move taken back (20 points off)." in sent[-1].content


async def test_two_presses_at_once_are_applied_one_after_the_other(harness):
    await start(harness, kings_and_pairs().code)
    ace, queen = harness.board_button("A♠"), harness.board_button("Q♠")
    message_id = int(harness.board()["id"])
    await asyncio.gather(harness.press(ace, message_id), harness.press(queen, message_id))
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.score == 20 and live.game.moves == 1
    assert live.game.pyramid[22] is None and live.game.pyramid[23] is None


async def test_the_same_draw_pressed_twice_at_once_draws_once(harness):
    await start(harness, kings_and_pairs().code)
    draw = harness.board_button("Draw (23)")
    message_id = int(harness.board()["id"])
    results = await asyncio.gather(harness.press(draw, message_id), harness.press(draw, message_id))
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 1 and len(live.game.stock) == 22
    texts = [s.content for sent in results for s in sent]
    # The second press came from the game's own message, drawn for the version before: it is redrawn.
    assert any("brought up to date; nothing was played" in text for text in texts)
    assert "Draw (22)" in labels(harness.board())


async def test_a_press_on_an_older_render_of_the_current_message_redraws_it(harness):
    await start(harness, kings_and_pairs().code)
    draw = harness.board_button("Draw (23)")
    message_id = int(harness.board()["id"])
    await harness.press(draw, message_id)
    live = await harness.bot.manager.live(CHANNEL_ID)
    state = live.game.state()
    sent = await harness.press(draw, message_id)  # the same button again: drawn for the previous board
    assert not sent[-1].ephemeral and sent[-1].data["type"] == 7  # the message itself is updated
    assert "brought up to date" in sent[-1].content and sent[-1].png is not None
    assert live.game.state() == state
    assert "Draw (22)" in labels(harness.board())


async def test_a_press_on_an_older_message_is_refused(harness):
    await start(harness, kings_and_pairs().code)
    draw = harness.board_button("Draw (23)")
    old_id = int(harness.board()["id"])
    await harness.command("draw")  # a typed move posts a fresh board: the first message is no longer the game's
    live = await harness.bot.manager.live(CHANNEL_ID)
    state = live.game.state()
    sent = await harness.press(draw, old_id)
    assert sent[-1].ephemeral and "This board is out of date" in sent[-1].content
    assert live.game.state() == state
    # Discord may hand over the message as it is now, without that button: still a clear answer.
    sent = await harness.press(draw, old_id, current=True)
    assert sent[-1].ephemeral and "This board is out of date" in sent[-1].content
    assert live.game.state() == state


async def test_an_old_button_of_a_finished_games_message_shows_it_finished(harness):
    await start(harness, kings_and_pairs().code)
    old_draw = harness.board_button("Draw (23)")
    old_id = int(harness.board()["id"])
    await harness.press(harness.board_button("End"))
    await start(harness, kings_and_pairs().code)
    sent = await harness.press(old_draw, old_id)  # a client still showing the board before the end
    assert sent[-1].data["type"] == 7 and "Game ended" in sent[-1].content
    assert labels(harness.hub.messages[old_id]) == ["New game", "Same deal again", "Show a winning line"]
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 0  # the new game is untouched


async def test_a_strangers_press_is_refused_unless_the_server_allows_anyone(harness):
    await start(harness, kings_and_pairs().code)
    sent = await harness.press(harness.board_button("K♠"), user=STRANGER)
    assert sent[-1].ephemeral
    assert f"This is <@{OWNER}>'s game" in sent[-1].content and "/pyramide new in a thread" in sent[-1].content
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 0
    await harness.command(
        "/pyramide-admin settings", user=STRANGER, permissions=PLAIN | MANAGE_GUILD, who_can_play="anyone"
    )
    sent = await harness.press(harness.board_button("K♠"), user=STRANGER)
    assert "K♠ removed" in sent[-1].content


async def test_end_needs_the_owner_or_manage_messages(harness):
    await start(harness, kings_and_pairs().code)
    await harness.command(
        "/pyramide-admin settings", user=STRANGER, permissions=PLAIN | MANAGE_GUILD, who_can_play="anyone"
    )
    sent = await harness.command("end", user=STRANGER)
    assert sent[-1].ephemeral and "Only <@" in sent[-1].content
    assert await harness.storage.live_game(CHANNEL_ID) is not None
    sent = await harness.command("end", user=STRANGER, permissions=PLAIN | MANAGE_MESSAGES)
    assert "Game ended" in said(sent)
    board = Image.open(io.BytesIO(next(s.png for s in sent if s.png))).convert("L")
    band = board.crop((0, BANNER_TOP + 10, 40, BANNER_BOTTOM - 10))
    assert band.getextrema()[1] < 40  # the "Game ended" banner darkens the middle of the board
    rows = await harness.storage.results(GUILD_ID, OWNER)
    assert rows[-1].status == "ended"


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("PY1-N-AAAAAA1", "may only use the letters A–Z and the digits 2–7"),
        ("PY9-N-AAAAAAS", "another version"),
        ("hello", "looks like PY1-N-AAAAAAS"),
        ("PY1-N-AAAA", "must have 7 characters"),
        ("PY1-Q-AAAAAAS", "rules part"),
        ("PY1-P99-AAAAAAS", "at most ten passes (P9)"),
    ],
)
async def test_an_invalid_code_gets_a_clear_message_and_deals_nothing(harness, code, words):
    sent = await harness.command("new", code=code)
    assert len(sent) == 1 and sent[0].ephemeral
    assert words in sent[0].content
    assert await harness.storage.live_game(CHANNEL_ID) is None


async def test_new_in_a_busy_channel_asks_before_ending_the_running_game(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.command("new", code="PY1-N-AAAAAAA")
    prompt = sent[-1]
    assert prompt.ephemeral and "already running" in prompt.content
    assert (await harness.storage.live_game(CHANNEL_ID)).code == "PY1-N-AAAAAAS"
    sent = await harness.press(prompt.button("Keep it"))
    assert "kept" in sent[-1].content
    assert (await harness.storage.live_game(CHANNEL_ID)).code == "PY1-N-AAAAAAS"
    sent = await harness.press(prompt.button("End it and deal a new one"))
    assert "PY1-N-AAAAAAA" in said(sent)
    assert (await harness.storage.live_game(CHANNEL_ID)).code == "PY1-N-AAAAAAA"
    assert [r.status for r in await harness.storage.results(GUILD_ID, OWNER)] == ["ended"]


async def test_a_stranger_cannot_replace_someone_elses_game(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.command("new", user=STRANGER)
    prompt = sent[-1]
    assert prompt.buttons()[prompt.button("End it and deal a new one")]["disabled"] is True
    sent = await harness.press(prompt.button("End it and deal a new one"), user=STRANGER)
    assert (await harness.storage.live_game(CHANNEL_ID)).code == "PY1-N-AAAAAAS"


async def test_one_engine_per_channel(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.command("new", code="PY1-N-AAAAAAA", channel_id=OTHER_CHANNEL_ID, user=STRANGER)
    assert sent[0].png is not None
    await harness.command("draw", channel_id=OTHER_CHANNEL_ID, user=STRANGER)
    one = await harness.bot.manager.live(CHANNEL_ID)
    two = await harness.bot.manager.live(OTHER_CHANNEL_ID)
    assert one.game.moves == 0 and two.game.moves == 1


async def test_covered_card_by_name_with_error_help_on_and_off(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.command("tap", card="Q♠")  # row 6: covered
    assert sent[-1].ephemeral and sent[-1].content == "This card is blocked by another card"
    await harness.command("/pyramide-admin settings", permissions=PLAIN | MANAGE_GUILD, error_help=False)
    sent = await harness.command("tap", card="qs")
    assert "This card is blocked by another card" not in sent[-1].content
    assert sent[-1].content == "That card is covered."


async def test_tap_by_name_moves_and_reposts_the_board(harness):
    await start(harness, "PY1-N-AAAAAAS")
    first_board = int(harness.board()["id"])
    sent = await harness.command("tap", card="K♠")
    assert "K♠ removed (+10)." in sent[0].content and sent[0].png is not None
    # the old board lost its buttons, the new one is the game's message
    assert harness.hub.messages[first_board]["components"] == []
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record.message_id == int(harness.board()["id"]) != first_board


async def test_tap_with_a_name_that_is_no_card(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.command("tap", card="Z♣")
    assert sent[-1].ephemeral and "“Z♣” is not a card" in sent[-1].content
    sent = await harness.command("tap", card="3♣")  # in the stock
    assert sent[-1].ephemeral and "3♣ is not free to play right now." in sent[-1].content


async def test_autocomplete_lists_the_playable_cards(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.autocomplete("tap", "card", "")
    choices = sent[-1].data["data"]["choices"]
    game = Game.from_code("PY1-N-AAAAAAS")
    assert [c["name"] for c in choices] == [str(game.card_at(s)) for s in game.free_spots()]
    sent = await harness.autocomplete("tap", "card", "k")
    assert [c["name"] for c in sent[-1].data["data"]["choices"]] == ["K♠"]


async def test_an_autocomplete_that_fails_answers_no_choices_and_logs_why(harness, caplog):
    await start(harness, "PY1-N-AAAAAAS")
    manager = harness.bot.manager

    async def broken(channel_id: int):
        raise RuntimeError("a bug in the suggestions")

    manager.snapshot = broken
    try:
        sent = await harness.autocomplete("tap", "card", "k")
    finally:
        del manager.snapshot
    assert sent[-1].data["data"]["choices"] == []  # Discord still gets its answer
    logged = [r for r in caplog.records if "autocomplete" in r.getMessage()]
    assert logged and logged[0].exc_info is not None and "a bug in the suggestions" in str(logged[0].exc_info[1])
    sent = await harness.autocomplete("tap", "card", "k")
    assert [c["name"] for c in sent[-1].data["data"]["choices"]] == ["K♠"]


async def test_sum_not_13_keeps_the_second_card_selected(harness):
    await start(harness, "PY1-N-AAAAAAS")
    await harness.press(harness.board_button("5♥"))
    sent = await harness.press(harness.board_button("2♣"))
    assert "The sum must be 13" in sent[-1].content
    two = harness.board_button("2♣")
    assert sent[-1].buttons()[two]["style"] == 3  # green: selected


async def test_hint_highlights_a_move_and_is_counted(harness):
    await start(harness, kings_and_pairs().code)
    sent = await harness.press(harness.board_button("Hint"))
    assert "Hint: K♠." in sent[-1].content
    await harness.command("hint")
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record.hints == 2


async def test_code_and_rules_commands(harness):
    await start(harness, "PY1-N-AAAAAAS")
    sent = await harness.command("code")
    assert "`PY1-N-AAAAAAS`" in sent[-1].content
    sent = await harness.command("rules")
    assert sent[-1].ephemeral and "A+Q, 2+J" in sent[-1].content


async def test_rule_options_on_new(harness):
    sent = await harness.command("new", strict=True, passes=0)
    assert "strict win, 1 pass" in sent[0].content
    record = await harness.storage.live_game(CHANNEL_ID)
    assert Rules.from_token(record.rules) == Rules(strict_win=True, pass_limit=0)
    assert record.code.startswith("PY1-SP0-")


async def test_winnable_new_game_is_winnable(harness):
    sent = await harness.command("new", winnable=True)
    record = await harness.storage.live_game(CHANNEL_ID)
    from pyramide.solver import solve

    assert solve(Game.from_code(record.code)).won
    assert any(s.png for s in sent)


async def test_new_game_and_same_deal_buttons_after_the_end(harness):
    await start(harness, "PY1-N-AAAAAAS")
    await harness.press(harness.board_button("End"))
    sent = await harness.press(harness.board_button("Same deal again"))
    assert "PY1-N-AAAAAAS" in said(sent)
    await harness.press(harness.board_button("End"))
    sent = await harness.press(harness.board_button("New game"))
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record is not None and record.code != "PY1-N-AAAAAAS"


async def test_a_storage_failure_answers_nothing_and_loses_nothing(harness, monkeypatch):
    await start(harness, kings_and_pairs().code)
    await harness.press(harness.board_button("K♠"))

    async def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(harness.storage, "append_action", broken)
    sent = await harness.press(harness.board_button("A♠"))
    assert not any(s.png for s in sent)  # the move was not answered as if it happened
    assert "nothing was lost" in sent[-1].content
    monkeypatch.undo()
    live = await harness.bot.manager.live(CHANNEL_ID)
    assert live.game.moves == 1 and live.game.selected is None  # rebuilt from storage


async def test_no_token_prints_one_line_and_exits_2(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, str(root / "bot.py")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "DISCORD_TOKEN" in result.stderr and ".env" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_discord_is_one_clear_line_and_never_shows_the_token(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    # The network edge: Discord's API address points at a closed local port, so the failure is immediate.
    (tmp_path / "sitecustomize.py").write_text(
        "import discord.http\ndiscord.http.Route.BASE = 'https://127.0.0.1:9/api/v10'\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "DISCORD_TOKEN": "secret.token.value",
        "PYRAMIDE_DB": str(tmp_path / "x.db"),
        "PYTHONPATH": str(tmp_path),
        "LOG_LEVEL": "DEBUG",
    }
    result = subprocess.run(
        [sys.executable, str(root / "bot.py")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    assert result.returncode == 1
    assert "secret.token.value" not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "Cannot reach Discord" in result.stderr


async def test_a_made_up_button_is_refused_without_harm(harness):
    await start(harness, "PY1-N-AAAAAAS")
    live = await harness.bot.manager.live(CHANNEL_ID)
    board = harness.board()
    forged = f"pyr:{live.record.id}:0:99"
    board["components"][0]["components"][0]["custom_id"] = forged
    harness.hub.history.append(board)
    sent = await harness.press(forged)
    assert sent[-1].ephemeral and "out of date" in sent[-1].content
    assert live.game.moves == 0 and live.game.actions == []


async def test_owner_syncs_the_commands_by_mentioning_the_bot(harness):
    harness.bot.owner_id = OWNER
    sent = await harness.say(f"<@{harness.bot.user.id}> sync")
    put = next(s for s in sent if s.method == "PUT")
    names = [command["name"] for command in put.data]
    assert names == ["pyramide", "pyramide-admin"]
    assert put.data[0]["description_localizations"]["hr"] == "Igrajte pasijans Piramida"
    assert "Synced 2 commands" in sent[-1].content
    # Discord applies default_member_permissions to top-level commands only: the admin command has its own.
    admin = put.data[1]
    assert int(admin["default_member_permissions"]) == MANAGE_GUILD
    assert put.data[0]["default_member_permissions"] is None
    assert {o["name"] for o in admin["options"]} == {"settings", "reset-stats", "event"}
    player = next(o for o in put.data[0]["options"] if o["name"] == "stats")
    assert player["type"] == 1  # /pyramide stats is a command of its own now
    sent = await harness.say(f"<@{harness.bot.user.id}> sync", user=STRANGER)
    assert not any(s.method == "PUT" for s in sent)  # only the owner may sync


async def test_start_up_warns_an_admin_when_the_solver_runs_without_its_compiled_core(tmp_path, monkeypatch, caplog):
    from pyramide import solver

    caplog.set_level("WARNING", logger="pyramide.bot")
    monkeypatch.setattr(solver.native, "core", None)
    h = await Harness(str(tmp_path / "pure.db")).start()
    await h.stop()
    assert any("compiled core not built" in r.getMessage() for r in caplog.records)

    caplog.clear()
    monkeypatch.undo()
    if solver.has_compiled_core():
        h = await Harness(str(tmp_path / "compiled.db")).start()
        await h.stop()
        assert not any("compiled core" in r.getMessage() for r in caplog.records)


async def test_commands_are_synced_at_start_only_when_they_changed(harness, monkeypatch):
    puts = [s for s in harness.hub.sent if s.method == "PUT" and s.path.endswith("/commands")]
    assert len(puts) == 1  # the first start: Discord had no commands of this bot yet
    await harness.restart()
    puts = [s for s in harness.hub.sent if s.method == "PUT" and s.path.endswith("/commands")]
    assert len(puts) == 1  # a restart with the same commands costs no request
    from cogs.pyramide.commands import Pyramide

    monkeypatch.setattr(Pyramide, "__cog_group_description__", "Pyramid solitaire, now with more")
    await harness.restart()  # an upgrade that changed a command
    puts = [s for s in harness.hub.sent if s.method == "PUT" and s.path.endswith("/commands")]
    assert len(puts) == 2 and puts[-1].data[0]["description"] == "Pyramid solitaire, now with more"


async def test_the_invite_link_names_the_scopes_and_the_exact_permissions(harness, caplog):
    from tests.support.harness import APP_ID

    url = harness.bot.invite_url()
    assert f"client_id={APP_ID}" in url and "scope=bot+applications.commands" in url
    assert "permissions=377957174272" in url
    caplog.set_level("INFO", logger="pyramide.bot")
    await harness.bot.on_ready()
    assert any(url in r.getMessage() for r in caplog.records)


async def test_metrics_and_readiness_are_served_over_loopback(tmp_path, caplog):
    import aiohttp

    from tests.support.harness import Harness

    h = Harness(str(tmp_path / "metrics.db"))
    await h.start()
    try:
        port = await h.bot.health.serve(0)  # as setup_hook does with METRICS_PORT
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as session:
            async with session.get(f"{base}/healthz") as response:
                assert response.status == 503 and "gateway" in await response.text()  # not connected yet
            await start(h, kings_and_pairs().code)
            await h.press(h.board_button("K♠"))
            async with session.get(f"{base}/metrics") as response:
                text = await response.text()
            assert response.status == 200
            assert 'pyramide_interactions_total{kind="button"} 1.0' in text
            assert 'pyramide_interactions_total{kind="command"} 1.0' in text
            assert "pyramide_live_games 1.0" in text and "pyramide_solver_waiting 0.0" in text
            assert 'pyramide_interaction_seconds_bucket{kind="button",le="+Inf"} 1.0' in text
            assert "pyramide_database_errors_total 0.0" in text
            internals.mark_ready(h.bot)  # as after the gateway's READY
            async with session.get(f"{base}/healthz") as response:
                assert response.status == 200
            await h.storage.close()  # the database goes away
            with caplog.at_level(logging.WARNING, logger="pyramide_bot.health"):
                for _ in range(3):  # a supervisor probing through an outage
                    async with session.get(f"{base}/healthz") as response:
                        assert response.status == 503 and "storage" in await response.text()
            said = [r for r in caplog.records if "readiness" in r.getMessage()]
            assert len(said) == 1  # one warning for the outage, not one per probe
    finally:
        await h.bot.health.stop()
        await h.stop()


async def test_autocomplete_racing_a_press_after_a_restart_never_hides_the_move(harness):
    """After a restart nothing is in memory: a press and an autocomplete arriving together both need the
    game. The press's move is stored, shown and kept; the next press plays on from it."""
    await start(harness, "PY1-N-AAAAAAS")
    for played in range(1, 9):
        await harness.restart()
        draw = next(label for label in labels(harness.board()) if label and label.startswith("Draw"))
        await asyncio.gather(harness.press(harness.board_button(draw)), harness.autocomplete("tap", "card", ""))
        stored = await harness.storage.live_game(CHANNEL_ID)
        assert len(stored.actions) == played
        assert f"Draw ({23 - played})" in labels(harness.board())
        live = await harness.bot.manager.live(CHANNEL_ID)
        assert live is not None and live.game.moves == played
