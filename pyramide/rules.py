"""Rule options and their short token in deal codes."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace


class InvalidRules(ValueError):
    """A rules token that does not describe a rule set."""


# Players use one, two or three passes (the rule texts' classic and "soft" games); ten passes (P9) is
# already more than anyone plays, and a larger limit only makes the limited-passes search slower.
MAX_PASS_LIMIT = 9


class TooManyPasses(InvalidRules):
    """A pass limit above ``MAX_PASS_LIMIT``."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule options of RULES.md. ``Rules()`` is the default rule set, token ``N``.

    - ``strict_win``: the stock and the waste must be cleared too, not only the pyramid.
    - ``pass_limit``: how many times the waste may be turned back into the stock;
      ``None`` is unlimited (default), ``0`` is one pass through the stock only,
      ``2`` is the "soft" three-pass game.
    - ``draw_with_waste``: the top waste card may pair with the waste card right under it
      (the card it was drawn onto). That card is the spot ``"under"`` of ``Game.tap``.
    - ``pair_with_cover``: a card may pair with the only card that still covers it.
    """

    strict_win: bool = False
    pass_limit: int | None = None
    draw_with_waste: bool = False
    pair_with_cover: bool = False

    def __post_init__(self) -> None:
        if self.pass_limit is not None and not 0 <= self.pass_limit <= MAX_PASS_LIMIT:
            raise TooManyPasses(f"pass limit must be 0-{MAX_PASS_LIMIT} or unlimited, not {self.pass_limit}")

    @property
    def token(self) -> str:
        """Canonical token: ``N`` for the defaults, else the letters S, P<n>, W, C in that order."""
        parts = []
        if self.strict_win:
            parts.append("S")
        if self.pass_limit is not None:
            parts.append(f"P{self.pass_limit}")
        if self.draw_with_waste:
            parts.append("W")
        if self.pair_with_cover:
            parts.append("C")
        return "".join(parts) or "N"

    def with_options(self, **options: object) -> Rules:
        """These rules with some options changed, e.g. ``Rules().with_options(pass_limit=2)``."""
        return replace(self, **options)  # type: ignore[arg-type]

    @property
    def is_default(self) -> bool:
        return self == Rules()

    @classmethod
    def from_token(cls, token: str) -> Rules:
        text = token.strip().upper()
        if text == "N":
            return cls()
        if not text:
            raise InvalidRules("the rules token is empty (the default rules are 'N')")
        fields: dict[str, object] = {}
        for match in re.finditer(r"P(\d+)|[SWC]|(.)", text):
            if match.group(2) is not None:
                raise InvalidRules(
                    f"bad rules token {token!r}: {match.group(2)!r} is not a rule letter (N, or S, P<number>, W, C)"
                )
            letter = match.group(0)[0]
            name = {"S": "strict_win", "P": "pass_limit", "W": "draw_with_waste", "C": "pair_with_cover"}[letter]
            if name in fields:
                raise InvalidRules(f"bad rules token {token!r}: {letter!r} appears twice")
            if letter == "P" and int(match.group(1)) > MAX_PASS_LIMIT:
                raise TooManyPasses(
                    f"bad rules token {token!r}: at most P{MAX_PASS_LIMIT} ({MAX_PASS_LIMIT + 1} passes)"
                )
            fields[name] = int(match.group(1)) if letter == "P" else True
        return cls(**fields)  # type: ignore[arg-type]
