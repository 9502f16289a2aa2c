"""Seats (``pyramide_service.seats``): a player's own place in an Activity instance's channel, on both
databases. A seat's game is opened, played and finished through the application's own calls (open_deal,
the manager's turns) with no board posted anywhere, counted in the instance's server; two players' seats in
one channel and the channel's own game stay apart."""

import pytest

from pyramide import Game
from pyramide_service.manager import GameManager
from pyramide_service.opening import Deal, Dealt, Here, Opened, open_deal
from pyramide_service.seats import Seat, is_seat, seat_id
from pyramide_service.storage import PLAYING, WON
from tests.support.deals import clear_kings_and_pairs_taps, kings_and_pairs
from tests.support.manager_turns import play

pytestmark = pytest.mark.backends("sqlite", "postgresql")
DAY = "2026-12-02"
GUILD, CHANNEL = 7, 1_234_567_890_123_456_789  # a real snowflake's size
PLAYER, OTHER, STARTER = 11, 12, 13


class NoBoards:
    """A surface that must never be asked to post: a seat's board is the page."""

    posted: list[Dealt]

    def __init__(self) -> None:
        self.posted = []

    async def make_thread(self, owner_id: int) -> int | None:
        raise AssertionError("a seat needs no thread")

    async def post(self, dealt: Dealt) -> int:
        self.posted.append(dealt)
        return 4242

    def may_have_shown(self, error: BaseException) -> bool:
        return False

    async def remove_thread(self, channel_id: int) -> None:
        return None


def test_a_seat_is_named_the_same_everywhere_and_never_as_a_discord_channel():
    seat = Seat.daily(CHANNEL, PLAYER)
    assert seat.id == Seat.daily(CHANNEL, PLAYER).id == seat_id(CHANNEL, PLAYER, "daily")
    assert is_seat(seat.id) and not is_seat(CHANNEL) and not is_seat(0)
    assert -(2**63) < seat.id < 0
    others = {
        Seat.daily(CHANNEL, OTHER).id,
        Seat.daily(CHANNEL + 1, PLAYER).id,
        Seat.party(CHANNEL, PLAYER, 1).id,
        Seat.party(CHANNEL, PLAYER, 2).id,
    }
    assert len(others) == 4 and seat.id not in others
    assert Seat.party(CHANNEL, PLAYER, 2).is_party and seat.is_daily and seat.channel_id == CHANNEL
    with pytest.raises(ValueError):
        seat_id(CHANNEL, PLAYER, "solo")  # type: ignore[arg-type]


async def test_seat_games_are_played_apart_posted_nowhere_and_counted_in_the_instances_server(storage):
    manager, boards = GameManager(storage), NoBoards()
    channel_game = await open_deal(manager, boards, Deal(Game.new(), GUILD, STARTER, "S", "en"), Here(CHANNEL))
    assert isinstance(channel_game, Opened) and len(boards.posted) == 1  # (the channel's own board is posted)
    mine, theirs = Seat.daily(CHANNEL, PLAYER), Seat.daily(CHANNEL, OTHER)
    opened = {}
    for seat in (mine, theirs):
        deal = Deal(kings_and_pairs(), GUILD, seat.player_id, f"P{seat.player_id}", "en", daily=DAY)
        opened[seat] = await open_deal(manager, boards, deal, Here(seat.id))
        assert isinstance(opened[seat], Opened) and opened[seat].message_id == 0
    assert len(boards.posted) == 1  # no seat's board was posted
    for spot in clear_kings_and_pairs_taps():
        await play(manager, mine.id, lambda game, spot=spot: game.tap(spot))
    record = await storage.game(opened[mine].dealt.live.record.id)
    assert record.status == WON and record.channel_id == mine.id and record.message_id is None
    assert record.guild_id == GUILD
    attempt = await storage.daily_attempt(DAY, PLAYER)
    assert attempt.status == WON and attempt.channel_id == mine.id
    assert [row.status for row in await storage.results(GUILD, PLAYER)] == [WON]
    assert [row.player_id for row in await storage.daily_rows(DAY, GUILD)] == [PLAYER]
    # The other player's seat and the channel's own game did not move.
    other = await manager.snapshot(theirs.id)
    assert other is not None and other.record.owner_id == OTHER and other.game.moves == 0
    assert (await storage.daily_attempt(DAY, OTHER)).status is None
    table = await manager.snapshot(CHANNEL)
    assert table is not None and table.record.id == channel_game.dealt.live.record.id
    assert table.record.status == PLAYING and table.game.moves == 0
