"""The Pyramide cog: the /pyramide commands, the game's buttons and messages, and what they do.

commands.py  the /pyramide command group        buttons.py  the DynamicItem buttons
flows.py     what a press or a command does      board.py    the game message (picture, buttons)
daily.py     the daily challenge                 records.py  statistics, leaderboards, reset
words.py     what players read about a game
"""

from __future__ import annotations

from ..common import Host
from .commands import Pyramide, PyramideAdmin


async def setup(bot: Host) -> None:
    await bot.add_cog(Pyramide(bot))
    await bot.add_cog(PyramideAdmin(bot))
