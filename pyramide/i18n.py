"""Translations: one JSON catalogue per language in pyramide/locales/.

A missing key falls back to English (tests report any missing key). Card names
follow each language's way of writing ranks (Croatian and Danish play with
R/D/V for king, queen and jack, as the rule texts do; Russian with К/Д/В/Т).
"""

from __future__ import annotations

import json
import logging
from functools import cache
from pathlib import Path

from . import events as ev
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
    """The message ``key`` in ``language``, formatted with ``values``."""
    text = catalogue(language).get(key) if language in LANGUAGES else None
    if not isinstance(text, str):
        if language != DEFAULT:
            log.warning("missing translation %s for %s", key, language)
        text = catalogue(DEFAULT).get(key)
        if not isinstance(text, str):
            raise KeyError(key)
    return text.format(**values) if values else text


def has(language: str, key: str) -> bool:
    return isinstance(catalogue(language).get(key), str)


def keys(language: str = DEFAULT) -> set[str]:
    return {k for k, v in catalogue(language).items() if isinstance(v, str)}


def _ranks(language: str) -> dict[int, str]:
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


def describe(event: ev.Event, lang: str, error_help: bool) -> str:
    """An engine event in the player's words (error messages only with ``error_help``)."""
    match event:
        case ev.Selected(card=card):
            return t(lang, "event.selected", card=card_name(card, lang))
        case ev.Deselected(card=card):
            return t(lang, "event.deselected", card=card_name(card, lang))
        case ev.PairRemoved(cards=(first, second), points=points):
            return t(
                lang, "event.pair_removed", first=card_name(first, lang), second=card_name(second, lang), points=points
            )
        case ev.KingRemoved(card=card, points=points):
            return t(lang, "event.king_removed", card=card_name(card, lang), points=points)
        case ev.Blocked():
            return t(lang, "event.blocked") if error_help else ""
        case ev.SumNot13():
            return t(lang, "event.sum") if error_help else ""
        case ev.Drew(card=card):
            return t(lang, "event.drew", card=card_name(card, lang))
        case ev.TurnedBack(count=count):
            return t(lang, "event.turned_back", count=count)
        case ev.NoPassesLeft():
            return t(lang, "event.no_passes_left")
        case ev.GameOver():
            return t(lang, "event.game_over")
        case ev.NotInPlay(card=card, removed=removed):
            return t(lang, "event.not_in_play_removed" if removed else "event.not_in_play", card=card_name(card, lang))
        case ev.UnknownCard(text=typed):
            return t(lang, "event.unknown_card", text=typed if len(typed) <= 40 else typed[:40] + "…")
        case ev.Undone(points=points):
            return t(lang, "event.undone_points", points=points) if points else t(lang, "event.undone")
        case ev.NothingToUndo():
            return t(lang, "event.nothing_to_undo")
    return t(lang, "event.nothing_to_do")
