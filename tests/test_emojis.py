"""Card faces as the application's own emojis: drawn once, uploaded only when missing or changed, on
every board's buttons (or, when Discord did not take them, today's text labels)."""

from __future__ import annotations

import asyncio
import base64
import io
import logging

import pytest
from PIL import Image

from pyramide import Game, render
from pyramide.cards import Card
from pyramide.game import STOCK
from pyramide_discord import emojis as card_emojis
from tests.support.app_emojis import MAX_BYTES, AppEmojis, Refused
from tests.support.harness import APP_ID, OWNER, STRANGER, Harness, Hub, start

# The bot's first start on an application without its emojis, unless a test says otherwise.
pytestmark = pytest.mark.new_application

ROUTE = "/applications/{application_id}/emojis"
# The buttons of the board of PY1-N-AAAAAAS as they were before the emojis (text only)
TODAYS_LABELS = ["5♥", "K♠", "2♣", "J♦", "3♥", "10♦", "A♣", "10♠", "Draw (23)", "Undo", "Hint", "End"]


@pytest.fixture
def redrawn():
    """Undo a test's change of the design: the set is drawn again from the module as it is."""
    card_emojis.emoji_images.cache_clear()
    yield
    card_emojis.emoji_images.cache_clear()


def named(base: str) -> str:
    """The emoji name of the image that shows ``base`` (``pyr_back``) in the set as drawn now."""
    return next(name for name, image in card_emojis.emoji_images().items() if image.base == base)


def buttons(message: dict) -> list[dict]:
    return [c for row in message["components"] for c in row["components"]]


def emoji_requests(h: Harness) -> list[tuple[str, str]]:
    return [(s.method, s.path) for s in h.hub.sent if s.path.startswith(ROUTE)]


def test_the_images_are_128_px_pngs_well_under_discords_limit_with_valid_unique_names():
    images = card_emojis.emoji_images()
    # 52 faces, the face cards with the letters of hr/da (V, D, R) and of ru (Т, В, Д, К), back and waste;
    # then the four-colour deck's own ♦ and ♣ (its ♠ and ♥ are the classic ones), with those letters too
    assert len(images) == 52 + 3 * 4 + 4 * 4 + 2 + (26 + 3 * 2 + 4 * 2)
    for name, image in images.items():
        assert card_emojis.NAME.fullmatch(name)
        decoded = Image.open(io.BytesIO(image.png))
        assert decoded.format == "PNG" and decoded.size == (128, 128)
        assert len(image.png) < MAX_BYTES // 16
    assert len({image.digest for image in images.values()}) == len(images)  # no two faces look alike


def test_a_red_card_is_drawn_red_and_a_black_card_black():
    def colours(card: Card) -> set[tuple[int, int, int]]:
        image = Image.open(io.BytesIO(render.card_emoji(card))).convert("RGB")
        return {colour for _, colour in image.getcolors(1 << 16) or []}

    assert render.RED in colours(Card(7, 1)) and render.BLACK not in colours(Card(7, 1))
    assert render.BLACK in colours(Card(7, 3)) and render.RED not in colours(Card(7, 3))


def test_the_rank_and_suit_fill_most_of_the_square():
    """Read at 20 px, a face is its rank over its suit: the ink covers most of the card."""
    image = Image.open(io.BytesIO(render.card_emoji(Card(10, 0)))).convert("L")
    ink = image.crop((12, 12, 116, 116)).point(lambda v: 255 if v < 100 else 0).getbbox()
    assert ink is not None
    left, top, right, bottom = ink
    assert bottom - top > 90 and right - left > 70  # "10" over ♠ spans most of the height and width


async def test_a_fresh_start_uploads_the_set_once_and_a_restart_uploads_nothing(harness):
    app = harness.hub.app_emojis
    names = set(card_emojis.emoji_images())
    assert sorted(app.uploads) == sorted(names)  # each image once
    assert {emoji["name"] for emoji in app.emojis.values()} == names
    for emoji_id, data in app.images.items():  # what Discord keeps is what the renderer drew
        assert data == card_emojis.emoji_images()[app.emojis[emoji_id]["name"]].png
    before = len(emoji_requests(harness))
    await harness.restart()
    assert len(app.uploads) == len(names) and not app.deletions
    assert emoji_requests(harness)[before:] == [("GET", ROUTE)]  # a restart only lists them
    assert harness.bot.card_emojis.current.ready


async def test_every_button_of_a_board_carries_its_cards_own_emoji(harness):
    app = harness.hub.app_emojis
    sent = await start(harness, "PY1-N-AAAAAAS")
    board = harness.hub.messages[sent.message_id]
    faces = {image.base: image.png for image in card_emojis.emoji_images().values()}
    game = Game.from_code("PY1-N-AAAAAAS")
    shown = {str(game.pyramid[spot]): spot for spot in game.free_spots() if isinstance(spot, int)}
    for button in buttons(board):
        if button["label"] in shown:  # a card: its face, drawn for that card, with its name as the label
            card = game.pyramid[shown[button["label"]]]
            assert card is not None
            assert app.images[int(button["emoji"]["id"])] == render.card_emoji(card)
            assert button["emoji"]["name"] == named(card_emojis.face_name(card))
    draw = next(b for b in buttons(board) if b["label"].startswith("Draw"))
    assert app.images[int(draw["emoji"]["id"])] == faces[card_emojis.BACK]
    assert draw["label"] == f"Draw ({len(game.stock)})"  # the back and the count
    assert "emoji" not in next(b for b in buttons(board) if b["label"] == "Hint")

    await harness.press(draw["custom_id"])  # the waste shows the drawn card's face
    game.tap(STOCK)
    waste = next(b for b in buttons(harness.board()) if b["custom_id"].endswith(":w"))
    top = game.waste[-1]
    assert waste["label"] == str(top) and app.images[int(waste["emoji"]["id"])] == render.card_emoji(top)

    await harness.press(harness.board_button(waste["label"]))  # selected: green, the face kept
    waste = next(b for b in buttons(harness.board()) if b["custom_id"].endswith(":w"))
    assert waste["style"] == 3 and int(waste["emoji"]["id"]) in app.emojis


async def test_a_hinted_card_keeps_its_blue_and_its_face(harness):
    await start(harness, "PY1-N-AAAAAAS")
    await harness.press(harness.board_button("Hint"))
    hinted = [b for b in buttons(harness.board()) if b["style"] == 1 and b["custom_id"].split(":")[-1].isdigit()]
    assert hinted and all(int(b["emoji"]["id"]) in harness.hub.app_emojis.emojis for b in hinted)


async def test_a_croatian_board_shows_the_faces_with_croatian_letters(harness):
    harness.locale = "hr"
    sent = await start(harness, "PY1-N-AAAAAAS")
    board = harness.hub.messages[sent.message_id]
    letters = {"V": 11, "D": 12, "R": 13}  # valet, dama, kralj
    faces = [b for b in buttons(board) if b["label"][0] in letters]
    assert len(faces) == 2, [b["label"] for b in buttons(board)]  # R♠ and V♦
    for button in faces:
        letter, suit = button["label"][0], "♠♥♦♣".index(button["label"][-1])
        card = Card(letters[letter], suit)
        assert button["emoji"]["name"] == named(f"pyr_{card.ascii}_{letter}")
        assert harness.hub.app_emojis.images[int(button["emoji"]["id"])] == render.card_emoji(card, letter)


async def test_a_changed_sprite_uploads_only_the_changed_images(harness, monkeypatch, redrawn):
    app = harness.hub.app_emojis
    first = len(app.uploads)
    old_back = app.by_name()[named(card_emojis.BACK)]["id"]
    monkeypatch.setattr(render.emoji, "BACK_FIELD", (120, 30, 40))  # a red back instead of a blue one
    card_emojis.emoji_images.cache_clear()
    await harness.restart()
    assert app.uploads[first:] == [named(card_emojis.BACK)]  # a new name for the new picture, uploaded alone
    assert not app.deletions  # the old one stays while a process of the older version may still show it
    new_back = app.by_name()[named(card_emojis.BACK)]["id"]
    assert new_back != old_back
    sent = await start(harness, "PY1-N-AAAAAAS")
    draw = next(b for b in buttons(harness.hub.messages[sent.message_id]) if b["label"].startswith("Draw"))
    assert draw["emoji"]["id"] == new_back

    monkeypatch.setattr(render.emoji, "RED", (230, 0, 0))  # every red face changes, nothing else
    card_emojis.emoji_images.cache_clear()
    count = len(app.uploads)
    await harness.restart()
    red = {
        n
        for n, image in card_emojis.emoji_images().items()
        if image.base[len("pyr_") :].split("_")[0][-1] in "HD" and not image.base.endswith(card_emojis.FOUR_COLOUR)
    }  # the four-colour deck's ♦ is blue: unchanged
    assert sorted(app.uploads[count:]) == sorted(red) and len(red) == 26 + 3 * 2 + 4 * 2


@pytest.mark.parametrize("kind", ["refused", "rate limited"])
async def test_a_refused_upload_leaves_todays_labels_and_is_logged_once(database_url, caplog, kind):
    hub = Hub(new_application=True)
    if kind == "refused":
        hub.app_emojis.refuse_upload = 10  # ten are taken, the eleventh is refused
    else:
        hub.refuse("POST", ROUTE, code=429, message="You are being rate limited.")
    caplog.set_level(logging.INFO)
    h = await Harness(database_url, hub).start()
    try:
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and "card emojis" in r.getMessage()]
        assert len(warnings) == 1 and "text labels" in warnings[0].getMessage()
        sent = await start(h, "PY1-N-AAAAAAS")
        board = hub.messages[sent.message_id]
        assert not any("emoji" in b for b in buttons(board))
        assert [b["label"] for b in buttons(board)] == TODAYS_LABELS
        await h.press(h.board_button("Draw (23)"))  # the game goes on as before
        assert "Draw (22)" in [b["label"] for b in buttons(h.board())]

        hub.app_emojis.refuse_upload = None
        uploaded = len(hub.app_emojis.uploads)
        await h.restart()  # the next start uploads only what is missing
        assert uploaded == (10 if kind == "refused" else 0)
        assert len(hub.app_emojis.uploads) == len(card_emojis.emoji_images()) and not hub.app_emojis.deletions
        await h.press(h.board_button("Draw (22)"))  # the same game's next board shows the faces
        faces = [b for b in buttons(h.board()) if b["label"] not in ("Undo", "Hint", "End")]
        assert faces and all(int(b["emoji"]["id"]) in hub.app_emojis.emojis for b in faces)
    finally:
        await h.stop()


async def test_the_owner_command_checks_the_set_again_and_never_deletes_the_one_in_use(harness):
    app = harness.hub.app_emojis
    count = len(app.uploads)
    harness.bot.owner_id = OWNER
    assert not (await harness.say(f"<@{harness.bot.user.id}> sync emojis", user=STRANGER))  # owner only
    assert len(app.uploads) == count
    gone = next(iter(app.by_name().values()))  # one of the set deleted by hand in the developer portal
    app.delete(int(gone["id"]))
    sent = await harness.say(f"<@{harness.bot.user.id}> sync emojis")
    assert len(app.uploads) == count + 1 and app.deletions == [gone["name"]]  # only the missing one again
    assert "uploaded 1" in sent[-1].content
    sent_board = await start(harness, "PY1-N-AAAAAAS")
    ids = {b["emoji"]["id"] for b in buttons(harness.hub.messages[sent_board.message_id]) if "emoji" in b}
    assert ids and all(int(i) in app.emojis for i in ids)


async def test_an_emoji_outside_the_set_is_left_alone_and_an_old_one_of_the_set_goes_at_a_forced_sync(harness):
    app = harness.hub.app_emojis
    png = card_emojis.emoji_images()[named(card_emojis.BACK)].png
    image = "data:image/png;base64," + base64.b64encode(png).decode()
    app.create({"name": "party_parrot", "image": image})
    app.create({"name": "pyr_JOKER_0000000", "image": image})  # of an older version of the set
    await harness.restart()
    assert "party_parrot" in app.by_name() and "pyr_JOKER_0000000" in app.by_name()  # maybe still shown
    harness.bot.owner_id = OWNER
    await harness.say(f"<@{harness.bot.user.id}> sync emojis")
    assert "party_parrot" in app.by_name() and "pyr_JOKER_0000000" not in app.by_name()


async def test_two_processes_starting_together_share_one_set_and_delete_nothing(database_url):
    """A cluster's processes start at the same moment on an application without the set: each uploads
    what it does not find, one finds a name the other took and uses the other's; every board of either
    shows emojis that exist."""
    hub = Hub(new_application=True)
    first = Harness(database_url, hub)
    second = Harness(database_url, hub)
    await first.start()
    try:
        app = hub.app_emojis
        for emoji_id in list(app.emojis):  # as if the first had not synced yet
            app.delete(emoji_id)
        app.deletions.clear()
        await second.start()
        await asyncio.gather(
            card_emojis.sync_emojis(first.bot, first.bot.notes), card_emojis.sync_emojis(second.bot, second.bot.notes)
        )
        assert set(app.by_name()) == set(card_emojis.emoji_images()) and not app.deletions
        for h in (first, second):
            result = await card_emojis.sync_emojis(h.bot, h.bot.notes)
            assert result.emojis.ready and result.emojis.ids() <= set(app.emojis) and result.uploaded == 0
    finally:
        await second.stop()
        await first.stop()


def test_the_test_servers_refuse_what_discord_refuses():
    app = AppEmojis(APP_ID)
    png = card_emojis.emoji_images()[named(card_emojis.BACK)].png
    image = "data:image/png;base64," + base64.b64encode(png).decode()
    for bad in (
        {"name": "x", "image": image},
        {"name": "bad-name", "image": image},
        {"name": "a" * 33, "image": image},
    ):
        with pytest.raises(Refused) as refused:
            app.create(bad)
        assert refused.value.body["code"] == 50035 and "name" in refused.value.body["errors"]
    too_large = "data:image/png;base64," + base64.b64encode(b"\0" * (256 * 1024 + 1)).decode()
    with pytest.raises(Refused) as refused:
        app.create({"name": "large", "image": too_large})
    assert "image" in refused.value.body["errors"]
    first = app.create({"name": "pyr_back", "image": image})
    with pytest.raises(Refused):
        app.create({"name": "pyr_back", "image": image})  # names are unique in an application
    for n in range(1999):
        app.create({"name": f"e{n}", "image": image})
    with pytest.raises(Refused):
        app.create({"name": "one_too_many", "image": image})
    button = {"type": 2, "style": 2, "custom_id": "x", "label": "7♣"}
    app.check_components({"components": [{"type": 1, "components": [{**button, "emoji": {"id": first["id"]}}]}]})
    with pytest.raises(Refused) as refused:
        app.check_components({"components": [{"type": 1, "components": [{**button, "emoji": {"id": "12345"}}]}]})
    assert refused.value.body["code"] == 50035
