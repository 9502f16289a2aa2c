"""What an event's pictures show (the podium of an ended one, the standings table), in a language, and
their alt texts."""

from __future__ import annotations

from datetime import UTC, datetime

from babel.dates import format_date

from pyramide.i18n import t
from pyramide.labels import format_duration
from pyramide.render import PodiumPicture, StandingsPicture
from pyramide_service import EventRecord, EventStanding
from pyramide_service.events import PODIUM

SHOWN = 10  # rows of the standings picture


def _day(timestamp: float, lang: str) -> str:
    return format_date(datetime.fromtimestamp(timestamp, UTC).date(), format="medium", locale=lang)


def podium_picture(event: EventRecord, standings: list[EventStanding], lang: str) -> tuple[PodiumPicture, str]:
    top = standings[:PODIUM]
    dates = t(
        lang,
        "event.podium.dates",
        start=_day(event.created_at, lang),
        end=_day(event.ended_at or event.ends_at, lang),
    )
    places = tuple(
        (s.name or t(lang, "event.a_player"), t(lang, "event.podium.total", removed=s.removed, score=s.score))
        for s in top
    )
    picture = PodiumPicture(
        title=event.name,
        dates=dates,
        places=places,
        empty=t(lang, "event.no_results"),
        footer=t(lang, "event.podium.footer", players=len(standings), deals=len(event.codes)),
    )
    named = "; ".join(
        t(lang, "event.podium.alt_place", place=i + 1, name=n, total=v) for i, (n, v) in enumerate(places)
    )
    alt = t(lang, "event.podium.alt", name=event.name, dates=dates, places=named or picture.empty)
    return picture, alt[:1000]


def standings_picture(event: EventRecord, standings: list[EventStanding], lang: str) -> tuple[StandingsPicture, str]:
    """The standings table (ten rows at most) in ``lang``, and its alt text."""
    dates = t(
        lang,
        "event.podium.dates",
        start=_day(event.created_at, lang),
        end=_day(event.ended_at or event.ends_at, lang),
    )
    state = "event.picture.running" if event.running else "event.picture.final"
    rows = tuple(
        (
            str(place),
            s.name or t(lang, "event.a_player"),
            str(s.removed),
            str(s.score),
            format_duration(s.seconds),
            str(s.hints),
        )
        for place, s in enumerate(standings[:SHOWN], start=1)
    )
    picture = StandingsPicture(
        title=event.name,
        subtitle=t(lang, state, dates=dates),
        heads=tuple(t(lang, f"event.head.{head}") for head in ("player", "cards", "score", "time", "hints")),  # type: ignore[arg-type]
        rows=rows,
        empty=t(lang, "event.no_results"),
    )
    named = "; ".join(
        t(lang, "event.picture.alt_row", place=r[0], name=r[1], removed=r[2], score=r[3], time=r[4], hints=r[5])
        for r in rows
    )
    alt = t(lang, "event.picture.alt", name=event.name, state=picture.subtitle, rows=named or picture.empty)
    return picture, alt[:1000]
