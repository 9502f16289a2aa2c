"""The reference images of the styles: the mid-game position (a card selected, a hint on the stock) in
every deck × corners × table."""

from __future__ import annotations

import itertools
from typing import Any

from pyramide import STOCK
from pyramide.style import Corners, Deck, Felt, Style

STYLES: dict[str, Style] = {
    f"style_{deck.value}_{corners.value}_{table.value}": Style(deck, corners, table)
    for deck, corners, table in itertools.product(Deck, Corners, Felt)
}

# A selected card and a hinted stock: the outlines must read in every style.
OPTIONS: dict[str, Any] = {"highlight": {STOCK}, "now": 1000.0}
