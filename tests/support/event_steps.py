"""A server event's steps through the harness: its deals fixed to the hand-built ones, started by a
moderator, a player's next deal opened, a deal ended (``test_events.py`` and the event tests beside it)."""

from __future__ import annotations

import pytest

from cogs.pyramide import announcements, events
from pyramide import Game
from tests.support.deals import kings_and_pairs, stuck_game, two_pass
from tests.support.harness import (
    ADMIN,
    GUILD_ID,
    MANAGE_GUILD,
    PLAIN,
    Harness,
)

MODERATOR = PLAIN | MANAGE_GUILD
DEALS = (kings_and_pairs(), stuck_game(), two_pass())


@pytest.fixture
def fixed_deals(monkeypatch):
    """The event's deals are the hand-built ones (the real search runs in test_a_moderator_starts_an_event)."""

    async def find(solver, rules, count, finder, lang):
        return [Game.from_code(game.code) for game in DEALS[:count]]

    monkeypatch.setattr(events, "find_deals", find)
    monkeypatch.setattr(announcements, "EDIT_SECONDS", 0.0)


async def start_event(h: Harness, name: str = "December Cup", deals: int = 3, duration: str = "2d") -> int:
    sent = await h.command(
        "/pyramide-admin event start", user=ADMIN, permissions=MODERATOR, name=name, deals=deals, duration=duration
    )
    assert "has started" in sent[-1].content, [s.content for s in sent]
    event = (await h.storage.events_of_guild(GUILD_ID))[0]
    return event.id


async def open_deal(h: Harness, user: int) -> int:
    """/pyramide event play: the thread of the player's next deal."""
    threads = len(h.hub.threads)
    sent = await h.command("event play", user=user)
    assert len(h.hub.threads) == threads + 1, [s.content for s in sent]
    return int(h.hub.threads[-1]["id"])


async def end_it(h: Harness, thread: int, user: int) -> None:
    await h.command("end", channel_id=thread, user=user)
