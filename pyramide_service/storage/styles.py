"""Players' styles (``pyramide.style``): one row a player who chose one, kept across servers and places.

A player who never chose a style, or went back to the default one, has no row: the default is what no
row means. Forget-me deletes the row (``rights.forget_player``)."""

from __future__ import annotations

from pyramide.style import DEFAULT, Style, StyleError

from .units import Backend, Tx, read, write

STYLE = "SELECT deck, corners, felt FROM player_styles WHERE player_id = ?"
SET_STYLE = (
    "INSERT INTO player_styles (player_id, deck, corners, felt) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (player_id) DO UPDATE SET deck = excluded.deck, corners = excluded.corners, felt = excluded.felt"
)
DELETE_STYLE = "DELETE FROM player_styles WHERE player_id = ?"


class StyleQueries(Backend):
    """The styles' part of ``Storage``."""

    @read()
    async def player_style(self, db: Tx, player_id: int) -> Style:
        """The player's style; the default one when they never chose another (or a stored name is no longer
        a choice: a later version may have dropped it)."""
        found = await db.row(STYLE, player_id)
        if not found:
            return DEFAULT
        try:
            return Style.parse(str(found[0]), str(found[1]), str(found[2]))
        except StyleError:
            return DEFAULT

    @write()
    async def set_player_style(self, db: Tx, player_id: int, style: Style) -> None:
        """Keep the player's style; the default one is kept as no row at all."""
        if style.is_default:
            await db.execute(DELETE_STYLE, player_id)
        else:
            await db.execute(SET_STYLE, player_id, style.deck.value, style.corners.value, style.table.value)
