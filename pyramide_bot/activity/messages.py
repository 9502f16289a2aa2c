"""The one schema of every message the page may send (and of the sign-in's body): each type's fields, their
types, ranges and lengths. Anything else is refused before it reaches the application, so a value of the
wrong type (``pass_limit: true``, ``difficulty: []``, a game id of 2**64) can neither be stored nor raise.

Hand-written over a few dataclasses rather than a JSON Schema library: the bot's own dependencies have none
(``fastjsonschema`` is a test dependency), the schema is a dozen messages, and its values come from the
same table as the slash commands' (``pyramide.limits``), so the page and the commands cannot drift apart.
JSON is read with a nesting bound first, since Python's parser raises ``RecursionError`` past about a
thousand levels."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pyramide.limits import LIMITS, PASSES, Length, OneOf

MAX_ID = 2**63 - 1  # a game's id is a signed 64-bit integer in both databases
MAX_VERSION = 2**31 - 1
MAX_DEPTH = 8  # nesting of a message or a sign-in body (the deepest real one has 2 levels)
# An activity instance's id as Discord gives it: it goes into a bot-token URL, so nothing else is let through
# (a path or a query in it would make the bot call a route the page chose).
INSTANCE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
SPOTS = frozenset({*(str(spot) for spot in range(28)), "waste", "under", "stock"})


@dataclass(frozen=True)
class Int:
    low: int
    high: int

    def ok(self, value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high


@dataclass(frozen=True)
class Flag:
    def ok(self, value: object) -> bool:
        return isinstance(value, bool)


@dataclass(frozen=True)
class Text:
    low: int
    high: int
    pattern: re.Pattern[str] | None = None
    among: frozenset[str] | None = None

    def ok(self, value: object) -> bool:
        return (
            isinstance(value, str)
            and self.low <= len(value) <= self.high
            and (self.pattern is None or self.pattern.fullmatch(value) is not None)
            and (self.among is None or value in self.among)
        )


@dataclass(frozen=True)
class Among:
    values: tuple[object, ...]

    def ok(self, value: object) -> bool:
        # (``True == 1``: a boolean is never taken for a number)
        return not isinstance(value, bool) and any(type(value) is type(v) and value == v for v in self.values)


@dataclass(frozen=True)
class Fields:
    """An object with these fields, none other; those in ``required`` must be there."""

    fields: dict[str, Any]
    required: frozenset[str] = frozenset()

    def ok(self, value: object) -> bool:
        return (
            isinstance(value, dict)
            and self.required <= value.keys()
            and all(key in self.fields and self.fields[key].ok(item) for key, item in value.items())
        )


def _limit(name: str) -> Text | Among:
    limit = LIMITS[name]
    if isinstance(limit, Length):
        return Text(limit.low, limit.high)
    assert isinstance(limit, OneOf)
    return Among(limit.values)


GAME = Int(1, MAX_ID)
VERSION = Int(0, MAX_VERSION)
LOCALE = Text(0, 35)
DEAL = Fields(
    {
        "code": _limit("code"),
        "strict_win": Flag(),
        "draw_with_waste": Flag(),
        "pair_with_cover": Flag(),
        "winnable": Flag(),
        "pass_limit": Among(PASSES.values),
        "difficulty": _limit("difficulty"),
        "again": GAME,
        "same": Flag(),
        "replace": GAME,
    }
)
TYPE = Text(1, 10)
SCHEMA: dict[str, Fields] = {
    "hello": Fields(
        {"t": TYPE, "session": Text(0, 600), "instance": Text(1, 100, INSTANCE_ID), "locale": LOCALE},
        frozenset({"t", "session", "instance"}),
    ),
    "look": Fields({"t": TYPE}),
    "tap": Fields({"t": TYPE, "spot": Text(1, 5, among=SPOTS), "version": VERSION}, frozenset({"spot", "version"})),
    "undo": Fields({"t": TYPE, "version": VERSION}, frozenset({"version"})),
    "hint": Fields({"t": TYPE, "version": VERSION}, frozenset({"version"})),
    "end": Fields({"t": TYPE, "version": VERSION}, frozenset({"version"})),
    "deal": Fields({"t": TYPE, "options": DEAL}, frozenset({"options"})),
    "line": Fields({"t": TYPE, "game": GAME}, frozenset({"game"})),
    "mine": Fields({"t": TYPE, "game": GAME}, frozenset({"game"})),
    # today's daily in the player's seat (activity/daily.py): open it or go back to it, the table, the month
    "daily": Fields({"t": TYPE}),
    "table": Fields({"t": TYPE}),
    "month": Fields({"t": TYPE}),
    "party": Fields({"t": TYPE, "options": DEAL}, frozenset({"options"})),  # a party race (#48)
    "join": Fields({"t": TYPE}),
    "podium": Fields({"t": TYPE}),  # the party's podium picture, for the share-moment dialog
}
SIGN_IN = Fields(
    {"code": Text(1, 200), "instance_id": Text(1, 100, INSTANCE_ID), "locale": LOCALE},
    frozenset({"code", "instance_id"}),
)


class Malformed(ValueError):
    """Not a message of the schema (nothing of it is acted on)."""


def loads(text: str | bytes) -> Any:
    """JSON, refused (``Malformed``) past ``MAX_DEPTH`` levels of nesting before Python's parser recurses."""
    depth = deepest = 0
    quoted = escaped = False
    for char in text if isinstance(text, str) else text.decode("utf-8", "replace"):
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                raise Malformed("nested too deep")
        elif char in "]}":
            depth -= 1
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise Malformed("not JSON") from None


def checked(message: object) -> dict[str, Any]:
    """``message`` if it is one of the page's messages as the schema has it; else ``Malformed``."""
    if not isinstance(message, dict):
        raise Malformed("not an object")
    kind = message.get("t")
    schema = SCHEMA.get(kind) if isinstance(kind, str) else None
    if schema is None or not schema.ok(message):
        raise Malformed(f"not a message of the schema: {str(message.get('t'))[:10]!r}")
    return message


def sign_in(body: object) -> dict[str, Any]:
    if not SIGN_IN.ok(body):
        raise Malformed("not a sign-in")
    assert isinstance(body, dict)
    return body
