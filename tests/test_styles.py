"""/pyramide style through the real bot, on both databases: the style set is the one every later picture of
the player's games is drawn in (board, race, replay, the buttons' emojis), another player's game keeps its
own, a wrong name changes nothing, and forget-me deletes it."""

from __future__ import annotations

import io
import sqlite3
import time

import discord
import pytest
from PIL import Image

from pyramide import Game
from pyramide.style import DEFAULT, TABLES, Corners, Deck, Felt, Style
from pyramide_discord import emojis as card_emojis
from pyramide_service.player_styles import PlayerStyles
from pyramide_service.storage import from_url, schema
from pyramide_service.storage.postgres import PostgresStorage
from pyramide_service.storage.schema import STYLES_VERSION
from tests.support.backends import raw, schema_before
from tests.support.deals import clear_kings_and_pairs, kings_and_pairs
from tests.support.harness import MANAGE_GUILD, OWNER, PLAIN, STRANGER, Harness, start
from tests.support.throwaway_postgres import Frozen, server_processes

pytestmark = pytest.mark.backends("sqlite", "postgresql")

FOUR_LARGE_DARK = {"deck": "four-colour", "corners": "large", "table": "dark"}


def table_of(png: bytes) -> Felt:
    """The table a picture (a PNG, or a GIF's first frame) is drawn on, by the colour of its top-left corner
    (nothing is drawn there; the fixed palette may give a shade off by one or two)."""
    found = Image.open(io.BytesIO(png)).convert("RGB").getpixel((2, 0))
    assert isinstance(found, tuple)
    near = [
        felt
        for felt, colours in TABLES.items()
        if max(abs(a - b) for a, b in zip(found, colours.top, strict=True)) <= 3
    ]
    assert len(near) == 1, found
    return near[0]


async def stored_styles(h: Harness) -> int:
    """How many players' styles the database holds."""
    return int((await raw(h.storage, "SELECT COUNT(*) FROM player_styles"))[0][0])


def attachment_alt(sent) -> str:
    return sent.body["attachments"][0].get("description", "")


async def test_a_style_set_is_used_on_the_next_board_race_and_replay(harness):
    assert await stored_styles(harness) == 0  # a player who never chose one stores nothing
    sent = await harness.command("style", **FOUR_LARGE_DARK)
    answer = sent[-1]
    assert answer.ephemeral and "Saved" in answer.content and "four colours" in answer.content
    assert answer.png is not None and table_of(answer.png) is Felt.DARK  # the preview
    assert "four colours" in attachment_alt(answer) and "gold outline" in attachment_alt(answer)
    assert await harness.storage.player_style(OWNER) == Style(Deck.FOUR_COLOUR, Corners.LARGE, Felt.DARK)
    assert await stored_styles(harness) == 1

    # The board: the dark table, and the buttons' ♦ and ♣ faces from the four-colour set.
    deal = kings_and_pairs()
    board = await start(harness, deal.code)
    assert board.png is not None and table_of(board.png) is Felt.DARK
    game = Game.from_code(deal.code)
    for button in harness.board()["components"][0]["components"]:
        card = next((c for c in game.pyramid if c is not None and str(c) == button["label"]), None)
        if card is not None and card.suit in (2, 3):
            assert button["emoji"]["name"].startswith(card_emojis.face_name(card, deck=Deck.FOUR_COLOUR) + "_")
            image = harness.hub.app_emojis.images[int(button["emoji"]["id"])]
            assert card_emojis.emoji_images()[button["emoji"]["name"]].png == image

    # The replay of that game, once won.
    plan = deal.copy()
    clear_kings_and_pairs(plan)
    for action in plan.actions:
        sent = await harness.command("tap", card=str(deal.pyramid[action]))
    finished = next(s for s in sent if s.png)
    assert table_of(finished.png) is Felt.DARK
    sent = await harness.press(finished.button("Replay my game"))
    gif = next(data for s in sent for name, data in s.files if name.endswith(".gif"))
    assert table_of(gif) is Felt.DARK
    sent = await harness.press(finished.button("Show a winning line"))
    gif = next(data for s in sent for name, data in s.files if name.endswith(".gif"))
    assert table_of(gif) is Felt.DARK

    # A race: each player's board in their own style.
    await harness.command("style", user=STRANGER, table="blue")
    sent = await harness.command("race", opponent=discord.Object(STRANGER), code=deal.code)
    boards = {s.url.split("/channels/")[1].split("/")[0]: s.png for s in sent if s.png}
    threads = harness.hub.threads[-2:]
    owners = {thread["id"]: (await harness.bot.manager.live(int(thread["id"]))).record.owner_id for thread in threads}
    colours = {owners[channel]: table_of(png) for channel, png in boards.items()}
    assert colours == {OWNER: Felt.DARK, STRANGER: Felt.BLUE}


async def test_another_players_game_in_the_same_channel_keeps_its_own_style(harness):
    await harness.command(
        "/pyramide-admin settings", user=STRANGER, permissions=PLAIN | MANAGE_GUILD, who_can_play="anyone"
    )
    await harness.command("style", table="dark")  # OWNER's
    sent = await harness.command("new", user=STRANGER, code="PY1-N-AAAAAAS")  # STRANGER's game, default style
    board = next(s for s in sent if s.png)
    assert table_of(board.png) is Felt.GREEN
    sent = await harness.press(harness.board_button("Hint"))  # OWNER presses on STRANGER's game
    redrawn = [s for s in sent if s.png]
    assert redrawn and all(table_of(s.png) is Felt.GREEN for s in redrawn)
    assert await harness.storage.player_style(STRANGER) == DEFAULT
    assert await stored_styles(harness) == 1


async def test_an_unknown_name_is_refused_with_the_choices_and_changes_nothing(harness):
    await harness.command("style", corners="large")
    sent = await harness.command("style", deck="rainbow", table="dark")
    answer = sent[-1]
    assert answer.ephemeral and answer.png is None
    assert "rainbow" in answer.content and "classic (two colours), four colours" in answer.content
    assert "Nothing was changed" in answer.content
    assert await harness.storage.player_style(OWNER) == Style(corners=Corners.LARGE)  # the table too is unchanged
    harness.locale = "hr"
    sent = await harness.command("style", table="red")
    assert "zeleni filc, plavi, tamni" in sent[-1].content and "Ništa nije promijenjeno" in sent[-1].content


async def test_going_back_to_the_default_style_stores_nothing(harness):
    await harness.command("style", deck="four-colour")
    assert await stored_styles(harness) == 1
    sent = await harness.command("style", deck="classic")
    assert "Saved" in sent[-1].content and table_of(sent[-1].png) is Felt.GREEN
    assert await stored_styles(harness) == 0
    sent = await harness.command("style")  # no option: the style shown, nothing saved
    assert "Saved" not in sent[-1].content and "classic (two colours)" in sent[-1].content


async def test_forget_me_deletes_the_style(harness):
    await harness.command("style", **FOUR_LARGE_DARK)
    await harness.command("style", user=STRANGER, table="blue")
    sent = await harness.command("forget-me")
    sent = await harness.press(sent[-1].button("Yes, delete my data"))
    assert await harness.storage.player_style(OWNER) == DEFAULT
    assert await harness.storage.player_style(STRANGER) == Style(table=Felt.BLUE)
    assert await stored_styles(harness) == 1
    board = await start(harness, "PY1-N-AAAAAAS")  # the next board: today's look again, not a remembered one
    assert board.png is not None and table_of(board.png) is Felt.GREEN


@pytest.mark.parametrize("lang, words", [("da", "Gemt"), ("ru", "Сохранено")])
async def test_the_answer_and_its_picture_are_described_in_the_players_language(harness, lang, words):
    harness.locale = lang
    sent = await harness.command("style", table="blue")
    assert words in sent[-1].content and sent[-1].png is not None
    assert "{" not in attachment_alt(sent[-1]) and attachment_alt(sent[-1])


async def test_a_database_from_before_the_styles_is_migrated_and_keeps_its_players(tmp_path):
    path = tmp_path / "old.db"
    with schema_before(path, STYLES_VERSION) as db:
        db.execute("INSERT INTO players (player_id, name) VALUES (?, 'Ana')", (OWNER,))
    store = from_url(str(path))
    await store.open()
    try:
        assert await store.player_style(OWNER) == DEFAULT
        await store.set_player_style(OWNER, Style(table=Felt.DARK))
        assert await store.player_style(OWNER) == Style(table=Felt.DARK)
    finally:
        await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
        assert db.execute("SELECT name FROM players").fetchall() == [("Ana",)]


async def test_a_stored_name_no_longer_offered_is_read_as_the_default(storage):
    """A later version may drop a choice: a board is then drawn in the default style, never refused."""
    await storage.set_player_style(OWNER, Style(deck=Deck.FOUR_COLOUR))
    await raw(storage, "UPDATE player_styles SET felt = 'purple'")
    assert await storage.player_style(OWNER) == DEFAULT


async def test_a_style_the_stalled_database_cannot_give_is_drawn_as_the_default_and_asked_again(postgres_url):
    """After a restart (nothing kept), a board whose owner's style the database does not give in time is
    drawn in the default style, within Discord's window, instead of failing; the next one asks again."""
    storage = PostgresStorage(postgres_url)
    await storage.open()
    try:
        await storage.set_player_style(OWNER, Style(table=Felt.DARK))
        styles = PlayerStyles(storage)  # a fresh process: nothing kept
        pids = server_processes(postgres_url)
        if not pids:
            pytest.skip("the PostgreSQL server is not one this test can signal")
        stopped = Frozen(pids)
        try:
            started = time.monotonic()
            assert await styles.get(OWNER) == DEFAULT
            assert time.monotonic() - started < 3.0
        finally:
            stopped.thaw()
        await storage.close()  # a new pool: the stalled connection is gone
        storage = PostgresStorage(postgres_url)
        await storage.open()
        styles.storage = storage
        assert await styles.get(OWNER) == Style(table=Felt.DARK)
    finally:
        await storage.close()
