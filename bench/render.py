"""Render boards; print the render time per PNG (median, p99), its size, and the ratio to the reference
of issue #16: Pillow's default RGB PNG encode of the same picture at the size boards had before (920×668),
measured in the same run, alternating with the renders.

Two runs: "cold", every board a different random mid-game position (nothing cached but the sprites and
words), and "presses", the boards of games played press by press as a channel sees them (a tap that
selects, a pair, a draw: the pyramid layer is reused while only the piles change).

Then the same boards in every other style of a player (deck × corners × table, pyramide.style), each board
drawn in that style and in the default one (whose boards are today's byte for byte), in turn first, so
that the machine's load falls on both alike: the median and p99 of each style, and its median against the
default style's; and what a style costs once per process (its sprites and faces).

Usage: .venv/bin/python bench/render.py [N] [--styles-only]   (default 600)
"""

from __future__ import annotations

import io
import itertools
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image

from pyramide import STOCK, Game
from pyramide.render import clear_caches, faces_for, render_board, render_image, sprites
from pyramide.style import DEFAULT, Corners, Deck, Felt, Style

OLD_SIZE = (920, 668)


def random_position(rng: random.Random) -> Game:
    game = Game.from_number(rng.randrange(2**35))
    game.started_at = time.time() - rng.randrange(30, 900)
    for _ in range(rng.randrange(0, 80)):
        if game.outcome:
            break
        moves = game.legal_moves()
        removals = [m for m in moves if m.kind in ("pair", "king")]
        game.play(rng.choice(removals) if removals and rng.random() < 0.7 else moves[-1])
    spots = game.selectable_spots()
    if spots and not game.outcome and rng.random() < 0.5:
        game.tap(rng.choice(spots))
    return game


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def pressed_boards(rng: random.Random, count: int) -> list[tuple[Game, set]]:
    """Copies of the positions after each press of games played with taps as a player makes them."""
    boards: list[tuple[Game, set]] = []
    while len(boards) < count:
        game = Game.from_number(rng.randrange(2**35))
        game.started_at = time.time() - rng.randrange(0, 60)
        while not game.outcome and len(boards) < count:
            moves = game.legal_moves()
            removals = [m for m in moves if m.kind in ("pair", "king")]
            move = rng.choice(removals) if removals and rng.random() < 0.8 else moves[-1]
            if move.kind == "pair":
                game.tap(move.spots[0])
                boards.append((game.copy(), set()))
                game.tap(move.spots[1])
            else:
                game.play(move)
            boards.append((game.copy(), set()))
    return boards


def measure(name: str, boards: list[tuple[Game, set]]) -> None:
    renders, references, sizes = [], [], []
    for game, highlight in boards:
        start = time.perf_counter()
        png = render_board(game, highlight=highlight)
        renders.append((time.perf_counter() - start) * 1000)
        sizes.append(len(png))
        old = render_image(game, highlight=highlight).resize(OLD_SIZE, Image.Resampling.BICUBIC)
        start = time.perf_counter()
        old.save(io.BytesIO(), format="PNG")
        references.append((time.perf_counter() - start) * 1000)
    median, reference = statistics.median(renders), statistics.median(references)
    p99 = percentile(renders, 0.99)
    print(
        f"{name}: {len(boards)} boards, render median {median:.2f} ms, p99 {p99:.2f} ms "
        f"(p99/median {p99 / median:.2f}), max {max(renders):.2f} ms; "
        f"median PNG {statistics.median(sizes) / 1024:.1f} KB, largest {max(sizes) / 1024:.1f} KB; "
        f"reference encode median {reference:.2f} ms; render/reference = {median / reference:.3f} (target <= 0.12)"
    )


def measure_styles(name: str, boards: list[tuple[Game, set]], styles: list[Style], words: list[Game]) -> None:
    """Each style beside the default one: every board drawn in both, in turn first (a board in twelve
    styles at once would measure the processor's caches, not the style). Wall-clock time, and the process's
    CPU time, which a busy shared machine disturbs less."""
    for style in styles:
        # Both start alike: nothing kept but the words of the language, drawn for both on other positions (a
        # board's deal code is a run of text of its own: boards already drawn in the default style would
        # otherwise find theirs kept, and the style's first boards would measure FreeType).
        clear_caches()
        for game in words:
            render_board(game, style=DEFAULT)
            render_board(game, style=style)
        wall: dict[Style, list[float]] = {DEFAULT: [], style: []}
        cpu: dict[Style, list[float]] = {DEFAULT: [], style: []}
        for i, (game, highlight) in enumerate(boards):
            for drawn in (DEFAULT, style) if i % 2 else (style, DEFAULT):
                start, start_cpu = time.perf_counter(), time.process_time()
                render_board(game, highlight=highlight, style=drawn)
                cpu[drawn].append((time.process_time() - start_cpu) * 1000)
                wall[drawn].append((time.perf_counter() - start) * 1000)
        median, base = statistics.median(wall[style]), statistics.median(wall[DEFAULT])
        cpu_median, cpu_base = statistics.median(cpu[style]), statistics.median(cpu[DEFAULT])
        print(
            f"  {name} {style.deck.value:11} {style.corners.value:6} {style.table.value:5}: median {median:.2f} ms "
            f"(default beside it {base:.2f}), p99 {percentile(wall[style], 0.99):.2f} ms, ratio {median / base:.3f}; "
            f"CPU median {cpu_median:.2f} ms (default {cpu_base:.2f}), "
            f"ratio {cpu_median / cpu_base:.3f} (target <= 1.10)"
        )


def main() -> None:
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    count = int(args[0]) if args else 600
    rng = random.Random(7)
    cold = [(game, {STOCK} if game.moves % 5 == 0 else set()) for game in (random_position(rng) for _ in range(count))]
    presses = pressed_boards(rng, count)
    start = time.perf_counter()
    sprites()
    print(f"sprites loaded in {(time.perf_counter() - start) * 1000:.0f} ms (once per process)")
    for game, _ in cold[:50]:  # the words of the language drawn once, as in a running bot
        render_board(game)
    if "--styles-only" not in sys.argv:
        measure("cold", cold[50:])
        measure("presses", presses)
    styles = [Style(d, c, t) for d, c, t in itertools.product(Deck, Corners, Felt)]
    print("each style (once per process: its sprites, then its faces in a language):")
    for style in styles:
        start = time.perf_counter()
        sprites(style)
        loaded = time.perf_counter()
        faces_for((), style)
        done = time.perf_counter()
        if style != DEFAULT:
            print(f"  {style}: sprites {(loaded - start) * 1000:.0f} ms, faces {(done - loaded) * 1000:.0f} ms")
    other = random.Random(11)
    words = [random_position(other) for _ in range(100)]
    measure_styles("cold", cold[50:], styles[1:], words)
    measure_styles("presses", presses, styles[1:], words)


if __name__ == "__main__":
    main()
