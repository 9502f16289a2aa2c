"""The achievements: a catalogue of predicates over a player's finished games, computed as a fold.

Every finished game of a player, in the order it is credited, updates a small ``Progress`` (wins so far,
the current run of wins, races won, the recent days of dailies...) and then each achievement not yet
unlocked is checked against that progress and the game just credited. So the unlock in the transaction
that finishes a game costs O(1) (one progress row read and written), and crediting a long history that
predates the feature is one pass over it, in chunks (``pyramide_service.storage.achievements``).

Some achievements are not predicates over games but are *awarded* by the unit that decides them (a
perfect loss, once the solver's verdict on the deal is known; an event's podium, in the transaction that
decides its standings): such entries have no predicate (the catalogue is a constant: whatever awards one
is listed in it).

Decisions where the issue is silent (docs/achievements.md repeats them):
- A time is "under 3 minutes" only when strictly below 180 s: exactly 3:00 is not.
- A game "with an undo" is one whose log holds an undo, even if the same move was made again after it.
- A hint counts when it was asked, whether or not the player followed it.
- Dailies "in a row" are UTC days with a counted daily finished (won or not), as the day streak of
  ``/pyramide stats``; a month is "won" when every one of its days has a won counted daily.
- A game's difficulty is known for the dailies (the week's schedule) and for deals the finishing process
  rated (dealt by difficulty); a history from before the upgrade counts its expert dailies only.
- A run of wins is over the games in the order they are credited (across servers and places).

Pure: the standard library and ``pyramide.rules`` only.
"""

from __future__ import annotations

import json
from calendar import monthrange
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from enum import StrEnum

from .rules import InvalidRules, Rules

WON = "won"
UNDER_3_MINUTES = 180.0
UNDER_90_SECONDS = 90.0
KEPT_DAYS = 31  # recent days of dailies kept: enough for a run of 30 and any calendar month
KEPT_WON_DAYS = 62  # recent won dailies kept: two calendar months


class Group(StrEnum):
    VOLUME = "volume"
    SKILL = "skill"
    HABIT = "habit"
    SOCIAL = "social"


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What the catalogue reads of one finished game."""

    game_id: int
    status: str
    rules: str  # the rules token (``N``, ``S``, ``SP0``...)
    seconds: float | None
    hints: int
    undone: bool  # the log holds an undo
    daily: str | None  # the UTC day of a counted daily attempt, else None
    finished_at: float
    race_won: bool = False
    tier: str | None = None  # the deal's difficulty when known (a daily's scheduled tier)

    @property
    def won(self) -> bool:
        return self.status == WON

    @property
    def parsed_rules(self) -> Rules:
        try:
            return Rules.from_token(self.rules)
        except InvalidRules:
            return Rules()


@dataclass(slots=True)
class Progress:
    """A player's running totals over the games credited so far (stored as JSON, a few hundred bytes)."""

    played: int = 0
    wins: int = 0
    run: int = 0  # wins in a row, up to the last game credited
    race_wins: int = 0
    days: list[str] = field(default_factory=list)  # recent UTC days with a finished counted daily, sorted
    won_days: list[str] = field(default_factory=list)  # recent UTC days with a won counted daily, sorted
    unlocked: set[str] = field(default_factory=set)

    def to_json(self) -> str:
        return json.dumps(
            {
                "played": self.played,
                "wins": self.wins,
                "run": self.run,
                "race_wins": self.race_wins,
                "days": self.days,
                "won_days": self.won_days,
                "unlocked": sorted(self.unlocked),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | None) -> Progress:
        if not text:
            return cls()
        data = json.loads(text)
        return cls(
            played=int(data.get("played", 0)),
            wins=int(data.get("wins", 0)),
            run=int(data.get("run", 0)),
            race_wins=int(data.get("race_wins", 0)),
            days=[str(d) for d in data.get("days", [])],
            won_days=[str(d) for d in data.get("won_days", [])],
            unlocked={str(k) for k in data.get("unlocked", [])},
        )

    def add(self, facts: GameFacts) -> None:
        """Count one finished game."""
        self.played += 1
        if facts.won:
            self.wins += 1
            self.run += 1
        else:
            self.run = 0
        if facts.race_won:
            self.race_wins += 1
        if facts.daily is not None:
            self.days = _keep(self.days, facts.daily, KEPT_DAYS)
            if facts.won:
                self.won_days = _keep(self.won_days, facts.daily, KEPT_WON_DAYS)

    def days_in_a_row(self, day: str) -> int:
        """The length of the run of consecutive days with a daily that holds ``day``."""
        kept = set(self.days)
        if day not in kept:
            return 0
        start = date.fromisoformat(day)
        run = 1
        for step in (-1, 1):
            other = start + timedelta(days=step)
            while other.isoformat() in kept:
                run += 1
                other += timedelta(days=step)
        return run

    def month_won(self, day: str) -> bool:
        """Whether every day of ``day``'s calendar month has a won daily."""
        first = date.fromisoformat(day).replace(day=1)
        length = monthrange(first.year, first.month)[1]
        won = set(self.won_days)
        return all((first + timedelta(days=i)).isoformat() in won for i in range(length))


def _keep(days: list[str], day: str, limit: int) -> list[str]:
    if day in days:
        return days
    return sorted([*days, day])[-limit:]


Predicate = Callable[[Progress, GameFacts], bool]


@dataclass(frozen=True, slots=True)
class Achievement:
    """One achievement: its key (stored, and the stem of its words ``achievement.<key>.name`` and
    ``.description`` in every language), its group, and either a predicate checked after each credited
    game or ``None`` for one awarded by the unit that decides it."""

    key: str
    group: Group
    predicate: Predicate | None = None

    @property
    def awarded(self) -> bool:
        return self.predicate is None


def _won(check: Callable[[GameFacts], bool]) -> Predicate:
    return lambda progress, facts: facts.won and check(facts)


def _rules(check: Callable[[Rules], bool]) -> Predicate:
    return _won(lambda facts: check(facts.parsed_rules))


def _under(seconds: float) -> Predicate:
    return _won(lambda facts: facts.seconds is not None and facts.seconds < seconds)


def _row(days: int) -> Predicate:
    return lambda progress, facts: facts.daily is not None and progress.days_in_a_row(facts.daily) >= days


PERFECT_LOSS = "perfect_loss"
EVENT_WON, EVENT_PODIUM = "event_won", "event_podium"  # awarded by the end of a server event

CATALOGUE: tuple[Achievement, ...] = (
    # volume
    Achievement("first_win", Group.VOLUME, lambda p, f: p.wins >= 1),
    Achievement("wins_10", Group.VOLUME, lambda p, f: p.wins >= 10),
    Achievement("wins_100", Group.VOLUME, lambda p, f: p.wins >= 100),
    Achievement("wins_500", Group.VOLUME, lambda p, f: p.wins >= 500),
    Achievement("played_100", Group.VOLUME, lambda p, f: p.played >= 100),
    # skill
    Achievement("no_undo", Group.SKILL, _won(lambda f: not f.undone)),
    Achievement("no_hints", Group.SKILL, _won(lambda f: f.hints == 0)),
    Achievement("clean_win", Group.SKILL, _won(lambda f: not f.undone and f.hints == 0)),
    Achievement("strict_win", Group.SKILL, _rules(lambda r: r.strict_win)),
    Achievement("one_pass_win", Group.SKILL, _rules(lambda r: r.pass_limit == 0)),
    Achievement("strict_one_pass_win", Group.SKILL, _rules(lambda r: r.strict_win and r.pass_limit == 0)),
    Achievement("under_3_minutes", Group.SKILL, _under(UNDER_3_MINUTES)),
    Achievement("under_90_seconds", Group.SKILL, _under(UNDER_90_SECONDS)),
    Achievement("expert_win", Group.SKILL, _won(lambda f: f.tier == "expert")),
    Achievement("win_run_5", Group.SKILL, lambda p, f: p.run >= 5),
    Achievement("win_run_10", Group.SKILL, lambda p, f: p.run >= 10),
    Achievement(PERFECT_LOSS, Group.SKILL),  # awarded once the solver's verdict is known (perfect_loss())
    # habit
    Achievement("daily_won", Group.HABIT, lambda p, f: f.daily is not None and f.won),
    Achievement("daily_7_days", Group.HABIT, _row(7)),
    Achievement("daily_30_days", Group.HABIT, _row(30)),
    Achievement("daily_month", Group.HABIT, lambda p, f: f.daily is not None and f.won and p.month_won(f.daily)),
    # social
    Achievement("race_won", Group.SOCIAL, lambda p, f: p.race_wins >= 1),
    Achievement("races_10", Group.SOCIAL, lambda p, f: p.race_wins >= 10),
    Achievement(EVENT_PODIUM, Group.SOCIAL),  # awarded when an event ends (pyramide_service.storage.events.end_event)
    Achievement(EVENT_WON, Group.SOCIAL),
)
BY_KEY: dict[str, Achievement] = {a.key: a for a in CATALOGUE}


def credit(progress: Progress, facts: GameFacts) -> list[str]:
    """Count ``facts`` into ``progress`` and return the keys it unlocks (in catalogue order), marking them
    unlocked in ``progress``."""
    progress.add(facts)
    unlocked = [
        a.key
        for a in CATALOGUE
        if a.predicate is not None and a.key not in progress.unlocked and a.predicate(progress, facts)
    ]
    progress.unlocked.update(unlocked)
    return unlocked


def credit_all(progress: Progress, games: Iterable[GameFacts]) -> list[tuple[str, GameFacts]]:
    """Credit a history in order: each key it unlocks with the game that unlocked it."""
    return [(key, facts) for facts in games for key in credit(progress, facts)]


def perfect_loss(status: str, verdict_impossible: bool, most: int | None, removed: int) -> bool:
    """A deal the solver proved unwinnable, played to the most cards it says can be removed."""
    played = status not in (WON, "broken")  # a broken game was never played to its end
    return played and verdict_impossible and most is not None and removed >= most


def keys() -> list[str]:
    return [a.key for a in CATALOGUE]
