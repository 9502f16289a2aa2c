"""The board picture: pixel checks that fail when the picture is wrong, and reference images."""

import io
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from pyramide import STOCK, Game, Rules
from pyramide.labels import Labels
from pyramide.render import (
    BANNER_BOTTOM,
    BANNER_TOP,
    CARD_H,
    CARD_W,
    EDGE,
    FOOTER_BOX,
    FOOTER_Y,
    HEIGHT,
    HINT,
    PALETTE_FILE,
    PILE_TEXT_WIDTH,
    PLAYABLE,
    RAISE,
    RING,
    ROW_STEP,
    SELECT,
    STOCK_BOX,
    STOCK_Y,
    WASTE_BOX,
    WIDTH,
    build_palette,
    cached_pictures,
    card_position,
    clear_caches,
    render_board,
    render_image,
)
from tests.reference.positions import OPTIONS, POSITIONS
from tests.support.deals import (
    EXAMPLE_STOCK,
    clear_kings_and_pairs,
    example_game,
    kings_and_pairs,
    play_stuck_line,
    stuck_game,
)

REFERENCE = Path(__file__).parent / "reference"


def centre(index: int) -> tuple[int, int]:
    x, y = card_position(index)
    return x + CARD_W // 2, y + CARD_H - 30


def brightness(image: Image.Image, box: tuple[int, int, int, int]) -> float:
    return sum(ImageStat.Stat(image.crop(box).convert("L")).mean)


def is_face(rgb: tuple[int, int, int]) -> bool:
    return min(rgb) > 200


def test_output_is_a_png_of_stable_size():
    sizes = set()
    game = example_game()
    for action in [None, 26, 22, 25, STOCK, 21]:
        if action is not None:
            game.tap(action)
        image = Image.open(io.BytesIO(render_board(game)))
        assert image.format == "PNG"
        sizes.add(image.size)
    assert sizes == {(WIDTH, HEIGHT)}


def test_removed_card_leaves_an_empty_place():
    game = example_game()
    before = render_image(game)
    game.tap_card("K♦")  # index 26, bottom row
    after = render_image(game)
    x, y = centre(26)
    # The pip area of K♦ is card face before, table after.
    assert brightness(before, (x - 30, y - 10, x + 30, y + 10)) > 3 * brightness(
        after, (x - 30, y - 10, x + 30, y + 10)
    )
    assert not is_face(after.getpixel((x - 30, y)))


def test_selected_card_is_marked():
    game = example_game()
    plain = render_image(game)
    game.tap(21)
    marked = render_image(game)
    x, y = card_position(21)
    # A gold glow around the card, left of its edge at mid height.
    r, g, b = marked.getpixel((x - 3, y + CARD_H // 2))
    assert r > 180 and g > 120 and b < 100
    assert plain.getpixel((x - 3, y + CARD_H // 2)) != (r, g, b)


def test_covered_card_looks_different_from_a_free_one():
    game = example_game(stock=["6♦", *[c for c in EXAMPLE_STOCK if c != "6♦"]])
    x, y = card_position(15)  # Q♣, under 7♣ and 10♣
    top_strip = (x, y, x + CARD_W, y + 60)
    covered = brightness(render_image(game), top_strip)
    game.tap_card("10♣")
    game.tap_card("3♠")
    assert brightness(render_image(game), top_strip) == pytest.approx(covered, abs=1)  # 7♣ still on it
    game.tap(STOCK)  # 6♦
    game.tap_card("6♦")
    game.tap_card("7♣")
    assert game.is_free(15)
    assert brightness(render_image(game), top_strip) > covered + 15


def test_banner_only_at_the_end():
    band = (0, BANNER_TOP + 10, 40, BANNER_BOTTOM - 10)
    playing = kings_and_pairs()
    assert brightness(render_image(playing), band) > 40
    clear_kings_and_pairs(playing)
    won = render_image(playing, labels=Labels(won="Pobjeda!"))
    assert brightness(won, band) < brightness(render_image(kings_and_pairs()), band) - 20
    stuck = stuck_game()
    play_stuck_line(stuck)
    assert stuck.outcome is not None
    assert brightness(render_image(stuck), band) < 30


def test_labels_change_the_words():
    game = example_game()
    english = render_image(game)
    danish = render_image(game, labels=Labels(score="Point", moves="Træk", cards="{} kort".format))
    diff = ImageChops.difference(english, danish).getbbox()
    assert diff is not None and diff[1] >= 150  # only the texts below the cards changed


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_reference_images(name):
    expected = Image.open(REFERENCE / f"{name}.png").convert("RGB")
    actual = Image.open(io.BytesIO(render_board(POSITIONS[name](), now=1000.0, **OPTIONS.get(name, {})))).convert("RGB")
    assert actual.size == expected.size
    diff = ImageChops.difference(actual, expected).convert("L")
    changed = sum(diff.histogram()[40:])
    assert changed / (WIDTH * HEIGHT) < 0.005, (
        f"{name}: {changed} pixels differ; if the design changed on purpose, run tests/reference/regenerate.py"
    )


def test_reference_images_are_told_apart():
    start = Image.open(REFERENCE / "start.png").convert("L")
    won = Image.open(REFERENCE / "won.png").convert("L")
    assert sum(ImageChops.difference(start, won).histogram()[40:]) > 0.05 * WIDTH * HEIGHT


def test_rendering_in_threads_gives_the_same_bytes():
    games = [Game.from_number(n) for n in range(8)]
    for game in games:
        game.tap(STOCK)
    expected = [render_board(g, now=0) for g in games]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda g: render_board(g, now=0), games * 3)) == expected * 3


def test_show_writes_a_png(tmp_path):
    out = tmp_path / "board.png"
    result = subprocess.run(
        [sys.executable, "-m", "pyramide", "show", "PY1-N-AAAAAAS", "--png", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "PY1-N-AAAAAAS" in result.stdout
    assert Image.open(out).size == (WIDTH, HEIGHT)


def test_card_faces_use_the_rank_letters_of_the_players_language():
    game = example_game()  # K♦ free at index 26, 7♠ free at index 27
    english = render_image(game)
    croatian = render_image(game, labels=Labels(ranks=((11, "V"), (12, "D"), (13, "R"))))

    def corner(image, index):
        x, y = card_position(index)
        return image.crop((x + 4, y + 4, x + 50, y + 50))

    assert ImageChops.difference(corner(english, 26), corner(croatian, 26)).getbbox() is not None  # K -> R
    assert ImageChops.difference(corner(english, 27), corner(croatian, 27)).getbbox() is None  # 7 stays 7


def test_passes_label_stays_on_the_board():
    game = example_game(Rules(pass_limit=2))
    short = render_image(game, labels=Labels(passes="{current}/{total}"))
    long = render_image(game, labels=Labels(passes="проход {current} из {total} очень длинно"))
    assert long.size == (WIDTH, HEIGHT)
    left, top, right, _ = ImageChops.difference(short, long).getbbox()
    assert left >= EDGE  # nothing cut off at the left edge
    assert top > STOCK_Y + CARD_H  # below the stock
    assert right <= EDGE + PILE_TEXT_WIDTH + 2  # shrunk to stay clear of the pyramid
    assert right < card_position(6)[0]  # the leftmost card of row 4 (the first row beside the labels)


def phone(image: Image.Image) -> Image.Image:
    """The board as a phone shows it: 400 px wide."""
    return image.resize((400, round(image.height * 400 / image.width)), Image.Resampling.LANCZOS)


def ring_width(image: Image.Image, y: int, x_from: int, x_to: int, colour: tuple[int, int, int]) -> int:
    """How many pixels of a row, between two x, are close to ``colour``."""
    return sum(
        1
        for x in range(x_from, x_to)
        if max(abs(a - b) for a, b in zip(image.getpixel((x, y)), colour, strict=True)) < 60
    )


def test_selected_and_hinted_cards_are_unmistakable_on_a_phone():
    game = example_game()
    game.tap(21)  # 7♣ selected
    image = render_image(game, highlight={26})  # K♦ hinted
    small = phone(image)
    scale = 400 / WIDTH
    x, y = card_position(21)
    # Left of the raised card, at half its height: a gold band at least 3 phone pixels wide.
    row = round((y - 10 + CARD_H // 2) * scale)
    assert ring_width(small, row, round((x - 12) * scale), round((x + 4) * scale), SELECT) >= 3
    x, y = card_position(26)
    row = round((y + CARD_H // 2) * scale)
    assert ring_width(small, row, round((x - 12) * scale), round((x + 4) * scale), HINT) >= 3
    # Nothing of those colours where no card is marked.
    x, y = card_position(24)
    assert ring_width(small, round((y + CARD_H // 2) * scale), round((x - 12) * scale), round(x * scale), HINT) == 0


def test_stock_and_waste_are_labelled():
    game = example_game()
    plain = render_image(game, labels=Labels(stock="", waste=""))
    named = render_image(game, labels=Labels(stock="Kup", waste="Odbačene"))
    left, right = (0, 0, WIDTH // 4, HEIGHT), (3 * WIDTH // 4, 0, WIDTH, HEIGHT)
    for side in (left, right):
        diff = ImageChops.difference(plain.crop(side), named.crop(side))
        box = diff.getbbox()
        assert box is not None and STOCK_Y + CARD_H < box[1] < box[3] < STOCK_Y + CARD_H + 30  # right under the pile


def strip(image: Image.Image, index: int) -> Image.Image:
    x, y = card_position(index)
    return image.crop((x + 4, y + 4, x + CARD_W - 4, y + ROW_STEP - 4))


def test_cards_playable_under_the_card_with_cover_rule_look_different():
    default, covered = example_game(), example_game(Rules(pair_with_cover=True))
    for game in (default, covered):
        game.tap_card("10♣")
        game.tap_card("3♠")  # Q♣ (15) is now covered by 7♣ alone, which is free
    assert 15 in covered.selectable_spots() and not covered.is_free(15)
    blocked = strip(render_image(default), 15)
    playable = strip(render_image(covered), 15)
    free = strip(render_image(covered), 21)  # 7♣
    assert brightness(playable, (0, 0, *playable.size)) > brightness(blocked, (0, 0, *blocked.size)) + 30
    greens = [ring_width(image, 0, 0, image.width, PLAYABLE) for image in (playable, blocked, free)]
    assert greens[0] > 40 and greens[1] == 0 and greens[2] == 0
    # A card still covered by two stays blocked under the same rule.
    assert strip(render_image(covered), 10).tobytes() == strip(render_image(default), 10).tobytes()


def footer_boxes(image: Image.Image, blank: Image.Image) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The boxes of the statistics (drawn on both) and of the deal code (drawn only on ``image``)."""
    band = (0, FOOTER_Y, WIDTH, HEIGHT)
    code = ImageChops.difference(image.crop(band), blank.crop(band)).getbbox()
    stats = blank.crop(band).convert("L").point(lambda v: 255 if v > 90 else 0).getbbox()
    assert code is not None and stats is not None
    return stats, code


@pytest.mark.parametrize("code", ["PY1-SP9WC-AAAAAD3", "PY1-P2WC-BBPI6IZ3LS4KBVQIIHU3ZINVOQ7KTA6BNOEBWANJFWD2A2E"])
def test_long_croatian_footer_never_runs_into_the_deal_code(code):
    game = example_game(Rules(strict_win=True, pass_limit=2, draw_with_waste=True, pair_with_cover=True))
    game.started_at = 0.0
    labels = Labels(score="Bodovi", moves="Potezi", time="Vrijeme")
    for _ in range(150):  # three-digit moves
        game.tap(STOCK) if game.stock or game.can_turn else game.undo()
    assert game.moves >= 100
    image = render_image(game, labels=labels, now=3725.0, code=code)
    blank = render_image(game, labels=labels, now=3725.0, code=" " * len(code))
    stats, deal = footer_boxes(image, blank)
    assert stats[2] + 10 <= deal[0]  # a clear gap between them
    assert deal[2] <= WIDTH - EDGE and stats[0] >= EDGE


def test_the_shipped_palette_is_the_one_the_sprites_need():
    assert PALETTE_FILE.read_bytes() == build_palette(), "run tests/reference/regenerate.py after a design change"


def test_a_busy_board_is_small_enough_to_post_quickly():
    game = example_game(Rules(pass_limit=2))
    game.started_at = 0.0
    game.tap(21)
    png = render_board(game, highlight={STOCK}, now=4000.0)
    assert len(png) <= 30 * 1024


def test_the_pile_and_footer_regions_never_touch_the_pyramid():
    """The piles and the footer are drawn once per look and pasted whole: that is only right while no
    card of the pyramid, raised or ringed, reaches into their regions."""
    for index in range(28):
        x, y = card_position(index)
        card = (x - RING, y - RAISE - RING, x + CARD_W + RING, y + CARD_H + RING)
        for box in (STOCK_BOX, WASTE_BOX, FOOTER_BOX):
            apart = card[2] <= box[0] or box[2] <= card[0] or card[3] <= box[1] or box[3] <= card[1]
            assert apart, (index, box)


def test_a_cached_region_is_the_same_picture_as_a_fresh_one():
    game = example_game(Rules(pass_limit=2, draw_with_waste=True))
    game.tap(STOCK)
    game.tap(STOCK)
    clear_caches()  # drawn from scratch, whatever other tests drew before
    fresh = render_image(game, highlight={STOCK, "under"}, now=30.0)
    kept = cached_pictures()
    assert kept > 0
    cached = render_image(game, highlight={STOCK, "under"}, now=30.0)
    assert cached_pictures() == kept  # drawn from what the first one kept
    assert ImageChops.difference(fresh, cached).getbbox() is None
    other = render_image(game, highlight={STOCK}, now=30.0)  # the under card no longer ringed: a new region
    assert ImageChops.difference(fresh, other).getbbox() is not None
