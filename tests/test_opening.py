"""Opening a deal without Discord: ``pyramide_service.opening`` through a surface of its own (boards kept
in memory, as a web page would keep them), on a real SQLite file. What the cogs do on top of it is
tested through discord.py in test_daily, test_events, test_race and test_flow."""

import logging
from datetime import UTC, datetime

import pytest

from pyramide import Game
from pyramide_service.admission import Admission, AskFirst, PromptUsed, Replacing
from pyramide_service.changes import Change, Changes, GameChanged
from pyramide_service.dailies import DailyAttempts, DailyDeals
from pyramide_service.daily_open import TodaysDaily
from pyramide_service.events import Events
from pyramide_service.manager import GameManager
from pyramide_service.opening import (
    AttemptTaken,
    Deal,
    Dealt,
    Here,
    InThread,
    NoThread,
    NotPosted,
    Occupied,
    Opened,
    Player,
    RaceOpened,
    open_deal,
    open_free_deal,
    open_race,
)
from pyramide_service.server_settings import ServerSettings
from pyramide_service.storage import ENDED, PLAYING
from tests.support.deals import kings_and_pairs

DAY = "2026-12-02"
PLAYER, OTHER = 11, 12
CHANNEL = 500


class Surface:
    """Boards and threads kept in memory; ``threads`` how many threads it may still make, ``failing``
    what its next post raises, ``lost`` whether such a failure may have shown the board after all."""

    def __init__(self, *, threads: int = 10, failing: BaseException | None = None, lost: bool = False) -> None:
        self.room = threads
        self.failing = failing
        self.lost = lost
        self.threads: list[int] = []
        self.removed: list[int] = []
        self.boards: dict[int, Dealt] = {}
        self.scoreboards: dict[int, int] = {}

    async def make_thread(self, owner_id: int) -> int | None:
        if self.room == 0:
            return None
        self.room -= 1
        self.threads.append(9000 + len(self.threads))
        return self.threads[-1]

    async def post(self, dealt: Dealt) -> int:
        if self.failing is not None:
            raise self.failing
        message_id = 100 + len(self.boards) + len(self.scoreboards)
        self.boards[message_id] = dealt
        return message_id

    def may_have_shown(self, error: BaseException) -> bool:
        return self.lost

    async def remove_thread(self, channel_id: int) -> None:
        self.removed.append(channel_id)

    async def post_scoreboard(self, race_id: int) -> int:
        message_id = 100 + len(self.boards) + len(self.scoreboards)
        self.scoreboards[message_id] = race_id
        return message_id

    async def remove_message(self, message_id: int) -> None:
        self.scoreboards.pop(message_id, None)


def admission_of(manager: GameManager) -> Admission:
    """The application's rules of a free deal over ``manager``'s storage (no solver: no deal is today's)."""
    storage = manager.storage
    dailies = DailyDeals(None, manager.clock)  # type: ignore[arg-type]
    dailies.codes[datetime.fromtimestamp(manager.clock(), UTC).date()] = kings_and_pairs().code
    events = Events(storage, Changes(storage, manager))
    return Admission(manager, ServerSettings(storage), dailies, DailyAttempts(storage), events)


def unheard(manager: GameManager) -> Changes:
    """The one subscription, with no one listening (what is told is not this test's concern)."""
    return Changes(manager.storage, manager)


def daily(player: int = PLAYER) -> Deal:
    return Deal(kings_and_pairs(), 1, player, f"Player {player}", "en", daily=DAY)


async def test_a_deal_opened_in_a_thread_of_its_own_is_stored_with_its_board(storage):
    manager, surface = GameManager(storage), Surface()
    opened = await open_deal(manager, surface, daily(), InThread(), changes=unheard(manager))
    assert isinstance(opened, Opened) and opened.dealt.in_thread
    record = await storage.game(opened.dealt.live.record.id)
    assert record.channel_id == surface.threads[0] and record.message_id == opened.message_id
    assert surface.boards[opened.message_id].live.record.id == record.id
    assert (await storage.daily_attempt(DAY, PLAYER)).game_id == record.id


async def test_a_refused_board_takes_the_attempt_and_its_thread_back(storage):
    manager, surface = GameManager(storage), Surface(failing=PermissionError("refused"))
    opened = await open_deal(manager, surface, daily(), InThread(), changes=unheard(manager))
    assert isinstance(opened, NotPosted) and not opened.kept and isinstance(opened.error, PermissionError)
    assert surface.removed == surface.threads and manager.peek(surface.threads[0]) is None
    assert await storage.daily_attempt(DAY, PLAYER) is None  # nothing counted
    surface.failing = None
    assert isinstance(
        await open_deal(manager, surface, daily(), InThread(), changes=unheard(manager)), Opened
    )  # and it opens again


async def test_an_attempt_whose_board_may_have_been_shown_keeps_it_and_is_refused_a_second_time(storage):
    manager, surface = GameManager(storage), Surface(failing=TimeoutError(), lost=True)
    opened = await open_deal(manager, surface, daily(), InThread(), changes=unheard(manager))
    assert isinstance(opened, NotPosted) and opened.kept and surface.removed == []
    assert (await storage.daily_attempt(DAY, PLAYER)).game_id == opened.dealt.live.record.id
    surface.failing = None
    taken = await open_deal(
        manager, surface, daily(), InThread(), changes=unheard(manager)
    )  # the database's one attempt a day
    assert isinstance(taken, AttemptTaken) and taken.attempt.game_id == opened.dealt.live.record.id
    assert surface.removed == [surface.threads[1]]  # the second thread made for it went


async def test_a_free_game_whose_post_fails_is_taken_back_even_if_it_may_have_been_shown(storage):
    manager, surface = GameManager(storage), Surface(failing=TimeoutError(), lost=True)
    deal = Deal(kings_and_pairs(), 1, PLAYER, "Player", "en")
    opened = await open_deal(manager, surface, deal, Here(CHANNEL), changes=unheard(manager))
    assert isinstance(opened, NotPosted) and not opened.kept
    assert await storage.live_game(CHANNEL) is None  # the channel is free


async def test_a_take_back_that_fails_is_logged_and_the_failure_raised_on(storage, caplog):
    manager, surface = GameManager(storage), Surface()

    async def fails(*args):
        raise OSError("disk I/O error")

    storage.remember_name = fails
    storage.discard_game = fails
    try:
        with pytest.raises(OSError):
            await open_deal(manager, surface, daily(), InThread(), changes=unheard(manager))
    finally:
        del storage.remember_name, storage.discard_game
    assert surface.removed == surface.threads
    left = [r for r in caplog.records if r.levelno == logging.ERROR and "left with no board" in r.getMessage()]
    assert left and left[0].exc_info is not None


async def test_the_listeners_hear_of_a_deal_and_of_the_game_it_replaced(storage):
    """Told once the channel's lock is let go (an open page then reads the new game): the game a deal ended, then
    the new one; nothing for a busy place, and no new game for one taken back."""
    manager, surface = GameManager(storage), Surface()
    changes = Changes(storage, manager)
    heard: list[tuple[int, bool, str, bool]] = []

    async def hear(change: Change) -> None:
        assert isinstance(change, GameChanged) and change.channel_id == CHANNEL and not manager.busy(CHANNEL)
        heard.append((change.game_id, change.finished, change.status, change.dealt))

    changes.subscribe(hear)
    admission = admission_of(manager)
    free = Deal(Game.from_code("PY1-N-AAAAAAS"), 1, PLAYER, "P", "en")
    first = await open_deal(manager, surface, free, Here(CHANNEL), changes=changes)
    assert isinstance(await open_deal(manager, surface, free, Here(CHANNEL), changes=changes), Occupied)
    assert isinstance(first, Opened)
    replace = Replacing(PLAYER, replace=first.dealt.live.record.id)
    second = await open_free_deal(admission, surface, free, Here(CHANNEL), replace, changes=changes)
    surface.failing = PermissionError("refused")
    assert isinstance(second, Opened)
    replace = Replacing(PLAYER, replace=second.dealt.live.record.id)
    failed = await open_free_deal(admission, surface, free, Here(CHANNEL), replace, changes=changes)
    assert isinstance(failed, NotPosted)
    assert isinstance(first, Opened) and isinstance(second, Opened)
    first_id, second_id = first.dealt.live.record.id, second.dealt.live.record.id
    assert heard == [
        (first_id, False, PLAYING, True),
        (first_id, True, ENDED, False),
        (second_id, False, PLAYING, True),
        (second_id, True, ENDED, False),  # the new deal was taken back: the channel is free
    ]


async def test_a_place_with_a_game_in_play_is_occupied_and_a_free_deal_asks_first(storage):
    manager, surface = GameManager(storage), Surface()
    free = Deal(Game.from_code("PY1-N-AAAAAAS"), 1, PLAYER, "P", "en")
    first = await open_deal(manager, surface, free, Here(CHANNEL), changes=unheard(manager))
    assert isinstance(first, Opened)
    assert isinstance(await open_deal(manager, surface, daily(), Here(CHANNEL), changes=unheard(manager)), Occupied)
    assert await storage.daily_attempt(DAY, PLAYER) is None
    # A free deal over it: the player is asked first (its starter may end it), and nothing is dealt meanwhile.
    asked = await open_free_deal(
        admission_of(manager), surface, free, Here(CHANNEL), Replacing(PLAYER), changes=unheard(manager)
    )
    assert isinstance(asked, AskFirst) and asked.allowed and not asked.abandons
    assert asked.running.record.id == first.dealt.live.record.id
    # A question about another game (one no longer running) is used up.
    another = Replacing(PLAYER, replace=first.dealt.live.record.id + 1)
    used = await open_free_deal(admission_of(manager), surface, free, Here(CHANNEL), another, changes=unheard(manager))
    assert isinstance(used, PromptUsed)
    assert (await storage.live_game(CHANNEL)).id == first.dealt.live.record.id


async def test_a_race_whose_second_thread_cannot_be_made_leaves_nothing(storage):
    manager, surface = GameManager(storage), Surface(threads=1)
    deals = [Deal(kings_and_pairs(), 1, player, "P", "en") for player in (PLAYER, OTHER)]
    assert isinstance(await open_race(manager, surface, deals, CHANNEL, changes=unheard(manager)), NoThread)
    assert surface.removed == surface.threads and await storage.live_game(surface.threads[0]) is None
    assert surface.scoreboards == {}


async def test_a_race_opens_a_thread_and_a_board_each_then_its_scoreboard(storage):
    manager, surface = GameManager(storage), Surface()
    deals = [Deal(kings_and_pairs(), 1, player, "P", "en") for player in (PLAYER, OTHER)]
    opened = await open_race(manager, surface, deals, CHANNEL, changes=unheard(manager))
    assert isinstance(opened, RaceOpened) and opened.threads == surface.threads
    race = await storage.race(opened.race_id)
    assert race.message_id == opened.message_id and surface.scoreboards[opened.message_id] == race.id
    assert [player for player, _ in race.players] == [PLAYER, OTHER]


async def test_todays_daily_is_one_call_that_deals_a_player_one_attempt_a_day(storage):
    manager, surface = GameManager(storage), Surface()
    deals = DailyDeals(None, manager.clock)  # type: ignore[arg-type]
    todays = TodaysDaily(manager, deals, DailyAttempts(storage), unheard(manager), manager.clock)
    day = todays.today()
    deals.codes[day.day] = kings_and_pairs().code  # (the day's deal, as the solver would have worked it out)
    player = Player(PLAYER, "Player", 1, "en")
    opened = await todays.open(day, surface, InThread(), player)
    assert isinstance(opened, Opened) and opened.dealt.live.record.daily == day.key
    assert opened.dealt.live.game.code == kings_and_pairs().code
    again = await todays.open(day, surface, Here(CHANNEL), player)  # elsewhere: nothing dealt, where it waits
    assert isinstance(again, AttemptTaken) and again.attempt.status is None
    assert again.attempt.channel_id == opened.dealt.channel_id and len(surface.boards) == 1
