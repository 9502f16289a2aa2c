"""The board picture: pixel checks that fail when the picture is wrong, and reference images."""

import io
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from pyramide import STOCK, Game
from pyramide.labels import Labels
from pyramide.render import CARD_H, CARD_W, HEIGHT, WIDTH, card_position, render_board, render_image
from tests.conftest import EXAMPLE_STOCK, example_game
from tests.deals import clear_kings_and_pairs, kings_and_pairs, play_stuck_line, stuck_game
from tests.reference.positions import POSITIONS

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
    band = (0, 250, 40, 320)
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
    actual = Image.open(io.BytesIO(render_board(POSITIONS[name](), now=1000.0))).convert("RGB")
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
    from pyramide import Rules

    game = example_game(Rules(pass_limit=2))
    image = render_image(game, labels=Labels(passes="проход {current} из {total} очень длинно"))
    assert image.size == (WIDTH, HEIGHT)
    line = (22 + CARD_H + 36, 22 + CARD_H + 62)
    edge = image.crop((0, line[0], 8, line[1])).convert("L")
    text = image.crop((8, line[0], 300, line[1])).convert("L")
    assert edge.getextrema()[1] < 120  # nothing cut off at the left edge
    assert text.getextrema()[1] > 150  # the text is there
