"""Players' styles (``pyramide.style``): one row a player who chose one, kept across servers and places.

A player who never chose a style, or went back to the default one, has no row: the default is what no
row means. Forget-me deletes the row (``rights.forget_player``)."""

from __future__ import annotations

from typing import Any

from pyramide.style import DEFAULT, Style, StyleError

from .units import Unit, changed, row

STYLE = "SELECT deck, corners, felt FROM player_styles WHERE player_id = ?"
SET_STYLE = (
    "INSERT INTO player_styles (player_id, deck, corners, felt) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (player_id) DO UPDATE SET deck = excluded.deck, corners = excluded.corners, felt = excluded.felt"
)
DELETE_STYLE = "DELETE FROM player_styles WHERE player_id = ?"


class StyleQueries:
    """The styles' part of ``SQLStorage`` (a backend provides ``_read`` and ``_write``)."""

    async def _read(self, unit: Unit, *, long: bool = False) -> Any:
        raise NotImplementedError

    async def _write(self, unit: Unit, *, long: bool = False, retry: bool = True) -> Any:
        raise NotImplementedError

    async def player_style(self, player_id: int) -> Style:
        """The player's style; the default one when they never chose another (or a stored name is no longer
        a choice: a later version may have dropped it)."""
        found = await self._read(row(STYLE, player_id))
        if not found:
            return DEFAULT
        try:
            return Style.parse(str(found[0]), str(found[1]), str(found[2]))
        except StyleError:
            return DEFAULT

    async def set_player_style(self, player_id: int, style: Style) -> None:
        """Keep the player's style; the default one is kept as no row at all."""
        if style.is_default:
            await self._write(changed(DELETE_STYLE, player_id))
        else:
            await self._write(changed(SET_STYLE, player_id, style.deck.value, style.corners.value, style.table.value))
