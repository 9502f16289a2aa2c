"""The Pyramide cog: the /pyramide commands, the game's buttons and messages, and what they do.

commands.py  the /pyramide command group        buttons.py   the DynamicItem buttons
adapters.py  a press or a command handed over    board.py     the game message posted or updated
turns.py     a press handed to play, its outcome answered
hints.py     the two-phase hint                  dealing.py   new deals, the question, threads
daily.py     the daily challenge                 records.py   statistics, leaderboards, reset
race.py      races and their scoreboards         posting.py   where a new deal's board is posted
home.py      where a game is stored, whose settings
animation.py winning lines and replays           looks.py     a player's style of cards and table
events.py    server events: start, play, end     event_commands.py  their commands, buttons, loop
announcements.py  an event's announcement, results   podium.py  the words of its podium picture

What the board shares with the Activity (the board drawn, the words, the presenter) is pyramide_discord's.
"""

from __future__ import annotations

from pyramide_discord.host import Host

from .commands import Pyramide, PyramideAdmin
from .event_commands import Events


async def setup(bot: Host) -> None:
    await bot.add_cog(Pyramide(bot))
    await bot.add_cog(PyramideAdmin(bot))
    await bot.add_cog(Events(bot))
