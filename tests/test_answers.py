"""What Discord answers, sorted by what it means: a lost answer (nobody waits for it any more) versus a
refused one (Discord received it and said no). A refusal is logged at error level with Discord's code,
the player hears about it where Discord still listens, and nothing stays half-made.

The real bot on both databases (``harness``), with Discord's edge refusing as the real one does
(``Hub.fail``: callbacks, followups, edits; ``Hub.refuse``: the bot's REST calls)."""

from __future__ import annotations

import asyncio
import io
import logging
from datetime import UTC, datetime

import discord
import pytest

from pyramide.daily import day_key, today
from pyramide_bot.logs import RedactTokens
from pyramide_service.storage import redact
from pyramide_service.storage.postgres import PostgresStorage
from tests.support.backends import raw
from tests.support.deals import clear_kings_and_pairs, kings_and_pairs
from tests.support.harness import CHANNEL_ID, OWNER, STRANGER, labels, start

pytestmark = pytest.mark.backends("sqlite", "postgresql")


async def refuse_inserts(storage, table: str) -> None:
    """Make the database refuse every new row of ``table`` (a later step of a flow failing for real)."""
    if isinstance(storage, PostgresStorage):
        await raw(
            storage,
            "CREATE FUNCTION refuse_row() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$"
            " LANGUAGE plpgsql",
        )
        body = "FOR EACH ROW EXECUTE FUNCTION refuse_row()"
    else:
        body = "BEGIN SELECT RAISE(ABORT, 'refused'); END"
    await raw(storage, f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} {body}")


async def accept_inserts(storage, table: str) -> None:
    on = f" ON {table}" if isinstance(storage, PostgresStorage) else ""
    await raw(storage, f"DROP TRIGGER refuse_{table}{on}")


def today_key(h) -> str:
    return day_key(today(datetime.fromtimestamp(h.now[0], UTC)))


def errors(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


# ------------------------------------------------------------------ a new board
@pytest.mark.parametrize("kind", ["forbidden", "invalid"])
async def test_a_refused_new_board_leaves_the_channel_free(harness, caplog, kind):
    harness.hub.fail("callback", kind)
    sent = await harness.command("new", code="PY1-N-AAAAAAS")
    told = sent[-1]
    assert told.ephemeral and "no game was dealt and the channel is free" in told.content
    assert await harness.storage.live_game(CHANNEL_ID) is None
    code = "50013" if kind == "forbidden" else "50035"
    assert any("refused by Discord" in line and code in line for line in errors(caplog))
    sent = await harness.command("new", code="PY1-N-AAAAAAA")  # dealt at once, no "replace it?" prompt
    assert sent[0].png is not None and "already running" not in sent[0].content
    assert (await harness.storage.live_game(CHANNEL_ID)).code == "PY1-N-AAAAAAA"


async def test_a_lost_new_board_leaves_the_channel_free_too(harness, caplog):
    harness.hub.fail("callback", "unknown")
    await harness.command("new", code="PY1-N-AAAAAAS")
    assert await harness.storage.live_game(CHANNEL_ID) is None
    assert not errors(caplog)  # lost, not refused: a warning only
    sent = await harness.command("new", code="PY1-N-AAAAAAA")
    assert sent[0].png is not None


async def test_a_refused_board_after_a_public_deferral_leaves_no_thinking_and_no_game(harness):
    known = asyncio.all_tasks()
    async with harness.bot.manager.turn(CHANNEL_ID):  # the channel is busy: the answer is deferred
        payload = harness.command_payload("new", code="PY1-N-AAAAAAS")
        harness.hub.fail("followup", "forbidden")
        harness.fire(payload)
        deferral = await harness.hub.first_answer(payload["token"])
    await harness.settle(known)
    assert deferral.data["type"] == 5
    token = payload["token"]
    assert token not in harness.hub.thinking  # the placeholder did not stay
    assert harness.hub.original[token] not in harness.hub.messages or "thinking" not in str(
        harness.hub.messages[harness.hub.original[token]]
    )
    told = harness.answers(token)[-1]
    assert "no game was dealt" in told.content and harness.hub.visible_flags(told) & 64
    assert await harness.storage.live_game(CHANNEL_ID) is None


# ------------------------------------------------------------------ "thinking…"
async def test_a_refused_followup_after_a_private_deferral_replaces_the_thinking_message(harness, caplog):
    harness.hub.fail("followup", "invalid")
    harness.hub.fail("followup", "invalid")  # the private word about it is refused as well
    sent = await harness.command("daily play")  # deferred privately, then answered with a followup
    token = sent[0].token
    assert sent[0].data["type"] == 5 and sent[0].flags & 64
    assert token not in harness.hub.thinking
    placeholder = harness.hub.messages[harness.hub.original[token]]
    assert "Discord refused my answer (error 50035)" in placeholder["content"] and placeholder["flags"] & 64
    assert any("50035 Invalid Form Body" in line for line in errors(caplog))


async def test_a_refused_board_edit_is_told_privately_and_the_move_is_kept(harness, caplog):
    await start(harness, kings_and_pairs().code)
    board_id = int(harness.board()["id"])
    harness.hub.fail("callback", "invalid")
    sent = await harness.press(harness.board_button("K♠"), board_id)
    assert sent[-1].ephemeral and "Discord refused my answer (error 50035)" in sent[-1].content
    assert "What was played is stored" in sent[-1].content
    assert (await harness.bot.manager.live(CHANNEL_ID)).game.moves == 1
    assert any("refused by Discord" in line for line in errors(caplog))
    sent = await harness.press(harness.board_button("Draw (23)"), board_id)  # the board catches up
    assert "brought up to date" in sent[-1].content and "K♠" not in labels(harness.hub.messages[board_id])


# ------------------------------------------------------------------ the daily
async def test_the_daily_thread_goes_when_a_later_step_fails(harness):
    await refuse_inserts(harness.storage, "players")  # the player's name cannot be stored
    sent = await harness.command("daily play")
    thread_id = int(harness.hub.threads[-1]["id"])
    assert harness.hub.standing_threads() == []  # the thread made for it was deleted
    assert thread_id in harness.hub.deleted_threads
    assert await harness.storage.live_game(thread_id) is None
    assert await harness.storage.daily_attempt(today_key(harness), OWNER) is None  # nothing counted
    assert "Something went wrong" in sent[-1].content and harness.hub.visible_flags(sent[-1]) & 64
    assert sent[-1].token not in harness.hub.thinking
    await accept_inserts(harness.storage, "players")
    await harness.command("daily play")  # and the next try works
    thread_id = int(harness.hub.threads[-1]["id"])
    assert harness.hub.standing_threads() == [thread_id]
    assert (await harness.bot.manager.live(thread_id)) is not None


# ------------------------------------------------------------------ races
@pytest.mark.parametrize("fails", ["create_race", "scoreboard"])
async def test_a_race_that_cannot_start_leaves_no_thread_and_no_game(harness, fails):
    if fails == "create_race":
        await refuse_inserts(harness.storage, "races")
    else:
        harness.hub.fail("followup", "forbidden")  # the scoreboard after the public deferral
    sent = await harness.command("race", opponent=discord.Object(STRANGER), code=kings_and_pairs().code)
    made = [int(t["id"]) for t in harness.hub.threads]
    assert len(made) == 2 and harness.hub.standing_threads() == []
    for thread_id in made:
        assert await harness.storage.live_game(thread_id) is None
        assert harness.bot.manager.peek(thread_id) is None
    assert (await harness.storage.race_stats(harness.guild_id, OWNER)).played == 0
    told = sent[-1]
    assert harness.hub.visible_flags(told) & 64 and told.token not in harness.hub.thinking
    if fails == "create_race":
        await accept_inserts(harness.storage, "races")
    sent = await harness.command("race", opponent=discord.Object(STRANGER), code=kings_and_pairs().code)
    assert len(harness.hub.standing_threads()) == 2  # the next one starts


# ------------------------------------------------------------------ every interaction through answering
@pytest.mark.parametrize("path", ["stats", "leaderboard", "rules", "forget-me", "/pyramide-admin settings"])
async def test_every_command_is_answered_through_the_watched_counted_way(harness, path):
    registry = harness.bot.health.registry

    def counted() -> float:
        return registry.get_sample_value("pyramide_interactions_total", {"kind": "command"}) or 0.0

    before = counted()
    sent = await harness.command(path)
    assert sent and sent[0].in_flight == 1  # answered while counted: the shutdown drain waits for it
    assert harness.bot.in_flight == 0 and counted() == before + 1


# ------------------------------------------------------------------ Discord as strict as Discord
async def test_a_press_delivered_twice_is_played_once_and_answered_once(harness, caplog):
    await start(harness, kings_and_pairs().code)
    board_id = int(harness.board()["id"])
    payload = harness.press_payload(harness.board_button("K♠"), harness.hub.messages[board_id])
    known = asyncio.all_tasks()
    harness.fire(payload, board_id)
    await harness.settle(known)
    harness.fire(payload, board_id)  # the same interaction again (a second process, a replayed event)
    await harness.settle(known)
    callbacks = [s for s in harness.answers(payload["token"]) if s.path.endswith("/callback")]
    assert len(callbacks) == 1  # Discord accepted one first answer, and refused the second with 40060
    assert (await harness.bot.manager.live(CHANNEL_ID)).game.moves == 1
    assert not errors(caplog)  # answered elsewhere: nothing to tell anyone
    assert any("40060" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


# ------------------------------------------------------------------ secrets in logs
async def test_a_debug_log_of_a_whole_game_holds_no_interaction_token(harness):
    text = io.StringIO()
    handler = logging.StreamHandler(text)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactTokens())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        deal = kings_and_pairs()
        await start(harness, deal.code)
        cleared = deal.copy()
        clear_kings_and_pairs(cleared)
        for action in cleared.actions:
            await harness.press(harness.board_button(str(deal.pyramid[action])))
        assert "You won!" in harness.board()["content"]
        await harness.command("code")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    log = text.getvalue()
    tokens = list(harness.hub.created)
    assert len(tokens) > 20
    assert "/interactions/" in log and "/webhooks/" in log and "<token>" in log  # the URLs were logged
    assert not [token for token in tokens if token in log]


def test_a_database_url_is_printed_without_its_password_wherever_it_is():
    assert redact("postgresql://bot:hunter2@db:5432/pyramide") == "postgresql://bot:***@db:5432/pyramide"
    assert redact("postgresql://db/pyramide?user=bot&password=hunter2&sslmode=require") == (
        "postgresql://db/pyramide?user=bot&password=***&sslmode=require"
    )
    assert "hunter2" not in redact("postgresql://db/pyramide?Pass%77ord=hunter2")
    assert redact("sqlite:///srv/pyramide.db") == "sqlite:///srv/pyramide.db"


@pytest.mark.parametrize(("status", "kept"), [(503, True), (403, False)])
async def test_a_daily_board_lost_on_the_way_keeps_its_attempt_and_a_refused_one_does_not(harness, status, kept):
    """A board Discord refused was never seen: the attempt is taken back. One whose answer was lost (a
    5xx) may have been posted and its deal seen: the attempt stays, so the day cannot be tried again
    with a deal already known, and the board (if it arrived) plays."""
    harness.hub.refuse("POST", "/channels/{channel_id}/messages", code=0, message="Service Unavailable", status=status)
    await harness.command("daily play")
    attempt = await harness.storage.daily_attempt(today_key(harness), OWNER)
    assert (attempt is not None) is kept
    sent = await harness.command("daily play")
    if kept:
        assert "waiting" in sent[-1].content.lower() and len(harness.hub.standing_threads()) == 1
    else:
        assert sent[-1].png is not None or any(s.png for s in sent)  # dealt again: nobody saw the first
