"""Translations: one JSON catalogue per language in pyramide/locales/.

A missing key falls back to English (tests report any missing key). Card names
follow each language's way of writing ranks (Croatian and Danish play with
R/D/V for king, queen and jack, as the rule texts do; Russian with К/Д/В/Т).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import date
from functools import cache
from pathlib import Path

from babel import Locale
from babel.dates import format_date

from . import effects as ev
from .cards import RANK_NAMES, Card, InvalidCard

LANGUAGES = ("en", "hr", "da", "ru")
DEFAULT = "en"
LOCALES = Path(__file__).resolve().parent / "locales"
log = logging.getLogger(__name__)


@cache
def catalogue(language: str) -> dict[str, object]:
    with (LOCALES / f"{language}.json").open(encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise ValueError(f"catalogue {language} is not a JSON object")
    return data


def language_for(locale: str | None, guild_locale: str | None = None) -> str:
    """The player's language: their client's locale when supported, else the server's, else English."""
    for candidate in (locale, guild_locale):
        if candidate:
            base = str(candidate).split("-")[0].lower()
            if base in LANGUAGES:
                return base
    return DEFAULT


def t(language: str, key: str, **values: object) -> str:
    """The message ``key`` in ``language``, formatted with ``values``.

    A message about a count is a set of plural forms, ``{"of": "moves", "one": ..., "few": ...,
    "other": ...}``: the form is chosen by the CLDR plural category (Babel) of the value named by "of"."""
    language = language if language in LANGUAGES else DEFAULT
    entry = catalogue(language).get(key)
    if not isinstance(entry, str | dict):
        if language != DEFAULT:
            log.warning("missing translation %s for %s", key, language)
        entry = catalogue(DEFAULT).get(key)
        if not isinstance(entry, str | dict):
            raise KeyError(key)
        language = DEFAULT
    text = entry if isinstance(entry, str) else _form(language, entry, values)
    return text.format(**values) if values else text


def plural_category(language: str, count: int) -> str:
    """CLDR's plural category of ``count`` in ``language``: one, few, many or other (Babel)."""
    return str(_locale(language).plural_form(count))


def plural_categories(language: str) -> frozenset[str]:
    """The categories whole numbers fall into in ``language``."""
    return frozenset(plural_category(language, n) for n in range(0, 200))


@cache
def _locale(language: str) -> Locale:
    return Locale.parse(language)


def _form(language: str, entry: dict[str, object], values: dict[str, object]) -> str:
    count = values.get(str(entry["of"]))
    if not isinstance(count, int):
        raise TypeError(f"a plural message needs the count {entry['of']!r}")
    text = entry.get(plural_category(language, count), entry.get("other"))
    if not isinstance(text, str):
        raise KeyError(f"no form for {count} in {language}")
    return text


def has(language: str, key: str) -> bool:
    return isinstance(catalogue(language).get(key), str | dict)


def keys(language: str = DEFAULT) -> set[str]:
    """The keys of plain messages (see ``plural_keys`` for messages about a count)."""
    return {k for k, v in catalogue(language).items() if isinstance(v, str)}


def plural_keys(language: str = DEFAULT) -> set[str]:
    return {k for k, v in catalogue(language).items() if isinstance(v, dict) and "of" in v}


@cache
def _ranks(language: str) -> dict[int, str]:
    """Rank letters of a language (the catalogues never change in a running process)."""
    ranks = catalogue(language).get("ranks", {})
    assert isinstance(ranks, dict)
    return {int(k): str(v) for k, v in ranks.items()}


def rank_letters(language: str) -> tuple[tuple[int, str], ...]:
    """The ranks a language writes differently from English, as (rank, letter) pairs."""
    return tuple(sorted((rank, name) for rank, name in _ranks(language).items() if name != RANK_NAMES[rank - 1]))


def card_name(card: Card, language: str) -> str:
    """``Q♣`` in English, ``D♣`` in Croatian and Danish, ``Д♣`` in Russian."""
    rank = _ranks(language).get(card.rank, card.rank_name)
    return rank + card.suit_symbol


def card_spoken(card: Card, language: str) -> str:
    """The card as a screen reader should say it: "seven of clubs", "tref sedmica", "klør syv", "семёрка треф"."""
    ranks = t(language, "card.spoken_ranks").split(",")
    suits = t(language, "card.spoken_suits").split(",")
    return t(language, "card.spoken", rank=ranks[card.rank - 1], suit=suits[card.suit])


def parse_card(text: str, language: str) -> Card:
    """Read a card name in the player's language, or in English."""
    cleaned = text.strip()
    for rank, name in sorted(_ranks(language).items(), key=lambda item: -len(item[1])):
        if cleaned.upper().startswith(name.upper()) and len(cleaned) > len(name):
            try:
                return Card.parse(RANK_NAMES[rank - 1] + cleaned[len(name) :])
            except InvalidCard:
                break
    return Card.parse(cleaned)


def month_name(language: str, year: int, month: int) -> str:
    """ "November 2026" in the player's language (the stand-alone month name, capitalised)."""
    text = format_date(date(year, month, 1), "LLLL y", locale=_locale(language))
    return text[:1].upper() + text[1:]


def weekday_names(language: str) -> tuple[str, ...]:
    """The days of the week from Monday, abbreviated as a calendar heads them ("Mo", "пн")."""
    names = _locale(language).days["stand-alone"]["short"]
    return tuple(str(names[day])[:1].upper() + str(names[day])[1:] for day in range(7))


def day_text(language: str, day: date, length: str = "medium") -> str:
    """A date as the language writes it ("1 Dec 2026", "1. pro 2026."), ``length`` a CLDR format name."""
    return str(format_date(day, length, locale=_locale(language)))


def short_day(language: str, day: date) -> str:
    """A day of the month and its month, no year ("1 Dec", "1. pro")."""
    return str(format_date(day, "d MMM", locale=_locale(language)))


def describe(event: ev.Effect, lang: str, error_help: bool, name: Callable[[Card, str], str] = card_name) -> str:
    """An engine event in the player's words (error messages only with ``error_help``), its cards written
    by ``name`` (``card_spoken`` for words a screen reader speaks)."""
    match event:
        case ev.Selected(card=card):
            return t(lang, "effect.selected", card=name(card, lang))
        case ev.Deselected(card=card):
            return t(lang, "effect.deselected", card=name(card, lang))
        case ev.PairRemoved(cards=(first, second), points=points):
            return t(lang, "effect.pair_removed", first=name(first, lang), second=name(second, lang), points=points)
        case ev.KingRemoved(card=card, points=points):
            return t(lang, "effect.king_removed", card=name(card, lang), points=points)
        case ev.Blocked():
            return t(lang, "effect.blocked") if error_help else ""
        case ev.SumNot13():
            return t(lang, "effect.sum") if error_help else ""
        case ev.Drew(card=card):
            return t(lang, "effect.drew", card=name(card, lang))
        case ev.TurnedBack(count=count):
            return t(lang, "effect.turned_back", count=count)
        case ev.NoPassesLeft():
            return t(lang, "effect.no_passes_left")
        case ev.GameOver():
            return t(lang, "effect.game_over")
        case ev.NotInPlay(card=card, removed=removed):
            key = "effect.not_in_play_removed" if removed else "effect.not_in_play"
            return t(lang, key, card=name(card, lang))
        case ev.UnknownCard(text=typed):
            return t(lang, "effect.unknown_card", text=typed if len(typed) <= 40 else typed[:40] + "…")
        case ev.Undone(points=points):
            return t(lang, "effect.undone_points", points=points) if points else t(lang, "effect.undone")
        case ev.NothingToUndo():
            return t(lang, "effect.nothing_to_undo")
        case ev.ActionLimit(limit=limit):
            return t(lang, "effect.action_limit", limit=limit)
    return t(lang, "effect.nothing_to_do")
