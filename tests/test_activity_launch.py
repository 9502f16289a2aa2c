"""The Activity's launch button on the boards, through the harness (the real bot, only Discord's edge
replaced): where it is offered (a server's text channel with the bot, the bot's DM), where it is not (a thread, a
group DM, a server reached through a player's own install, a bot without the Activity), and
its press answered with LAUNCH_ACTIVITY (callback type 12) as the interaction's first answer. The Hub
takes type 12 as Discord does: a first answer with no message, to a command, a button or a modal."""

import random
import time

import discord
import pytest

from pyramide import Game, Rules
from pyramide_discord.board import board_view
from pyramide_service.manager import Live
from pyramide_service.storage import GameRecord
from tests.support.deals import ALL_RULES, kings_and_pairs
from tests.support.harness import (
    CHANNEL_ID,
    DM_CHANNEL_ID,
    FOREIGN_CHANNEL_ID,
    GROUP_DM_ID,
    OWNER,
    STRANGER,
    RecordingAdapter,
    labels,
)

LAUNCH = "Play in the Activity"
NOT_HERE = "The Activity does not open here"
OFF = "The Activity is not available on this bot right now."


@pytest.fixture
async def served(harness):
    """The harness's bot serving the Activity (ACTIVITY_PORT set)."""
    harness.activity = True
    await harness.restart()
    return harness


async def deal(h, channel_id=CHANNEL_ID, **options):
    sent = await h.command("new", channel_id=channel_id, code=kings_and_pairs().code, **options)
    board = next(s for s in sent if s.png)
    return board


def launch_id(h, message=None):
    """The custom_id of the launch button a board would carry (that board's, or the newest board's game)."""
    board = message or h.board()
    ids = [c for c in board_ids(board) if c.endswith(":launch")]
    return ids[0] if ids else None


def board_ids(message):
    return [c["custom_id"] for row in message["components"] for c in row["components"] if "custom_id" in c]


async def press_id(h, custom_id, message, channel_id, user=OWNER):
    """Press ``custom_id`` on ``message`` as a client showing it with that button (a render from before, or
    a forged one): the message the interaction carries holds the button, as Discord's would."""
    payload = h._base(3, user, channel_id, 0)
    payload["data"] = {"custom_id": custom_id, "component_type": 2}
    button = {"type": 2, "style": 2, "custom_id": custom_id, "label": LAUNCH}
    rows = [row for row in message["components"] if custom_id not in board_ids({"components": [row]})]
    payload["message"] = {**message, "components": [*rows, {"type": 1, "components": [button]}]}
    return await h._dispatch(payload, int(message["id"]))


async def test_a_board_in_a_server_channel_offers_the_activity_and_its_press_launches_it(served):
    h = served
    await deal(h)
    board = h.board()
    record = await h.storage.live_game(CHANNEL_ID)
    game = kings_and_pairs()
    # Beside the waste and the stock, whose row holds at most three other buttons.
    assert board["components"][-2]["components"][-1]["label"] == LAUNCH
    assert labels(board)[-6:] == [str(game.waste[-1]), "Draw (23)", LAUNCH, "Undo", "Hint", "End"]
    assert launch_id(h) == f"pyr:{record.id}:0:launch"  # the board id protocol: game, version, action
    messages, moves = dict(h.hub.messages), record.moves

    sent = await h.press(launch_id(h))
    assert [(s.path.endswith("/callback"), s.data) for s in sent] == [(True, {"type": 12})]  # first, and no message
    instance = h.hub.activity_instances[CHANNEL_ID]
    assert instance["instance_id"].endswith(f"-gc-{h.guild_id}-{CHANNEL_ID}") and instance["users"] == [OWNER]
    assert h.hub.messages == messages  # the board stays as it was
    assert (await h.storage.live_game(CHANNEL_ID)).moves == moves

    # Anyone may open it (who may play is the Activity's to decide): a stranger joins the same instance.
    await h.press(launch_id(h), user=STRANGER)
    assert h.hub.activity_instances[CHANNEL_ID]["users"] == [OWNER, STRANGER]
    # A move redraws the board with its launch button at the new version.
    await h.press(h.board_button("K♠"))
    assert launch_id(h) == f"pyr:{record.id}:1:launch"


async def test_a_launch_discord_refuses_is_told_privately_and_logged(served, caplog):
    """As when Activities are not enabled in the developer portal: the player reads Discord's refusal."""
    h = served
    await deal(h)
    h.hub.fail("callback", "invalid")  # (the refused launch is not recorded; the private answer is)
    sent = await h.press(launch_id(h))
    assert [s.data["type"] for s in sent] == [4] and sent[0].ephemeral and "50035" in sent[0].content
    assert "refused by Discord: 400 50035" in caplog.text and h.hub.activity_instances == {}


async def test_a_finished_board_offers_it_after_its_other_choices(served):
    h = served
    await deal(h)
    await h.press(h.board_button("End"))
    board = h.board()
    assert labels(board)[:2] == ["New game", "Same deal again"] and labels(board)[-1] == LAUNCH
    assert all(len(row["components"]) <= 5 for row in board["components"])
    sent = await h.press(launch_id(h))
    assert [s.data for s in sent] == [{"type": 12}]


async def test_the_bots_dm_offers_it_and_its_press_launches_it(served):
    """The bot edits its board in its own DM, and the Activity's sign-in tells that DM from any other private
    channel: the board there offers the button, and its press opens the Activity on the DM."""
    h = served
    await deal(h, DM_CHANNEL_ID)
    assert LAUNCH in labels(h.board())
    sent = await h.press(launch_id(h))
    assert [s.data for s in sent] == [{"type": 12}]
    instance = h.hub.activity_instances[DM_CHANNEL_ID]
    assert instance["instance_id"].endswith(f"-pc-{DM_CHANNEL_ID}") and instance["users"] == [OWNER]


@pytest.mark.parametrize(
    "channel_id", [GROUP_DM_ID, FOREIGN_CHANNEL_ID], ids=["group DM", "server reached through a player's install"]
)
async def test_where_the_bot_cannot_edit_its_board_it_is_not_offered(served, channel_id):
    """There only the interaction can be answered: the Activity's moves could not reach the board."""
    h = served
    await deal(h, channel_id)
    board = h.board()
    assert LAUNCH not in labels(board)
    record = await h.storage.live_game(channel_id)
    sent = await press_id(h, f"pyr:{record.id}:0:launch", board, channel_id)
    assert [s.data["type"] for s in sent] == [4] and sent[0].ephemeral and NOT_HERE in sent[0].content
    assert channel_id not in h.hub.activity_instances and h.hub.unreachable == []


async def test_a_board_in_a_thread_does_not_offer_it(served):
    """Discord's docs name text and voice channels, DMs and group DMs for Activities, not threads."""
    h = served
    await deal(h, thread=True)
    thread_id = int(h.hub.threads[-1]["id"])
    board = h.board()
    assert int(board["channel_id"]) == thread_id and LAUNCH not in labels(board)
    await h.press(h.board_button("K♠"))  # pressed in the thread: still none
    assert LAUNCH not in labels(h.board())
    record = await h.storage.live_game(thread_id)
    sent = await press_id(h, f"pyr:{record.id}:1:launch", h.board(), thread_id)
    assert sent[0].ephemeral and NOT_HERE in sent[0].content and h.hub.activity_instances == {}


async def test_without_the_activity_no_board_offers_it_and_an_old_button_says_so(served):
    h = served
    await deal(h)
    old = h.board()
    h.activity = False  # restarted without ACTIVITY_PORT
    await h.restart()
    await h.press(h.board_button("K♠"))
    assert LAUNCH not in labels(h.board())
    sent = await press_id(h, launch_id(h, old), old, CHANNEL_ID)
    assert [s.data["type"] for s in sent] == [4] and sent[0].ephemeral and sent[0].content == OFF
    assert h.hub.activity_instances == {}


async def test_the_hub_takes_launch_activity_only_as_discord_does(served):
    """A LAUNCH_ACTIVITY carrying a message, or answering an autocomplete, is refused (400 50035) and
    answers nothing; a second first answer after a launch is refused (40060)."""
    h = served
    adapter = RecordingAdapter(h.hub)

    def route(payload):
        path = "/interactions/{webhook_id}/{webhook_token}/callback"
        return discord.http.Route("POST", path, webhook_id=int(payload["id"]), webhook_token=payload["token"])

    async def callback(kind, body):
        payload = h._base(kind, OWNER, CHANNEL_ID, 0)
        h.hub.targets[payload["token"]] = (CHANNEL_ID, None)
        h.hub.interactions[payload["token"]] = payload
        h.hub.created[payload["token"]] = time.perf_counter()
        return payload, await adapter.request(route(payload), None, payload=body)

    with pytest.raises(discord.HTTPException, match="50035"):
        await callback(3, {"type": 12, "data": {"content": "hello"}})
    with pytest.raises(discord.HTTPException, match="50035"):
        await callback(4, {"type": 12})
    assert len(h.hub.invalid) == 2 and h.hub.activity_instances == {}
    payload, answer = await callback(2, {"type": 12})
    instance = answer["interaction"]["activity_instance_id"]
    assert answer["resource"] == {"type": 12, "activity_instance": {"id": instance}}
    with pytest.raises(discord.HTTPException, match="40060"):
        await adapter.request(route(payload), None, payload={"type": 4, "data": {"content": "late"}})
    h.hub.invalid.clear()  # the refusals above were the point


def _positions(seed: int, rules: Rules):
    """Positions of one game played at random to its end (taps of legal moves, draws, turns)."""
    chance = random.Random(seed)
    game = Game.from_number(chance.randrange(10**6), rules)
    yield game.copy()
    for _ in range(120):
        moves = game.legal_moves()
        if game.is_over or not moves:
            return
        game.play(chance.choice(moves))
        yield game.copy()


@pytest.mark.parametrize("rules", ALL_RULES, ids=[r.token for r in ALL_RULES])
def test_every_board_with_the_launch_button_stays_within_discords_limits(rules):
    """At most 5 rows of at most 5 buttons (40 components in all), ids unique, the button once."""
    for seed in range(12):
        for game in _positions(seed, rules):
            record = GameRecord(id=7, guild_id=1, channel_id=2, owner_id=3, code=game.code, rules=rules.token)
            for dead in (False, True):
                rows = board_view(Live(record, game), "en", dead=dead, launch=True).to_components()
                buttons = [c for row in rows for c in row["components"]]
                assert len(rows) <= 5 and all(1 <= len(row["components"]) <= 5 for row in rows)
                assert len(rows) + len(buttons) <= 40
                ids = [b["custom_id"] for b in buttons]
                launch = f"pyr:7:{0 if game.is_over else game.version}:launch"
                assert len(set(ids)) == len(ids) and ids.count(launch) == 1
