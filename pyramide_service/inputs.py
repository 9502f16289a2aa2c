"""A command's values as the application takes them: each checked against its limit in ``pyramide.limits``
before anything is looked up, searched for or stored (so no work is ever sized by an unchecked number).
A value outside its limit raises ``OutOfLimits``, which names the option and the limit; the Discord layer
turns it into words in the player's language and changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyramide import Game, InvalidCode, Rules
from pyramide.difficulty import Tier
from pyramide.limits import HOURS, LIMITS, Length, Limit, Span

from .events import parse_duration
from .storage import GuildSettings


class OutOfLimits(ValueError):
    """A command's value outside the limit the command declares for it."""

    def __init__(self, option: str, limit: Limit) -> None:
        super().__init__(f"{option} is outside its limit {limit}")
        self.option, self.limit = option, limit


def within(limit: Limit, value: object) -> bool:
    if isinstance(limit, Span):
        return type(value) is int and limit.low <= value <= limit.high
    if isinstance(limit, Length):
        return isinstance(value, str) and limit.low <= len(value) <= limit.high
    # bool is an int to Python, never a choice; a choice's type must match too ("1" is not 1)
    return type(value) in (int, str) and any(type(value) is type(v) and value == v for v in limit.values)


def check(option: str, value: Any) -> Any:
    """``value`` if it is within the limit of ``option``, else ``OutOfLimits``; ``None`` (not given) passes."""
    limit = LIMITS[option]
    if value is not None and not within(limit, value):
        raise OutOfLimits(option, limit)
    return value


def checked(**values: Any) -> None:
    """Every value given, each against the limit of its option name."""
    for option, value in values.items():
        check(option, value)


def rule_options(
    strict: bool | None, passes: int | None, draw_with_waste: bool | None, card_with_cover: bool | None
) -> dict[str, Any]:
    """The rule options a command was given (``None``: not given), as ``Rules.with_options`` takes them."""
    check("passes", passes)
    given: dict[str, Any] = {
        "strict_win": strict,
        "pass_limit": passes,
        "draw_with_waste": draw_with_waste,
        "pair_with_cover": card_with_cover,
    }
    return given


def rules_of(given: dict[str, Any]) -> dict[str, Any]:
    """The rule options given (``None``: not given; a pass limit below 0: unlimited), as ``with_options``
    takes them. Raises ``TooManyPasses`` for a pass limit above the rules' (a page's unchecked value)."""
    chosen = {name: value for name, value in given.items() if value is not None}
    if chosen.get("pass_limit", 0) < 0:
        chosen["pass_limit"] = None
    Rules().with_options(**chosen)  # (checked before any use)
    return chosen


@dataclass(frozen=True, slots=True)
class FreeDeal:
    """A free deal as asked, under ``rules``: the deal of a code (``game``), or one to find, of a difficulty
    (``tier``) or proved winnable (``winnable``), or else a random one."""

    rules: Rules
    game: Game | None = None
    tier: Tier | None = None
    winnable: bool = False


@dataclass(frozen=True, slots=True)
class BadCode:
    """A code that names no deal: ``code`` as given (its first 60 characters), and why."""

    code: str
    error: InvalidCode


@dataclass(frozen=True, slots=True)
class DifficultyExcludes:
    """A difficulty is a deal the solver finds under the default rules: not with a code (``code``), nor
    with other rules."""

    code: bool


FreeDealChoice = FreeDeal | BadCode | DifficultyExcludes


def free_deal(given: dict[str, Any], code: str | None, tier: Tier | None, winnable: bool) -> FreeDealChoice:
    """What ``/pyramide new``'s options (and the page's, the same) ask for, or why they cannot: ``given``
    the rule options (``rule_options``), applied to a code's own rules too. Raises ``TooManyPasses`` as
    ``rules_of`` does."""
    options = rules_of(given)
    rules = Rules().with_options(**options)
    code = (code or "").strip()
    if tier is not None and (code or not rules.is_default):
        return DifficultyExcludes(bool(code))
    if code:
        try:
            base = Game.from_code(code[:200])
        except InvalidCode as error:
            return BadCode(code[:60], error)
        played = base.rules.with_options(**options)
        return FreeDeal(played, Game(base.deal, played))
    return FreeDeal(rules, tier=tier, winnable=winnable or tier is not None)


def tier(difficulty: str | None) -> Tier | None:
    return Tier(check("difficulty", difficulty)) if difficulty is not None else None


def settings_update(
    current: GuildSettings,
    *,
    error_help: bool | None = None,
    who_can_play: str | None = None,
    idle_minutes: int | None = None,
    new_in_thread: bool | None = None,
) -> GuildSettings:
    """A server's settings with the values given changed (each checked first)."""
    checked(who_can_play=who_can_play, idle_minutes=idle_minutes)
    return GuildSettings(
        error_help=current.error_help if error_help is None else error_help,
        anyone_can_play=current.anyone_can_play if who_can_play is None else who_can_play == "anyone",
        idle_minutes=current.idle_minutes if idle_minutes is None else idle_minutes,
        new_in_thread=current.new_in_thread if new_in_thread is None else new_in_thread,
    )


def valid_settings(settings: GuildSettings) -> GuildSettings:
    """Settings about to be stored, whoever made them."""
    check("idle_minutes", settings.idle_minutes)
    return settings


def event_terms(name: str, deals: int, duration: str) -> float:
    """An event's name, deal count and duration checked; its duration in hours."""
    checked(name=name, deals=deals, duration=duration)
    hours = parse_duration(duration)
    if hours is None:
        raise OutOfLimits("duration", HOURS)
    return hours
