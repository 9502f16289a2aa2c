"""Today's daily in the Activity: the player's one counted attempt, the same deal and rules as
``/pyramide daily play``, opened through the application's one call ``TodaysDaily.open`` (the database's one attempt a
player and a day, across every server and place) in the player's daily seat of the instance
(``pyramide_service.seats``), where the page plays it while the others see only how far it is.

- ``daily``: opens the attempt in the seat, or takes the page back to it (from any instance: an attempt in
  play in a seat is played on wherever its player opens the Activity); a finished attempt, or one open on
  the board, is refused with the board's words.
- ``table``: back to the channel's own game.
- ``month``: ``/pyramide daily month``'s picture, sent to the page as a PNG (``t: month``).

A page that reconnects is back at its channel's table (the seat is kept on the open socket only); a tap
on "daily" again takes it back to the attempt. The code stays hidden until the attempt is finished (the
board's no-peeking rules), and a seat's board is the page: nothing is posted in Discord.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

from pyramide.daily import today
from pyramide.i18n import t
from pyramide_discord.daily_words import already_words, month_png
from pyramide_discord.host import Host
from pyramide_service.opening import AttemptTaken, Here, Opened, Player, SeatBoard
from pyramide_service.seats import DAILY, Seat, is_seat
from pyramide_service.solving import SolverBusy

from .presses import Reply
from .viewers import Viewer, Viewers

KINDS = frozenset({"daily", "table", "month"})


class PageDaily:
    def __init__(self, bot: Host, viewers: Viewers) -> None:
        self.bot, self.viewers = bot, viewers

    async def act(self, viewer: Viewer, kind: str, lang: str) -> Reply:
        if kind == "table":
            self.viewers.sit(viewer, viewer.home)
            return Reply()
        if kind == "month":
            return await self._month(viewer, lang)
        if kind == "daily":
            return await self._daily(viewer, lang)
        return Reply([t(lang, "effect.nothing_to_do")])  # (a deal asked from a seat: the page offers none)

    async def _daily(self, viewer: Viewer, lang: str) -> Reply:
        bot, session = self.bot, viewer.session
        now = datetime.fromtimestamp(bot.clock(), UTC)
        day = bot.todays_daily.today()
        seat = Seat.daily(viewer.home, session.user_id, day.number)
        player = Player(session.user_id, session.name, session.guild_id, lang)
        try:
            opened = await bot.todays_daily.open(day, SeatBoard(), Here(seat.id), player)
        except SolverBusy:  # (today's deal worked out for it: nothing was dealt)
            return Reply([t(lang, "error.solver_busy")])
        match opened:
            case Opened():
                self.viewers.sit(viewer, seat.id, seat.kind)
                return Reply([t(lang, "daily.title", number=day.number)])
            case AttemptTaken(attempt) if attempt.status is None and is_seat(attempt.channel_id):
                self.viewers.sit(viewer, attempt.channel_id, DAILY)  # back to the attempt in play
                return Reply([t(lang, "daily.title", number=day.number)])
            case AttemptTaken(attempt):  # finished, or in play on the board
                return Reply([await already_words(bot.manager, bot.solver, attempt, lang, now, None)])
            case _:  # (Occupied: the seat holds a game already, which only its own attempt may)
                return Reply([t(lang, "error.stale_board")], stale=True)

    async def _month(self, viewer: Viewer, lang: str) -> Reply:
        day = today(datetime.fromtimestamp(self.bot.clock(), UTC))
        png, alt = await month_png(self.bot.daily_attempts, viewer.session.user_id, lang, day)
        picture = "data:image/png;base64," + base64.b64encode(png).decode()
        self.viewers.post(viewer, json.dumps({"t": "month", "png": picture, "alt": alt}, ensure_ascii=False))
        return Reply()
