"""``python -m pyramide play [CODE]``, ``python -m pyramide show CODE [--png FILE]`` and
``python -m pyramide rate CODE``."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from .codes import InvalidCode
from .game import STOCK, Game
from .i18n import describe, t
from .text import board_text

HELP = (
    "Type a position (1-28), a card name (10C, QS, K♦), 'w' for the waste top, "
    "'d' to draw or turn the waste back, 'u' to undo, 'q' to quit."
)


def play(game: Game, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    print(HELP, file=stdout)
    print(board_text(game), file=stdout)
    while game.outcome is None:
        print("> ", end="", file=stdout, flush=True)
        line = stdin.readline()
        if not line:
            return 0
        text = line.strip()
        if not text:
            continue
        low = text.lower()
        if low in ("q", "quit", "exit"):
            return 0
        if low in ("d", "draw", "s", "stock"):
            event = game.tap(STOCK)
        elif low in ("u", "undo"):
            event = game.undo()
        elif low in ("w", "waste"):
            event = game.tap("waste")
        elif low.isdigit():
            number = int(low)
            if not 1 <= number <= 28:
                print("positions are 1-28", file=stdout)
                continue
            event = game.tap(number - 1)
        else:
            event = game.tap_card(text)
        print(describe(event, "en", error_help=True), file=stdout)
        print(board_text(game), file=stdout)
    if game.outcome.value == "won":
        print(t("en", "board.won") + f" {game.score} / {game.moves}", file=stdout)
    else:
        print(t("en", "end.stuck"), file=stdout)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pyramide", description="Pyramid solitaire in the terminal")
    sub = parser.add_subparsers(dest="command", required=True)
    play_parser = sub.add_parser("play", help="play a game (a random deal, or the deal of CODE)")
    play_parser.add_argument("code", nargs="?")
    show_parser = sub.add_parser("show", help="print the deal of CODE")
    show_parser.add_argument("code")
    show_parser.add_argument("--png", metavar="FILE", help="also write the board picture to FILE")
    rate_parser = sub.add_parser("rate", help="solve the deal of CODE and, when it can be won, rate its difficulty")
    rate_parser.add_argument("code")
    args = parser.parse_args(argv)
    try:
        game = Game.from_code(args.code) if args.code else Game.new()
    except InvalidCode as error:
        print(f"invalid deal code: {error}", file=sys.stderr)
        return 2
    if args.command == "play":
        return play(game)
    if args.command == "rate":
        return rate_command(game)
    print(board_text(game))
    print("stock (draw order): " + " ".join(map(str, game.stock)))
    if args.png:
        from .render import render_board

        with open(args.png, "wb") as out:
            out.write(render_board(game))
        print(f"wrote {args.png}")
    return 0


def rate_command(game: Game, stdout: TextIO = sys.stdout) -> int:
    """The verdict on a line of its own, then, for a winnable deal, ``difficulty <tier> <score>`` (the
    score, 0-100, grows with difficulty; "unrated" stands for the tier under rules without thresholds)."""
    from .difficulty import rate
    from .solver import solve

    verdict = solve(game).verdict
    print(f"verdict {verdict}", file=stdout)
    if verdict.value == "won":
        rating = rate(game)
        print(f"difficulty {rating.tier or 'unrated'} {rating.score:g}", file=stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
