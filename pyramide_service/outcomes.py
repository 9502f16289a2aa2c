"""What a player's press comes to: a small closed set of values, one frozen dataclass each, read with
``match`` by the faces. A refusal is one of these values, never an exception, so a face that forgets a
case is told by the type checker, and no refusal escapes the place that answers (the board's interaction,
the Activity's socket).

``Plays.play`` returns a ``MoveOutcome``, ``Plays.end`` an ``EndOutcome``, ``Plays.hint`` a
``HintOutcome``, ``Plays.give_up`` a ``GiveUpOutcome``; each union is the press's own result and the ones
every press may meet on the way in (``Unplayed``: why the press played nothing, or the board to draw again
instead). A deal's refusals are ``admission``'s."""

from __future__ import annotations

from dataclasses import dataclass

from pyramide.effects import Effect
from pyramide.game import Game
from pyramide.solver import Hint

from .ending import Ending
from .live import Live
from .storage import GuildSettings


@dataclass(frozen=True, slots=True)
class Played:
    """A move applied and stored; ``ending`` when it finished the game."""

    live: Live
    snapshot: Game  # the position to draw, safe while play goes on
    effect: Effect
    settings: GuildSettings  # the settings that rule the game
    ending: Ending | None = None


@dataclass(frozen=True, slots=True)
class Ended:
    """The game ended by its starter or a moderator."""

    live: Live
    ending: Ending


@dataclass(frozen=True, slots=True)
class Hinted:
    """A hint for the position, which is still the board's."""

    live: Live
    snapshot: Game
    hint: Hint
    settings: GuildSettings


@dataclass(frozen=True, slots=True)
class MovedOn:
    """The board moved on while a hint was worked out: the game as it is now (``None``: another game)."""

    live: Live | None = None
    snapshot: Game | None = None


@dataclass(frozen=True, slots=True)
class Redrawn:
    """An older board on the game's own message: to draw again as it is now."""

    live: Live
    snapshot: Game


@dataclass(frozen=True, slots=True)
class ShownFinished:
    """The last message of a finished game pressed: to draw again finished (its first answer may be lost)."""

    live: Live
    snapshot: Game
    ending: Ending


@dataclass(frozen=True, slots=True)
class ClosedAtLoad:
    """A game finished by its last stored move, closed only when loaded again: its ending shown once."""

    live: Live
    snapshot: Game
    ending: Ending


@dataclass(frozen=True, slots=True)
class NoGameHere:
    """No game plays in the channel."""


@dataclass(frozen=True, slots=True)
class Broken:
    """The stored game could not be replayed: it was closed, the channel is free."""


@dataclass(frozen=True, slots=True)
class Stale:
    """A button of another game or message, or a move another process stored first: out of date."""


@dataclass(frozen=True, slots=True)
class NotYours:
    """Another player's game, where only its starter plays."""

    live: Live
    settings: GuildSettings


@dataclass(frozen=True, slots=True)
class MayNotEnd:
    """Neither the game's starter nor a moderator."""

    live: Live


@dataclass(frozen=True, slots=True)
class Busy:
    """The solver has too many questions waiting: nothing was done, asking again later works."""


@dataclass(frozen=True, slots=True)
class GaveUp:
    """A racer's game ended by its player's "Give up" (recorded as ended)."""

    live: Live


@dataclass(frozen=True, slots=True)
class NotARacer:
    """A race's "Give up" pressed by someone who does not race in it."""


@dataclass(frozen=True, slots=True)
class RaceOver:
    """The racer's game is over already (or the race is)."""


# A press that played nothing: why, or the board to draw again instead.
Unplayed = NoGameHere | Broken | Stale | NotYours | Redrawn | ShownFinished | ClosedAtLoad
MoveOutcome = Played | Unplayed
EndOutcome = Ended | MayNotEnd | Unplayed
HintOutcome = Hinted | MovedOn | Busy | Unplayed
GiveUpOutcome = GaveUp | Stale | NotARacer | RaceOver
