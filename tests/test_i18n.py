"""Every message in English, Croatian, Danish and Russian; the seed messages exactly as quoted."""

import re
from pathlib import Path

import pytest

from pyramide import Card, Rules
from pyramide.i18n import LANGUAGES, card_name, catalogue, keys, language_for, parse_card, plural_keys, t
from tests.support.deals import stuck_game
from tests.support.harness import Harness

SEED_MESSAGES = {
    "en": ("This card is blocked by another card", "The sum must be 13", "No more possible moves"),
    "hr": ("Ovu kartu blokira druga karta", "Zbroj mora biti jednak 13", "Nema više mogućih poteza"),
    "da": ("Dette kort er blokeret af et andet", "Summen skal være 13", "Ingen mulige træk tilbage"),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_exists_in_every_language(lang):
    missing = keys("en") - keys(lang)
    extra = keys(lang) - keys("en")
    assert not missing, f"{lang} lacks {sorted(missing)}"
    assert not extra, f"{lang} has keys English lacks: {sorted(extra)}"


ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("pyramide", "pyramide_service", "pyramide_discord", "cogs", "pyramide_bot")
SOURCES = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# ``t(lang, "key", ...)`` with a literal key, however the call is wrapped (a regular expression: parsing every
# module would cost seconds of the suite's budget).
NAMED_KEY = re.compile(r'(?<![\w.])t\(\s*(?:[\w.]+|"[a-z]{2}")\s*,\s*"([\w.]+)"')


def _keys_named(source: str) -> set[str]:
    """The message keys a module names as written."""
    return set(NAMED_KEY.findall(source))


def test_every_key_the_code_names_is_a_message():
    # A key renamed (events' messages are "event.", what a move did "effect.") and still named somewhere
    # would raise KeyError only when that line runs.
    named = {(_name(path), key) for path in SOURCES for key in _keys_named(path.read_text(encoding="utf-8"))}
    assert len(named) > 300
    messages = keys("en") | plural_keys("en")
    assert sorted((where, key) for where, key in named if key not in messages) == []
    source = 't(lang, "effect.drew", card=c)\nt(\n    "en",\n    "a.b")\nt(lang, f"x.{y}")\nother(l, "z")\nx.t(l, "q")'
    assert _keys_named(source) == {"effect.drew", "a.b"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_placeholders_match_english(lang):
    for key in keys("en"):
        english = set(re.findall(r"{(\w+)}", t("en", key)))
        assert set(re.findall(r"{(\w+)}", catalogue(lang)[key])) == english, f"{lang}:{key}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_translated_texts_are_not_left_in_english(lang):
    same = [
        k
        for k in keys("en")
        if t(lang, k) == t("en", k)
        and not k.startswith(("board.title", "stats.dash"))
        and not re.fullmatch(r"[\W\d{}a-z_]*", t("en", k))
    ]
    assert len(same) <= 3, f"{lang} copies English in {same}"


@pytest.mark.parametrize("lang", sorted(SEED_MESSAGES))
def test_seed_messages_exactly_as_quoted(lang):
    blocked, total, stuck = SEED_MESSAGES[lang]
    assert t(lang, "effect.blocked") == blocked
    assert t(lang, "effect.sum") == total
    assert t(lang, "end.stuck") == stuck
    assert t(lang, "board.stuck") == stuck


def test_option_names_are_valid_discord_names():
    for lang in LANGUAGES:
        for key in keys(lang):
            if key.startswith("opt."):
                assert re.fullmatch(r"[-_\w]{1,32}", t(lang, key)) and t(lang, key) == t(lang, key).lower(), key
            if key.startswith(("cmd.", "choice.")):
                assert 1 <= len(t(lang, key)) <= 100, key


def test_language_choice():
    assert language_for("hr", "en-US") == "hr"
    assert language_for("en-GB", "da") == "en"
    assert language_for("ja", "da") == "da"
    assert language_for("ja", "ko") == "en"
    assert language_for(None, None) == "en"
    assert language_for("ru", None) == "ru"


def test_missing_key_falls_back_to_english(monkeypatch):
    from pyramide import i18n

    croatian = dict(catalogue("hr"))
    del croatian["effect.drew"]
    monkeypatch.setattr(i18n, "catalogue", lambda lang: croatian if lang == "hr" else catalogue(lang))
    assert i18n.t("hr", "effect.drew", card="A♠") == "You drew A♠."
    assert i18n.t("hr", "effect.sum") == "Zbroj mora biti jednak 13"


def test_card_names_in_each_language():
    queen = Card.parse("Q♣")
    assert card_name(queen, "en") == "Q♣"
    assert card_name(queen, "hr") == "D♣" and card_name(Card.parse("K♦"), "hr") == "R♦"
    assert card_name(queen, "da") == "D♣" and card_name(Card.parse("K♦"), "da") == "R♦"
    assert card_name(queen, "ru") == "Д♣" and card_name(Card.parse("A♠"), "ru") == "Т♠"
    assert parse_card("D♣", "hr") == queen and parse_card("dc", "hr") == queen
    assert parse_card("R♦", "da") == Card.parse("K♦")
    assert parse_card("Д♣", "ru") == queen
    assert parse_card("10♣", "ru") == Card.parse("10C")
    assert parse_card("QC", "hr") == queen  # English names work everywhere


async def test_a_croatian_client_sees_croatian_on_the_whole_flow(tmp_path):
    h = await Harness(str(tmp_path / "hr.db")).start()
    h.locale = "hr"
    try:
        sent = await h.command("new", code="PY1-N-AAAAAAS")
        assert "Nova je partija podijeljena." in sent[0].content
        labels = [c["label"] for row in h.board()["components"] for c in row["components"]]
        assert "Izvuci (23)" in labels and "Poništi" in labels and "Završi" in labels
        assert "R♠" in labels  # the king of spades, as the Croatian text writes it
        sent = await h.command("tap", card="D♠")  # covered queen of spades
        assert sent[-1].content == "Ovu kartu blokira druga karta"
        await h.press(h.board_button("5♥"))
        sent = await h.press(h.board_button("2♣"))
        assert "Zbroj mora biti jednak 13" in sent[-1].content
        sent = await h.press(h.board_button("R♠"))
        assert "Uklonjen je R♠ (+10)." in sent[-1].content
        sent = await h.press(h.board_button("Završi"))
        assert "Partija je završena" in sent[-1].content
        assert [c["label"] for row in h.board()["components"] for c in row["components"]] == [
            "Nova partija",
            "Isto dijeljenje ponovno",
            "Pokaži pobjednički niz",
            "Ponovi moju partiju",
        ]
        from tests.support.deals import kings_and_pairs

        await h.command("new", code=kings_and_pairs().code)
        for name in [
            "R♠",
            "A♠",
            "D♠",
            "2♠",
            "V♠",
            "3♠",
            "10♠",
            "4♠",
            "9♠",
            "5♠",
            "8♠",
            "6♠",
            "7♠",
            "R♥",
            "A♥",
            "D♥",
            "2♥",
            "V♥",
            "3♥",
            "10♥",
            "4♥",
            "9♥",
            "R♦",
            "5♥",
            "8♥",
            "6♥",
            "7♥",
        ]:
            sent = await h.press(h.board_button(name))
        sent = await h.press(h.board_button("R♣"))
        assert "Pobijedili ste! 280 bodova" in sent[-1].content
    finally:
        await h.stop()


async def test_a_croatian_client_sees_the_stuck_message(tmp_path):
    from pyramide import Game
    from tests.support.deals import STUCK_ORDER, stuck_layout

    h = await Harness(str(tmp_path / "hr2.db")).start()
    h.locale = "hr"
    try:
        await h.command("new", code=Game.from_layout(*stuck_layout()).code)
        await h.command("tap", card="R♥")
        cards = stuck_game()
        for index in STUCK_ORDER:
            await h.command("draw")
            await h.command("tap", card="waste")
            sent = await h.command("tap", card=card_name(cards.pyramid[index], "hr"))
        for _ in range(3):
            await h.command("draw")
            sent = await h.command("tap", card="waste")
        text = "\n".join(s.content for s in sent)
        assert "Nema više mogućih poteza" in text
        assert "Ovo se dijeljenje nije moglo dobiti" in text
    finally:
        await h.stop()


async def test_commands_are_synced_with_localised_descriptions_and_option_names(tmp_path):
    h = await Harness(str(tmp_path / "sync.db")).start()
    try:
        tree = h.bot.tree
        payloads = [await c.get_translated_payload(tree, tree.translator) for c in tree.get_commands()]
        group = next(p for p in payloads if p["name"] == "pyramide")
        assert group["description_localizations"]["hr"] == "Igrajte pasijans Piramida"
        new = next(o for o in group["options"] if o["name"] == "new")
        assert new["description_localizations"]["da"] == "Giv et nyt spil i denne kanal"
        code = next(o for o in new["options"] if o["name"] == "code")
        assert code["name_localizations"] == {"hr": "kod", "da": "kode", "ru": "код"}
        passes = next(o for o in new["options"] if o["name"] == "passes")
        assert passes["choices"][1]["name_localizations"]["ru"] == "1 проход"
        daily = next(o for o in group["options"] if o["name"] == "daily")
        assert {o["name"] for o in daily["options"]} == {"play", "leaderboard", "month"}
    finally:
        await h.stop()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_count_is_worded_by_its_cldr_plural_category(lang):
    from pyramide.i18n import plural_categories, plural_category, plural_keys

    assert plural_keys(lang) == plural_keys("en") and len(plural_keys("en")) >= 12
    for key in plural_keys("en"):
        entry = catalogue(lang)[key]
        count = entry["of"]
        assert plural_categories(lang) <= set(entry), f"{lang}:{key} lacks a form Babel uses"
        english = set(re.findall(r"{(\w+)}", catalogue("en")[key]["other"]))
        for n in (0, 1, 2, 5, 21, 22, 25, 111):
            values = dict.fromkeys(english, 3) | {count: n}
            text = t(lang, key, **values)
            assert text == entry[plural_category(lang, n)].format(**values), f"{lang}:{key}:{n}"
            assert str(n) in text


def test_plural_forms_read_right_in_each_language():
    from pyramide.i18n import t as tr

    cases = {
        "en": [(1, "1 card"), (2, "2 cards"), (21, "21 cards")],
        "hr": [(1, "1 karta"), (2, "2 karte"), (5, "5 karata"), (21, "21 karta"), (22, "22 karte"), (25, "25 karata")],
        "da": [(1, "1 kort"), (2, "2 kort")],
        "ru": [(1, "1 карта"), (2, "2 карты"), (5, "5 карт"), (21, "21 карта"), (22, "22 карты"), (25, "25 карт")],
    }
    for lang, expected in cases.items():
        for n, words in expected:
            assert tr(lang, "board.cards", n=n) == words
    assert "1 move," in tr("en", "end.won", score=10, moves=1, time="0:05")
    assert "2 хода" in tr("ru", "end.won", score=10, moves=2, time="0:05")
    assert "1 potez" in tr("hr", "end.ended", score=0, moves=1)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_passes_are_said_one_way_in_options_rules_and_board(lang):
    from pyramide_discord.board import board_labels
    from pyramide_discord.words import rules_words

    for limit, choice in ((0, "one"), (1, "two"), (2, "three")):
        option = t(lang, f"choice.passes.{choice}")
        assert rules_words(Rules(pass_limit=limit), lang) == option  # the option's words are the rules' words
        board = board_labels(lang).passes.format(current=1, total=limit + 1)
        assert str(limit + 1) in option and board.endswith(str(limit + 1))  # "pass 1 of 3" counts passes too


def test_danish_draw_button_and_moves_label_differ():
    assert t("da", "button.draw", n=3).split(" (")[0] != t("da", "board.moves")
