"""The limits of every value a slash command takes, one table for two readers: the command declarations
(``app_commands.Range``, ``choices``, ``max_length`` in the cogs) and the application's checks
(``pyramide_service.inputs``). Discord's clients enforce the declarations, but a modified client, a
command cached from an older release or a change on Discord's side can send anything; the checks read the
same table, so what is declared and what is enforced cannot drift apart.

Keys are the options' parameter names (each name means the same thing in every command that has it).
Choices carry the translation key of their label, so a refusal can list what is allowed in the player's
language.
"""

from __future__ import annotations

from dataclasses import dataclass

from .difficulty import TIERS
from .style import choices as style_choices


@dataclass(frozen=True, slots=True)
class Span:
    """A whole number from ``low`` to ``high``, both included."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Length:
    """Text of ``low`` to ``high`` characters."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class OneOf:
    """One of the ``choices``: (value, translation key of its label)."""

    choices: tuple[tuple[int | str, str], ...]

    @property
    def values(self) -> tuple[int | str, ...]:
        return tuple(value for value, _ in self.choices)


Limit = Span | Length | OneOf


def _labelled(prefix: str, *values: str) -> OneOf:
    return OneOf(tuple((value, f"{prefix}.{value}") for value in values))


# The pass limit as /pyramide new offers it: -1 is unlimited, n is n + 1 passes through the stock.
PASSES = OneOf(
    (
        (-1, "choice.passes.unlimited"),
        (0, "choice.passes.one"),
        (1, "choice.passes.two"),
        (2, "choice.passes.three"),
    )
)
DEALS = Span(1, 10)  # an event's deals (each one searched for by the solver before the event starts)
HOURS = Span(1, 14 * 24)  # an event's duration, once its text is read
EVENT_NAME = Length(1, 60)  # it goes into titles, thread names and a picture

LIMITS: dict[str, Limit] = {
    # deals and their rules
    "code": Length(1, 100),  # a code is at most 57 characters (PY1-SP9WC- and a 47-character layout)
    "passes": PASSES,
    "difficulty": _labelled("choice.tier", *(str(tier) for tier in TIERS)),
    "card": Length(1, 40),
    # records
    "period": _labelled("choice.period", "today", "week", "all"),
    "rules": _labelled("choice.rules", "N", "P0", "P2", "S", "W", "C"),
    "month": _labelled("choice.month", "this", "last"),
    # server settings
    "who_can_play": _labelled("choice.who", "owner", "anyone"),
    "idle_minutes": Span(1, 24 * 60),
    # events
    "name": EVENT_NAME,
    "deals": DEALS,
    "duration": Length(1, 20),  # "36h", "3d", "2d12h", or hours
    "event": Length(1, 20),  # an event's id, as its autocomplete gives it
    # a player's style
    "deck": _labelled("choice.deck", *style_choices("deck")),
    "corners": _labelled("choice.corners", *style_choices("corners")),
    "table": _labelled("choice.table", *style_choices("table")),
}
