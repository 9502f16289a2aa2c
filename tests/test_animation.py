"""Watching how a deal could have been won, and replaying one's own game: the animation itself (decoded
frame by frame) and the buttons under a finished board, through the real discord.py objects."""

import io
import re

import pytest
from PIL import Image, ImageChops

from pyramide import STOCK, Game, Rules
from pyramide.labels import Labels
from pyramide.render import render_image
from pyramide.replay import (
    END_MS,
    MARK_MS,
    MAX_PLAYBACK_MS,
    MIN_MS,
    REMOVED_MS,
    START_MS,
    action_frames,
    replay_animation,
    winning_animation,
)
from pyramide.solver import solve
from tests.support.deals import clear_kings_and_pairs, example_game, kings_and_pairs, stuck_game
from tests.support.harness import STRANGER, start

T0 = 1_764_460_800 + 365 * 86_400  # 2026-11-30 00:00 UTC


def decoded(data: bytes) -> list[tuple[Image.Image, int]]:
    image = Image.open(io.BytesIO(data))
    assert image.format == "GIF"
    frames = []
    for index in range(image.n_frames):
        image.seek(index)
        frames.append((image.convert("RGB"), image.info["duration"]))
    return frames


def same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a, b).getbbox() is None


def test_a_winning_line_starts_at_the_deal_rings_each_removal_and_ends_cleared():
    game = example_game()
    line = solve(game).line
    animation = winning_animation(game.code, Labels(), 2_000_000, None)
    assert animation is not None and animation.moves == len(line)
    frames = decoded(animation.data)
    removals = sum(1 for move in line if move.kind in ("pair", "king"))
    assert len(frames) == 1 + len(line) + removals  # every move, and a ringed frame before each removal
    assert same(frames[0][0], render_image(game, code=game.code)) and frames[0][1] == START_MS
    first = next(i for i, move in enumerate(line) if move.kind in ("pair", "king"))
    before = game.copy()
    for move in line[:first]:
        before.play(move)
    ringed = frames[1 + first]
    assert same(ringed[0], render_image(before, highlight=line[first].spots, code=game.code))
    assert ringed[1] == MARK_MS and frames[2 + first][1] == REMOVED_MS  # a pause after the removal
    won = game.copy()
    for move in line:
        won.play(move)
    assert same(frames[-1][0], render_image(won, code=game.code)) and frames[-1][1] == END_MS
    assert animation.playback_ms == sum(ms for _, ms in frames) <= MAX_PLAYBACK_MS
    assert len(animation.data) < 8 * 1024 * 1024


def test_a_deal_without_a_winning_line_has_no_animation():
    assert winning_animation(stuck_game().code, Labels(), 2_000_000, None) is None


def test_a_long_game_is_shortened_to_ninety_seconds():
    game = Game.from_number(5, Rules())
    actions = [STOCK] * 900  # draws and turns through many passes
    frames = action_frames(game, actions)
    assert sum(frame.ms for frame in frames) <= MAX_PLAYBACK_MS
    assert all(frame.ms >= MIN_MS for frame in frames)
    assert frames[0].game.moves == 0 and frames[-1].game.moves > 100  # still from the deal to the end
    animation = replay_animation(game.code, actions[:60], Labels())
    assert len(decoded(animation.data)) == 61 and animation.moves == 60


async def win_kings_and_pairs(h) -> list:
    """Win the kings-and-pairs deal with typed taps; what the last tap sent."""
    deal = kings_and_pairs()
    await start(h, deal.code)
    plan = deal.copy()
    clear_kings_and_pairs(plan)
    sent: list = []
    for action in plan.actions:
        sent = await h.command("tap", card=str(deal.pyramid[action]))
    return sent


def gif_of(sent: list) -> tuple[str, bytes, str]:
    """The animation a request sent: file name, data and its alt text."""
    for request in sent:
        for name, data in request.files:
            if name.endswith(".gif"):
                attachment = next(a for a in request.body["attachments"] if a["filename"] == name)
                return name, data, attachment.get("description", "")
    raise AssertionError("no animation sent")


@pytest.fixture
def counted_pool(harness, monkeypatch):
    calls: list[str] = []
    real = harness.bot.workers.animations.run

    async def run(function, *args):
        calls.append(function.__name__)
        return await real(function, *args)

    monkeypatch.setattr(harness.bot.workers.animations, "run", run)
    return calls


async def test_a_won_game_offers_its_winning_line_and_its_replay_and_a_second_request_draws_nothing(
    harness, counted_pool
):
    sent = await win_kings_and_pairs(harness)
    board = next(s for s in sent if s.png)
    line, replay = board.button("Show a winning line"), board.button("Replay my game")
    sent = await harness.press(line)
    name, data, alt = gif_of(sent)
    frames = decoded(data)
    assert name == "winning-line.gif" and len(frames) > 10
    assert "A winning line for `" in sent[-1].content and not sent[-1].ephemeral
    moves = int(re.search(r": (\d+) moves", sent[-1].content)[1])  # type: ignore[index]
    assert f"won in {moves} moves" in alt  # the alt text says how many moves the line takes
    assert counted_pool == ["winning_animation"]
    again = await harness.press(line, user=STRANGER)  # anyone in the channel may watch it
    assert gif_of(again)[1] == data and counted_pool == ["winning_animation"]  # from memory: nothing drawn
    sent = await harness.press(replay)
    name, data, alt = gif_of(sent)
    assert name == "replay.gif" and len(decoded(data)) == 1 + 28  # the deal, then the player's 28 taps
    assert "as it was played" in sent[-1].content


async def test_an_unwinnable_deal_offers_only_the_replay(harness):
    stuck = stuck_game()
    await start(harness, stuck.code)
    await harness.command("draw")
    sent = await harness.command("end")
    board = next(s for s in sent if s.png)
    labels = [b.get("label") for b in board.buttons().values()]
    assert "Replay my game" in labels and "Show a winning line" not in labels


async def test_the_dailys_line_waits_until_the_day_is_over(harness):
    harness.now[0] = T0 + 3600
    await harness.command("daily play")
    thread_id = int(harness.hub.threads[-1]["id"])
    await harness.command("draw", channel_id=thread_id)
    sent = await harness.command("end", channel_id=thread_id)
    board = next(s for s in sent if s.png)
    line = board.button("Show a winning line")  # the day's deal is always winnable
    sent = await harness.press(line)
    assert sent[-1].ephemeral and "once the day is over" in sent[-1].content
    assert not any(name.endswith(".gif") for s in sent for name, _ in s.files)
    harness.now[0] = T0 + 86_400 + 60  # the next day, UTC
    sent = await harness.press(line)
    assert gif_of(sent)[0] == "winning-line.gif"
