"""Achievements through the bot (tests/support/harness.py): the finishing answer announces what the game unlocked,
once; /pyramide achievements and the player card of /pyramide stats, in every place stats work."""

from __future__ import annotations

import contextlib
import io

from PIL import Image

from pyramide import Game
from pyramide.solver import solve
from pyramide_service.manager import GameManager
from tests.support.backends import raw
from tests.support.deals import kings_and_pairs, one_king_deal
from tests.support.harness import CHANNEL_ID, DM_CHANNEL_ID, OWNER, STRANGER, Harness, labels, said, start
from tests.support.manager_turns import play


def winning_presses(game: Game) -> list[str]:
    """The buttons that clear the kings-and-pairs deal, in order: row by row, bottom up."""
    presses = []
    for row in range(6, -1, -1):
        first_spot = row * (row + 1) // 2
        names = [str(game.pyramid[i]) for i in range(first_spot, first_spot + row + 1)]
        while names:
            first = names.pop(0)
            presses.append(first)
            if not first.startswith("K"):
                presses.append(names.pop(0))
    return presses


async def win(harness: Harness) -> str:
    """Clear the kings-and-pairs deal by its buttons; the winning answer's text."""
    game = kings_and_pairs()
    await start(harness, game.code)
    sent = []
    for name in winning_presses(game):
        sent = await harness.press(harness.board_button(name))
    assert "New game" in labels(harness.board())
    return sent[-1].content


async def test_the_winning_answer_announces_what_it_unlocked_once(harness):
    text = await win(harness)
    assert "You won!" in text
    assert "Achievement unlocked: First win — The first pyramid cleared." in text
    assert "Achievement unlocked: No way back — A win without an undo." in text
    assert "Achievement unlocked: On my own — A win without a hint." in text
    again = await win(harness)
    assert "Achievement unlocked: First win" not in again
    assert "Achievement unlocked" not in again  # nothing new for a second such win


async def test_the_finished_board_drawn_again_still_shows_what_the_game_unlocked(harness):
    game = kings_and_pairs()
    await start(harness, game.code)
    last = None
    for row in range(6, -1, -1):
        first_spot = row * (row + 1) // 2
        names = [str(game.pyramid[i]) for i in range(first_spot, first_spot + row + 1)]
        while names:
            first = names.pop(0)
            last = harness.board_button(first)
            await harness.press(last)
            if not first.startswith("K"):
                last = harness.board_button(names.pop(0))
                await harness.press(last)
    assert last is not None
    # A press on the board as it was before the winning answer (that answer lost on the way) redraws it.
    sent = await harness.press(last)
    assert "You won!" in sent[-1].content and sent[-1].content.count("Achievement unlocked: First win") == 1
    assert [u.key for u in await harness.storage.unlocked(OWNER)].count("first_win") == 1


def attachment(sent, name: str) -> tuple[dict, bytes]:
    """The attachment ``name`` of the last answer that carries it: its payload entry and its bytes."""
    for answer in reversed(sent):
        for entry in answer.body.get("attachments", []):
            if entry.get("filename") == name:
                data = next(d for n, d in answer.files if n == name)
                return entry, data
    raise AssertionError(f"no {name} in {[s.body.get('attachments') for s in sent]}")


async def test_stats_answer_with_the_player_card_and_its_alt_text(harness):
    await win(harness)
    sent = await harness.command("stats")
    entry, png = attachment(sent, "card.png")
    assert Image.open(io.BytesIO(png)).width >= 640
    alt = entry["description"]
    assert len(alt) <= 1024 and "Played: 1" in alt and "Won: 1" in alt and "Win rate: 100%" in alt
    assert "6 of 25 achievements unlocked" in alt and "Latest: Lightning" in alt  # (the win took no time)
    assert "Rarest: " in alt and "100% of players have it" in alt  # the only player of the server
    assert sent[-1].body["embeds"][0]["fields"]  # the embed stays beside it
    harness.locale = "ru"
    sent = await harness.command("stats")
    entry, _ = attachment(sent, "card.png")
    assert "Сыграно: 1" in entry["description"]


async def test_achievements_shows_the_grid_here_and_only_ones_own_outside_servers(harness):
    await win(harness)
    sent = await harness.command("achievements")
    entry, png = attachment(sent, "achievements.png")
    assert Image.open(io.BytesIO(png)).width >= 640 and not sent[-1].ephemeral
    assert "First win (" in entry["description"] and "100%" in entry["description"]  # the only player here
    sent = await harness.command("achievements", user=STRANGER, player=_user(OWNER))  # in a server: anyone's
    entry, _ = attachment(sent, "achievements.png")
    assert "First win (" in entry["description"]
    sent = await harness.command("achievements", channel_id=DM_CHANNEL_ID, player=_user(STRANGER))
    assert "only see your own achievements" in "\n".join(s.content for s in sent)
    sent = await harness.command("achievements", channel_id=DM_CHANNEL_ID)  # one's own: every place
    entry, _ = attachment(sent, "achievements.png")
    assert "First win (" in entry["description"]
    assert harness.hub.unreachable == []


async def test_a_history_from_before_the_upgrade_is_credited_at_the_first_look(harness):
    await win(harness)
    await win(harness)
    await raw(harness.storage, "DELETE FROM achievements")  # as the database was before the upgrade
    await raw(harness.storage, "DELETE FROM achievement_progress")
    sent = await harness.command("achievements")
    entry, _ = attachment(sent, "achievements.png")
    assert "First win (" in entry["description"]  # credited in the background, within the answer's wait
    assert {u.key for u in await harness.storage.unlocked(OWNER)} >= {"first_win", "no_undo", "no_hints"}
    text = await win(harness)
    assert "Achievement unlocked: First win" not in text  # credited once: nothing announced again


async def test_forget_me_deletes_the_achievements(harness):
    await win(harness)
    assert await harness.storage.unlocked(OWNER)
    sent = await harness.command("forget-me")
    await harness.press(sent[-1].button("Yes, delete my data"))
    assert await harness.storage.unlocked(OWNER) == []


def _user(user_id):
    import discord

    return discord.Object(user_id)


async def test_a_perfect_loss_is_announced_once_the_verdict_is_known(harness):
    code = one_king_deal().code
    await start(harness, code)
    sent = await harness.command("end")  # given up before taking the one card the deal allows
    assert "at most 1 card" in said(sent), said(sent)
    assert "Perfect loss" not in said(sent) and await harness.storage.unlocked(OWNER) == []
    await start(harness, code)
    await harness.press(harness.board_button("K♠"))
    sent = await harness.command("end")  # every card it allowed: a perfect loss
    assert "Achievement unlocked: Perfect loss — An unwinnable deal played to the most cards it allowed." in said(sent)
    assert [u.key for u in await harness.storage.unlocked(OWNER)] == ["perfect_loss"]
    await start(harness, code)
    await harness.press(harness.board_button("K♠"))
    sent = await harness.command("end")
    assert "Achievement unlocked" not in said(sent)  # once
    assert [u.key for u in await harness.storage.unlocked(OWNER)] == ["perfect_loss"]


async def test_an_expert_deal_dealt_by_difficulty_and_won_unlocks_expert(harness):
    await harness.command("new", difficulty="expert")
    record = await harness.storage.live_game(CHANNEL_ID)
    assert record is not None
    line = solve(Game.from_code(record.code)).line
    assert line
    for move in line:
        result = await play(harness.bot.manager, CHANNEL_ID, lambda game, move=move: game.play(move))
    assert result.finished and "expert_win" in (result.live.unlocked or ())
    assert "expert_win" in {u.key for u in await harness.storage.unlocked(OWNER)}
    await start(harness, kings_and_pairs().code)  # a deal of no known tier: no second expert, nothing new
    assert "Expert" not in await win_again(harness)


async def win_again(harness: Harness) -> str:
    """Clear the kings-and-pairs deal already dealt; the winning answer's text."""
    game = kings_and_pairs()
    sent = []
    for row in range(6, -1, -1):
        first_spot = row * (row + 1) // 2
        names = [str(game.pyramid[i]) for i in range(first_spot, first_spot + row + 1)]
        while names:
            first = names.pop(0)
            sent = await harness.press(harness.board_button(first))
            if not first.startswith("K"):
                sent = await harness.press(harness.board_button(names.pop(0)))
    return sent[-1].content


class _Stopped(BaseException):
    """The process stopping between a move's store and the game's close."""


async def test_a_game_closed_at_its_next_load_announces_what_it_unlocked_where_it_is_next_shown(harness, monkeypatch):
    game = kings_and_pairs()
    await start(harness, game.code)
    names = winning_presses(game)
    for name in names[:-1]:
        await harness.press(harness.board_button(name))

    async def stopped(*args: object) -> None:
        raise _Stopped()

    monkeypatch.setattr(GameManager, "_finish", stopped)  # the winning move is stored, then the process stops
    with contextlib.suppress(_Stopped):
        await harness.press(harness.board_button(names[-1]))
    monkeypatch.undo()
    await harness.restart()
    sent = await harness.command("draw")  # the next thing the player does in the channel
    text = " ".join(s.content or "" for s in sent)
    assert "You won!" in text and text.count("Achievement unlocked: First win") == 1, text
    sent = await harness.command("draw")
    assert "Achievement unlocked" not in " ".join(s.content or "" for s in sent)  # once
