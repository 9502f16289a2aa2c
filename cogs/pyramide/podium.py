"""What an ended event's podium picture shows, in the event's language, and its alt text."""

from __future__ import annotations

from datetime import UTC, datetime

from babel.dates import format_date

from pyramide.i18n import t
from pyramide.render import PodiumPicture
from pyramide.storage import EventRecord, EventStanding
from pyramide.tournament import PODIUM


def _day(timestamp: float, lang: str) -> str:
    return format_date(datetime.fromtimestamp(timestamp, UTC).date(), format="medium", locale=lang)


def podium_picture(event: EventRecord, standings: list[EventStanding], lang: str) -> tuple[PodiumPicture, str]:
    top = standings[:PODIUM]
    dates = t(
        lang,
        "contest.podium.dates",
        start=_day(event.created_at, lang),
        end=_day(event.ended_at or event.ends_at, lang),
    )
    places = tuple(
        (s.name or str(s.player_id), t(lang, "contest.podium.total", removed=s.removed, score=s.score)) for s in top
    )
    picture = PodiumPicture(
        title=event.name,
        dates=dates,
        places=places,
        empty=t(lang, "contest.no_results"),
        footer=t(lang, "contest.podium.footer", players=len(standings), deals=len(event.codes)),
    )
    named = "; ".join(
        t(lang, "contest.podium.alt_place", place=i + 1, name=n, total=v) for i, (n, v) in enumerate(places)
    )
    alt = t(lang, "contest.podium.alt", name=event.name, dates=dates, places=named or picture.empty)
    return picture, alt[:1000]
