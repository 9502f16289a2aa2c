"""Pyramide outside the server that invited it: the bot's DM, a group DM, and a server reached through a
player's own install. The harness's Hub refuses every bot-token request to a channel the bot is not
in (403 Missing Access) and counts them: a test asserts that none was made."""

import asyncio
import re

import pytest
from discord.app_commands import AppInstallationType

from tests.support.deals import kings_and_pairs
from tests.support.harness import (
    CHANNEL_ID,
    DM_CHANNEL_ID,
    FOREIGN_CHANNEL_ID,
    FOREIGN_GUILD_ID,
    GROUP_DM_ID,
    GUILD_ID,
    OTHER_CHANNEL_ID,
    OWNER,
    STRANGER,
    TOKEN_LIFETIME,
    labels,
)

T0 = 1_764_460_800 + 365 * 86_400  # 2026-11-30 00:00 UTC
PLACES = {"bot's DM": DM_CHANNEL_ID, "group DM": GROUP_DM_ID, "server without the bot": FOREIGN_CHANNEL_ID}
STATS_GUILD = {DM_CHANNEL_ID: 0, GROUP_DM_ID: 0, FOREIGN_CHANNEL_ID: FOREIGN_GUILD_ID}


def said(sent):
    return "\n".join(s.content for s in sent)


def bot_token_requests(h, channel_id):
    """The bot's own REST requests to ``channel_id`` (not the interaction's answers)."""
    return [s for s in h.hub.sent if s.url and f"/channels/{channel_id}" in s.url]


async def deal(h, channel_id, user=OWNER, **options):
    sent = await h.command("new", user=user, channel_id=channel_id, code=kings_and_pairs().code, **options)
    assert any(s.png for s in sent), said(sent)
    return sent


async def clear_with_buttons(h, done=()):
    """Clear the kings-and-pairs pyramid by pressing its buttons (but the cards ``done``); returns the last
    press's answers."""
    game = kings_and_pairs()
    sent = []
    for row in range(6, -1, -1):
        first_spot = row * (row + 1) // 2
        names = [str(game.pyramid[i]) for i in range(first_spot, first_spot + row + 1)]
        names = [name for name in names if name not in done]
        while names:
            name = names.pop(0)
            sent = await h.press(h.board_button(name))
            if not name.startswith("K"):
                sent = await h.press(h.board_button(names.pop(0)))
    return sent


async def test_the_synced_commands_declare_where_they_can_be_installed_and_used(harness):
    put = next(s for s in harness.hub.sent if s.method == "PUT" and s.path.endswith("/commands"))
    pyramide, admin = put.data
    assert pyramide["name"] == "pyramide"
    assert sorted(pyramide["integration_types"]) == [0, 1]  # a server install and a player's own install
    assert sorted(pyramide["contexts"]) == [0, 1, 2]  # servers, the bot's DM, group DMs and other DMs
    assert admin["name"] == "pyramide-admin"
    assert admin["integration_types"] == [0] and admin["contexts"] == [0]
    # The hash that spares a sync covers these fields: a change of them is pushed.
    assert not await harness.bot.sync_commands()
    harness.bot.tree.get_command("pyramide").allowed_installs = AppInstallationType(guild=True, user=False)
    assert await harness.bot.sync_commands()


@pytest.mark.backends("sqlite", "postgresql")  # where each place's game is stored: the database's to keep
@pytest.mark.parametrize("channel_id", PLACES.values(), ids=PLACES.keys())
async def test_a_game_is_won_through_buttons_in_each_place(harness, channel_id):
    sent = await deal(harness, channel_id)
    board = next(s for s in sent if s.png)
    assert board.path.endswith("/callback") and not harness.hub.visible_flags(board) & 64  # a public answer
    first = await harness.press(harness.board_button("K♠"))
    assert first[-1].path.endswith("/callback") and first[-1].data["type"] == 7  # the pressed message, edited
    final = await clear_with_buttons(harness, done=("K♠",))
    assert "You won! 280 points" in final[-1].content
    assert labels(harness.board())[:2] == ["New game", "Same deal again"]
    rows = await harness.storage.results(STATS_GUILD[channel_id], OWNER)
    assert [(r.status, r.score) for r in rows] == [("won", 280)]
    assert await harness.storage.results(GUILD_ID, OWNER) == []
    assert harness.hub.unreachable == []
    if channel_id != DM_CHANNEL_ID:
        assert bot_token_requests(harness, channel_id) == []
    # The winning line and the replay come as answers of the press, in the same place.
    sent = await harness.press(harness.board_button("Replay my game"))
    assert any(s.files and s.files[0][0].startswith("replay") for s in sent), said(sent)
    assert harness.hub.unreachable == []


@pytest.mark.parametrize("channel_id", [GROUP_DM_ID, FOREIGN_CHANNEL_ID], ids=["group DM", "server without the bot"])
async def test_a_press_on_an_old_board_is_answered_privately_as_out_of_date(harness, channel_id):
    await deal(harness, channel_id)
    old = harness.board()
    await harness.command("draw", channel_id=channel_id)  # a typed move answers with a fresh board
    assert harness.board()["id"] != old["id"]
    # The bot could not take the old board's buttons off: they stay, and do no harm.
    assert any(c.startswith("pyr:") for row in old["components"] for c in [b["custom_id"] for b in row["components"]])
    draw = next(b["custom_id"] for row in old["components"] for b in row["components"] if "Draw" in b["label"])
    sent = await harness.press(draw, message_id=int(old["id"]))
    assert "out of date" in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64
    live = await harness.bot.manager.live(channel_id)
    assert live.game.moves == 1  # only the typed draw
    assert harness.hub.unreachable == []


async def test_in_a_group_dm_only_the_starter_plays_unless_new_says_anyone(harness):
    await deal(harness, GROUP_DM_ID)
    sent = await harness.press(harness.board_button("K♠"), user=STRANGER)
    assert "Only its starter plays it here" in said(sent) and harness.hub.visible_flags(sent[-1]) & 64
    await harness.command("end", channel_id=GROUP_DM_ID)
    await deal(harness, GROUP_DM_ID, anyone=True)
    sent = await harness.press(harness.board_button("K♠"), user=STRANGER)
    assert "K♠ removed" in sent[-1].content
    await harness.command("end", channel_id=GROUP_DM_ID)
    await deal(harness, GROUP_DM_ID)  # the next /pyramide new without it: its starter only again
    sent = await harness.press(harness.board_button("K♠"), user=STRANGER)
    assert "K♠ removed" not in said(sent)
    assert harness.hub.unreachable == []


async def test_without_the_external_apps_permission_answers_are_private_and_still_play(harness):
    harness.foreign_permissions = 0
    sent = await deal(harness, FOREIGN_CHANNEL_ID)
    assert harness.hub.visible_flags(sent[-1]) & 64  # Discord made the board ephemeral
    sent = await harness.press(harness.board_button("K♠"))
    assert "K♠ removed" in sent[-1].content
    assert harness.hub.unreachable == []


async def test_threads_and_races_where_the_bot_cannot_make_them(harness):
    sent = await harness.command("new", channel_id=FOREIGN_CHANNEL_ID, thread=True)
    assert "cannot be made here" in said(sent) and any(s.png for s in sent)  # dealt in place, with the reason
    for channel_id in (GROUP_DM_ID, DM_CHANNEL_ID, FOREIGN_CHANNEL_ID):
        sent = await harness.command("race", channel_id=channel_id, opponent=_user(STRANGER))
        assert "server I am a member of" in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64
    assert harness.hub.unreachable == [] and harness.hub.threads == []


async def test_the_fake_refuses_a_bot_token_request_where_the_bot_is_not(harness):
    import discord

    channel = harness.bot.get_partial_messageable(GROUP_DM_ID)
    with pytest.raises(discord.Forbidden) as refused:
        await channel.send("hello")
    assert refused.value.code == 50001
    assert len(harness.hub.unreachable) == 1  # counted, so that the other tests can assert none


@pytest.mark.backends("sqlite", "postgresql")  # counted once: the database decides
async def test_the_daily_is_played_in_place_and_counted_once_across_places(harness):
    harness.now[0] = T0 + 3600
    sent = await harness.command("daily play", channel_id=DM_CHANNEL_ID)
    assert "dealt here" in said(sent), said(sent)
    board = harness.board()
    assert "Daily #" in board["content"] and "PY1-" not in board["content"]  # its code stays hidden
    sent = await harness.command("code", channel_id=DM_CHANNEL_ID)
    assert "shown once your attempt is finished" in said(sent)
    for channel_id in (GROUP_DM_ID, FOREIGN_CHANNEL_ID, CHANNEL_ID):
        sent = await harness.command("daily play", channel_id=channel_id)
        assert "waiting for you" in said(sent) and harness.hub.visible_flags(sent[-1]) & 64
        # A mention of the DM's channel would lead nowhere: the place is named in words instead.
        assert "in the DM or group DM where you opened it" in said(sent) and "<#" not in said(sent)
    live = await harness.bot.manager.live(DM_CHANNEL_ID)
    sent = await harness.command("new", channel_id=GROUP_DM_ID, code=live.game.code)
    assert "today's daily deal" in said(sent)  # no peeking in another place either
    assert harness.hub.threads == [] and harness.hub.unreachable == []
    # Finished (given up), it is counted once, and the DM's daily leaderboard shows it with its rank.
    await harness.command("end", channel_id=DM_CHANNEL_ID)
    assert await harness.storage.daily_totals("2026-11-30") == (1, 0)
    sent = await harness.command("daily leaderboard", channel_id=DM_CHANNEL_ID)
    embed = sent[-1].body["embeds"][0]
    assert "rank 1 of 1" in embed["description"] and "Everywhere today" in embed["fields"][0]["value"]
    sent = await harness.command("daily play", channel_id=GROUP_DM_ID)
    assert "played daily" in said(sent)


async def test_stats_outside_servers_are_the_players_own_and_forget_me_deletes_them(harness):
    await deal(harness, GROUP_DM_ID)
    await clear_with_buttons(harness)
    sent = await harness.command("stats", channel_id=DM_CHANNEL_ID)
    embed = sent[-1].body["embeds"][0]
    assert "outside servers" in embed["title"]
    assert next(f["value"] for f in embed["fields"] if f["name"] == "Won") == "1"
    sent = await harness.command("stats", channel_id=GROUP_DM_ID, player=_user(STRANGER))
    assert "only your own" in said(sent)
    sent = await harness.command("stats")  # the server's figures do not hold it
    assert "has not finished a game on this server" in said(sent), said(sent)
    sent = await harness.command("leaderboard", channel_id=DM_CHANNEL_ID)
    assert "ranks the players of a server" in said(sent)
    sent = await harness.command("forget-me", channel_id=DM_CHANNEL_ID)
    await harness.press(sent[-1].button("Yes, delete my data"))
    assert await harness.storage.results(0, OWNER) == []
    assert harness.hub.unreachable == []


def _user(user_id):
    import discord

    return discord.Object(user_id)


async def test_a_daily_waiting_in_a_server_thread_is_named_without_a_mention_outside_it(harness):
    harness.now[0] = T0 + 3600
    await harness.command("daily play")  # in the server with the bot: a thread of its own
    assert len(harness.hub.threads) == 1
    sent = await harness.command("daily play", channel_id=OTHER_CHANNEL_ID)  # the same server: the mention leads there
    assert f"<#{harness.hub.threads[0]['id']}>" in said(sent)
    for channel_id in PLACES.values():
        sent = await harness.command("daily play", channel_id=channel_id)
        assert "in the server channel where you opened it" in said(sent) and "<#" not in said(sent), said(sent)
    assert harness.hub.unreachable == []


async def test_no_games_yet_outside_servers_does_not_speak_of_a_server(harness):
    for channel_id in (DM_CHANNEL_ID, GROUP_DM_ID):
        sent = await harness.command("stats", channel_id=channel_id)
        assert "not finished a game outside servers yet" in said(sent) and "server yet" not in said(sent)
    sent = await harness.command("stats", channel_id=FOREIGN_CHANNEL_ID)  # a server, even without the bot
    assert "has not finished a game on this server yet" in said(sent)
    harness.locale = "hr"
    sent = await harness.command("stats", channel_id=DM_CHANNEL_ID)
    assert "Izvan poslužitelja još niste završili" in said(sent)
    assert harness.hub.unreachable == []


INTERACTION_ONLY = {"group DM": GROUP_DM_ID, "server without the bot": FOREIGN_CHANNEL_ID}


@pytest.mark.parametrize("channel_id", INTERACTION_ONLY.values(), ids=INTERACTION_ONLY.keys())
async def test_an_expired_interaction_token_loses_nothing_and_the_next_press_plays(harness, channel_id):
    await deal(harness, channel_id)
    board_id = int(harness.board()["id"])
    harness.hub.age(TOKEN_LIFETIME + 60)  # the command that dealt the board: its token is over
    sent = await harness.press(harness.board_button("K♠"))  # a press brings a fresh token
    assert sent[-1].data["type"] == 7 and "K♠ removed" in sent[-1].content
    # A press whose own token runs out while it waits for the channel: its move is stored, its edit lost.
    known = asyncio.all_tasks()
    async with harness.bot.manager.turn(channel_id):
        payload = harness.press_payload(harness.board_button("Draw (23)"), harness.board())
        harness.fire(payload, board_id)
        await harness.hub.first_answer(payload["token"])  # deferred, waiting for the channel
        harness.hub.age(TOKEN_LIFETIME + 60)
    await harness.settle(known)
    assert not any(s.token == payload["token"] and s.method == "PATCH" and s.message_id for s in harness.hub.sent)
    assert (await harness.bot.manager.live(channel_id)).game.moves == 2
    assert "Draw (23)" in labels(harness.hub.messages[board_id])  # the board still shows the move before
    sent = await harness.press(harness.board_button("Draw (23)"))  # the next press brings it up to date
    assert "brought up to date" in sent[-1].content and "Draw (22)" in labels(harness.hub.messages[board_id])
    assert (await harness.bot.manager.live(channel_id)).game.moves == 2  # the old press drew nothing more
    assert harness.hub.unreachable == []


@pytest.mark.parametrize("channel_id", INTERACTION_ONLY.values(), ids=INTERACTION_ONLY.keys())
async def test_a_board_refused_as_a_follow_up_too_many_leaves_the_player_told_and_the_channel_free(harness, channel_id):
    known = asyncio.all_tasks()
    async with harness.bot.manager.turn(channel_id):  # a busy channel: the command is deferred privately
        payload = harness.command_payload("new", channel_id=channel_id, code=kings_and_pairs().code)
        harness.hub.fail("followup", "spent")  # Discord takes no more follow-ups for this interaction
        harness.fire(payload)
        await harness.hub.first_answer(payload["token"])
    await harness.settle(known)
    token = payload["token"]
    assert token not in harness.hub.thinking
    words = harness.hub.messages[harness.hub.original[token]]  # the private note, never "dealt"
    assert "no game was dealt and the channel is free" in words["content"] and words["flags"] & 64
    assert await harness.storage.live_game(channel_id) is None
    await deal(harness, channel_id)  # dealt at once, no "a game is running" prompt
    assert harness.hub.unreachable == []


@pytest.mark.parametrize("channel_id", INTERACTION_ONLY.values(), ids=INTERACTION_ONLY.keys())
async def test_a_typed_hint_refused_as_a_follow_up_too_many_leaves_no_thinking_and_the_board_plays(harness, channel_id):
    await deal(harness, channel_id)
    harness.hub.fail("followup", "spent")
    sent = await harness.command("hint", channel_id=channel_id)  # deferred publicly: the hint is a new board
    token = sent[0].token
    assert sent[0].data["type"] == 5 and token not in harness.hub.thinking
    words = harness.hub.messages[harness.hub.original[token]]
    assert "Discord refused my answer" in words["content"]  # the player is told, not left "thinking…"
    sent = await harness.press(harness.board_button("K♠"))  # the board dealt before plays on
    assert "K♠ removed" in sent[-1].content
    assert harness.hub.unreachable == []


@pytest.mark.parametrize("channel_id", PLACES.values(), ids=PLACES.keys())
async def test_hint_undo_a_typed_tap_and_the_winning_line_in_each_place(harness, channel_id):
    await deal(harness, channel_id)
    first_board = int(harness.board()["id"])
    sent = await harness.press(harness.board_button("Hint"))
    assert "Hint: " in harness.hub.messages[first_board]["content"], said(sent)  # the pressed board, edited
    await harness.press(harness.board_button("K♠"))
    sent = await harness.press(harness.board_button("Undo"))
    assert "Move taken back" in sent[-1].content and "K♠" in labels(harness.hub.messages[first_board])
    sent = await harness.command("tap", channel_id=channel_id, card="K♠")  # answered with a fresh board
    assert "K♠ removed" in said(sent) and int(harness.board()["id"]) != first_board
    if channel_id == DM_CHANNEL_ID:
        # The bot is in its DM: its own token takes the buttons off the board before.
        assert [s.method for s in bot_token_requests(harness, channel_id)] == ["PATCH"]
        assert harness.hub.messages[first_board]["components"] == []
    else:
        assert bot_token_requests(harness, channel_id) == []
        assert labels(harness.hub.messages[first_board])  # out of reach: it keeps its buttons
    final = await clear_with_buttons(harness, done=("K♠",))
    assert "You won!" in final[-1].content
    sent = await harness.press(harness.board_button("Show a winning line"))
    shown = sent[-1]
    assert shown.files and shown.files[0][0].startswith("winning-line"), said(sent)
    assert "A winning line for `" in shown.content and not harness.hub.visible_flags(shown) & 64
    assert harness.hub.unreachable == []
    if channel_id != DM_CHANNEL_ID:
        assert bot_token_requests(harness, channel_id) == []


@pytest.mark.parametrize("channel_id", PLACES.values(), ids=PLACES.keys())
async def test_the_share_button_of_a_daily_finished_in_place_posts_its_line_there(harness, channel_id):
    harness.now[0] = T0 + 3600
    await harness.command("daily play", channel_id=channel_id)
    sent = await harness.command("end", channel_id=channel_id)
    board = next(s for s in sent if s.png)
    share = board.button("Share")
    sent = await harness.press(share, user=STRANGER)
    assert "This is <@" in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64  # only its player shares
    sent = await harness.press(share)
    posted = sent[-1]
    assert posted.data["type"] == 4 and not harness.hub.visible_flags(posted) & 64  # the press's public answer
    assert "'s daily:" in posted.content and "Pyramide daily #334" in posted.content and "gave up" in posted.content
    assert not re.search(r"\b(10|[2-9AJQK])[♠♥♦♣]", posted.content)  # no card of the deal given away
    assert harness.hub.unreachable == []
    if channel_id != DM_CHANNEL_ID:  # (in its DM the bot took the buttons off the board before "end")
        assert bot_token_requests(harness, channel_id) == []
