"""The options' limits as the command declarations give them to Discord, read from ``pyramide.limits``
(the table the application's checks read too): choices with their translated labels, ranges, lengths."""

from __future__ import annotations

from discord.app_commands import Choice

from pyramide.limits import LIMITS, Length, OneOf, Span

from ..common import text


def choices_of(option: str) -> list[Choice[str | int | float]]:
    limit = LIMITS[option]
    assert isinstance(limit, OneOf), option
    return [Choice(name=text(label), value=value) for value, label in limit.choices]


def span(option: str) -> Span:
    limit = LIMITS[option]
    assert isinstance(limit, Span), option
    return limit


def length(option: str) -> Length:
    limit = LIMITS[option]
    assert isinstance(limit, Length), option
    return limit


CODE, CARD, EVENT = length("code"), length("card"), length("event")
NAME, DURATION = length("name"), length("duration")
IDLE_MINUTES, DEALS = span("idle_minutes"), span("deals")
