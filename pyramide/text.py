"""A plain-text board, for the terminal and for logs."""

from __future__ import annotations

from .game import ROWS, Game, index_of


def board_text(game: Game, *, numbers: bool = True) -> str:
    """The pyramid as rows of cards (``··`` where a card was removed, ``[..]`` for free cards)."""
    lines = []
    width = 5
    for row in range(ROWS):
        cells = []
        for col in range(row + 1):
            i = index_of(row, col)
            card = game.pyramid[i]
            if card is None:
                cell = "·"
            elif game.selected == i:
                cell = f">{card}<"
            elif game.is_free(i):
                cell = f"[{card}]"
            else:
                cell = str(card)
            cells.append(cell.center(width))
        indent = " " * ((ROWS - row - 1) * width // 2)
        label = f"{index_of(row, 0) + 1:>2}-{index_of(row, row) + 1:<2} " if numbers else ""
        lines.append(label + indent + " ".join(cells).rstrip())
    waste = game.waste
    top = f"[{waste[-1]}]" if waste else "—"
    if game.selected == "waste":
        top = f">{waste[-1]}<"
    under = f" (under: {waste[-2]})" if game.rules.draw_with_waste and len(waste) >= 2 else ""
    lines.append("")
    passes = "" if game.rules.pass_limit is None else f"  passes {game.passes}/{game.rules.pass_limit}"
    lines.append(f"stock: {len(game.stock)} cards   waste: {top}{under} ({len(waste)} cards){passes}")
    lines.append(f"score {game.score}   moves {game.moves}   code {game.code}")
    return "\n".join(lines)


__all__ = ["board_text"]
