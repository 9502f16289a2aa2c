"""A finished game, for every face: what its board offers (``offers``), whether its deal is known winnable
(``winnable``), and why it may not be played back (``PlaybackRefusal``, asked by ``Admission.may_play_back``).

An event's deal offers neither its winning line, nor a replay, nor the same deal again: its code is revealed
with the event's results. Today's daily deal is played back by nobody until the day is over."""

from __future__ import annotations

from dataclasses import dataclass

from pyramide.solver import Verdict

from .solving import DealVerdict
from .storage import WON, GameRecord


def winnable(record: GameRecord, verdict: DealVerdict | None) -> bool:
    """Whether the deal is known to be winnable from its start: won, or proved by the solver (``verdict``)."""
    return record.status == WON or (verdict is not None and verdict[0] is Verdict.WON)


@dataclass(frozen=True, slots=True)
class Offers:
    """The choices under a finished game besides a new deal."""

    line: bool  # how its deal could have been won: the deal known winnable
    replay: bool  # the game as it was played: some move made
    same_deal: bool  # its cards again
    share: bool  # a counted daily's spoiler-free result
    next_event_deal: bool  # an event's deal: the event's next one


def offers(record: GameRecord, known_winnable: bool) -> Offers:
    """What ``record``'s finished board offers (``known_winnable``: ``winnable`` of its deal)."""
    event = record.event_id is not None
    return Offers(
        line=known_winnable and not event,
        replay=bool(record.actions) and not event,
        same_deal=not event,
        share=record.counted and record.daily is not None,
        next_event_deal=event,
    )


@dataclass(frozen=True, slots=True)
class NotOfHere:
    """No such game in this channel (a board of another place, or gone)."""


@dataclass(frozen=True, slots=True)
class NotFinished:
    """The game is still in play."""


@dataclass(frozen=True, slots=True)
class EventHidden:
    """An event's deal: its code is revealed with the event's results."""


@dataclass(frozen=True, slots=True)
class DailyWaits:
    """Today's daily deal (under any rules): played back once the day is over."""


PlaybackRefusal = NotOfHere | NotFinished | EventHidden | DailyWaits
