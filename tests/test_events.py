"""Server events through the real discord.py objects, on both databases: a moderator starts one, players
play its deals (one counted attempt each, codes hidden), the announcement follows the standings, and the
end (at the deadline, early, or cancelled) is decided and announced once by the database."""

import asyncio
from dataclasses import replace

import pytest

from cogs.pyramide import events
from pyramide import Game
from pyramide.solver import Verdict
from pyramide_service.changes import GameChanged
from pyramide_service.events import parse_duration
from pyramide_service.storage import ENDED, EventTaken, GameRecord
from tests.support.deals import clear_kings_and_pairs, kings_and_pairs
from tests.support.event_steps import DEALS, MODERATOR, end_it, open_deal, start_event
from tests.support.harness import (
    ADMIN,
    CHANNEL_ID,
    DM_CHANNEL_ID,
    GUILD_ID,
    OTHER_CHANNEL_ID,
    OWNER,
    STRANGER,
    Harness,
)

pytestmark = pytest.mark.backends("sqlite", "postgresql")

HOUR = 3600.0


def events_cog(h: Harness):
    return h.bot.get_cog("Events")


async def clear_it(h: Harness, thread: int, user: int) -> None:
    plan = kings_and_pairs()
    clear_kings_and_pairs(plan)
    for action in plan.actions:
        await h.command("tap", card=str(DEALS[0].pyramid[action]), channel_id=thread, user=user)


def announcement(h: Harness, event) -> dict:
    return h.hub.messages[event.message_id]


def results_posts(h: Harness) -> list:
    return [
        s
        for s in h.hub.sent
        if isinstance(s.body, dict)
        and s.body.get("embeds")
        and "Final standings" in s.body["embeds"][0]["title"]
        and s.path == "/channels/{channel_id}/messages"
    ]


def said(sent: list):
    """The interaction's own last answer (not what the bot posted on its own after it)."""
    return [s for s in sent if s.token][-1]


async def play_three_players(h: Harness) -> int:
    """OWNER and ADMIN clear the first deal (ADMIN 100 s slower), STRANGER removes a king; everyone ends
    the other two deals without a move."""
    event_id = await start_event(h)
    for user, slower in ((OWNER, 0.0), (ADMIN, 100.0), (STRANGER, 0.0)):
        thread = await open_deal(h, user)
        h.now[0] += slower
        if user == STRANGER:
            await h.command("tap", card="K♠", channel_id=thread, user=user)
            await end_it(h, thread, user)
        else:
            await clear_it(h, thread, user)
        for _ in range(2):
            await end_it(h, await open_deal(h, user), user)
    await events_cog(h).announcements.flush()
    return event_id


async def test_three_players_play_three_deals_and_the_standings_rank_as_stated(harness, fixed_deals):
    event_id = await play_three_players(harness)
    standings = await harness.storage.event_standings(event_id)
    assert [(s.player_id, s.played, s.removed) for s in standings] == [(OWNER, 3, 28), (ADMIN, 3, 28), (STRANGER, 3, 1)]
    assert standings[0].score == standings[1].score and standings[0].seconds < standings[1].seconds  # time decides
    event = await harness.storage.event(event_id)
    board = announcement(harness, event)["embeds"][0]
    text = board["fields"][1]["value"]
    assert text.splitlines()[0].startswith("🥇 Player 1 · 28 cards") and text.splitlines()[1].startswith("🥈 Player 3")
    assert text.splitlines()[2].startswith("🥉 Player 2 · 1 cards")
    assert "cards removed, then its score, then its time" in board["fields"][0]["value"]  # scoring is stated
    assert "28 cards" in text and "3 played" in text
    sent = await harness.command("event play", user=OWNER)  # every deal played: the total and the rank
    assert "every deal of **December Cup**" in sent[-1].content and "#1 of 3" in sent[-1].content
    sent = await harness.command("event standings", user=STRANGER)
    embed = sent[-1].body["embeds"][0]
    assert embed["description"].startswith("🥇") and "#3 of 3" in embed["fields"][-1]["value"]
    assert sent[-1].files[0][0] == "standings.png" and embed["image"]["url"] == "attachment://standings.png"
    alt = sent[-1].body["attachments"][0]["description"]
    assert alt.startswith("Standings of December Cup") and "1. Player 1: 28 cards" in alt


async def test_one_counted_attempt_a_deal_the_key_refuses_a_second(harness, fixed_deals):
    event_id = await start_event(harness)
    thread = await open_deal(harness, OWNER)
    sent = await harness.command("event play", user=OWNER)  # the deal in play is named, none dealt again
    assert "deal 1 is still waiting for you" in sent[-1].content and f"<#{thread}>" in sent[-1].content
    await end_it(harness, thread, OWNER)
    second = await open_deal(harness, OWNER)
    live = await harness.bot.manager.live(second)
    assert live.record.event_deal == 1 and live.game.deal == DEALS[1].deal  # the next deal, not the first again
    record = GameRecord(
        id=0,
        guild_id=GUILD_ID,
        channel_id=OTHER_CHANNEL_ID,
        owner_id=OWNER,
        code=DEALS[0].code,
        rules="N",
        created_at=harness.now[0],
        event_id=event_id,
        event_deal=0,
    )
    with pytest.raises(EventTaken):
        await harness.storage.create_game(record)  # the database's key, whatever the cog checked
    assert len(await harness.storage.event_entries(event_id, OWNER)) == 2


async def test_codes_stay_hidden_until_the_end(harness, fixed_deals):
    event_id = await start_event(harness)
    thread = await open_deal(harness, OWNER)
    board = next(m for m in harness.hub.messages.values() if str(m.get("channel_id")) == str(thread))
    assert DEALS[0].code not in board["content"] and "Event deal 1" in board["content"]
    sent = await harness.command("code", channel_id=thread)
    assert "revealed with its results" in sent[-1].content and DEALS[0].code not in sent[-1].content
    for code in (DEALS[0].code, Game(DEALS[0].deal, DEALS[0].rules.with_options(pass_limit=1)).code):
        sent = await harness.command("new", code=code, channel_id=OTHER_CHANNEL_ID, user=STRANGER)
        assert "running server event" in sent[-1].content and sent[-1].ephemeral  # under any rules
    await end_it(harness, thread, OWNER)
    finished = harness.hub.messages[
        (await harness.storage.game((await harness.storage.event_entries(event_id, OWNER))[0].game_id)).message_id
    ]
    assert DEALS[0].code not in str(finished) and "Same deal again" not in str(finished)
    await harness.command("/pyramide-admin event end", user=ADMIN, permissions=MODERATOR)
    posted = results_posts(harness)
    assert len(posted) == 1 and all(game.code in str(posted[0].body) for game in DEALS)  # revealed at the end
    labels = [c["label"] for row in posted[0].body["components"] for c in row["components"]]
    assert labels == ["Deal 1: how to win it", "Deal 2: how to win it", "Deal 3: how to win it"]
    sent = await harness.command("new", code=DEALS[0].code, channel_id=OTHER_CHANNEL_ID, user=STRANGER)
    assert sent[0].png is not None  # an ordinary deal once the event is over
    sent = await harness.press(f"pye:line:{event_id}:0", user=STRANGER)
    assert any(s.files and s.files[0][0].startswith("winning-line") for s in sent)


async def test_the_deadline_ends_it_once_and_posts_the_podium(harness, fixed_deals):
    event_id = await play_three_players(harness)
    harness.now[0] += 2 * 24 * HOUR + 1
    sent = await harness.command("event play", user=STRANGER)
    assert "is over" in sent[-1].content  # past the deadline, even before the loop came by
    await events_cog(harness).check()
    await events_cog(harness).check()  # the next minute: nothing more
    posted = results_posts(harness)
    assert len(posted) == 1
    assert posted[0].files[0][0] == "podium.png" and posted[0].files[0][1].startswith(b"\x89PNG")
    attachment = posted[0].body["attachments"][0]
    assert attachment["description"].startswith("Podium of December Cup") and "1. " in attachment["description"]
    event = await harness.storage.event(event_id)
    assert event.ended_at is not None and event.announced_at is not None and event.results_id is not None
    assert announcement(harness, event)["components"] == []  # no Play once it is over
    sent = await harness.command("stats", user=OWNER)
    fields = {f["name"]: f["value"] for f in sent[-1].body["embeds"][0]["fields"]}
    assert fields["Events"] == "1 played · 1 podiums · 1 won"
    # The achievements of the final standings, unlocked in the transaction that decided them (once).
    held = {player: {u.key for u in await harness.storage.unlocked(player)} for player in (OWNER, ADMIN, STRANGER)}
    assert {"event_won", "event_podium"} <= held[OWNER] and "event_won" not in held[ADMIN]
    assert "event_podium" in held[ADMIN] and "event_podium" in held[STRANGER]
    sent = await harness.command("event list")
    assert "December Cup" in sent[-1].body["embeds"][0]["description"]


async def test_an_event_that_ends_while_the_bot_is_stopped_is_announced_once_after_the_restart(harness, fixed_deals):
    event_id = await start_event(harness, duration="1h")
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    thread = await open_deal(harness, STRANGER)  # in play when the bot stops
    await harness.command("tap", card="K♠", channel_id=thread, user=STRANGER)
    await harness.stop()
    harness.now[0] += 5 * HOUR
    await harness.start()
    await events_cog(harness).check()  # the loop's first round after the start
    await events_cog(harness).check()
    assert len(results_posts(harness)) == 1
    standings = await harness.storage.event_standings(event_id)
    assert {s.player_id: s.removed for s in standings} == {OWNER: 0, STRANGER: 1}  # a deal in play counts as it stood


async def test_two_processes_at_the_deadline_announce_once(harness, fixed_deals, workers):
    event_id = await start_event(harness, duration="1h")
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    other = await Harness(harness.db_path, clock=harness.now, workers=workers).start()
    try:
        harness.now[0] += 2 * HOUR
        await asyncio.gather(events_cog(harness).check(), events_cog(other).check())
        assert len(results_posts(harness)) + len(results_posts(other)) == 1
        assert (await harness.storage.event(event_id)).announced_at is not None
    finally:
        await other.stop()


async def test_end_early_and_cancel(harness, fixed_deals):
    first = await start_event(harness, name="Cup A")
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    sent = await harness.command("/pyramide-admin event end", user=STRANGER, event=str(first))
    assert "Manage Server" in sent[-1].content
    sent = await harness.command("/pyramide-admin event end", user=ADMIN, permissions=MODERATOR, event=str(first))
    assert "has ended" in said(sent).content and len(results_posts(harness)) == 1
    sent = await harness.command("/pyramide-admin event end", user=ADMIN, permissions=MODERATOR, event=str(first))
    assert "is over" in sent[-1].content and len(results_posts(harness)) == 1
    second = await start_event(harness, name="Cup B")
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    sent = await harness.command("/pyramide-admin event cancel", user=ADMIN, permissions=MODERATOR)
    assert "cancelled" in said(sent).content
    await events_cog(harness).announcements.flush()
    assert len(results_posts(harness)) == 1  # a cancelled event posts no results
    assert await harness.storage.event_standings(second) == []
    event = await harness.storage.event(second)
    assert "Cancelled" in announcement(harness, event)["embeds"][0]["description"]
    assert announcement(harness, event)["components"] == []
    sent = await harness.command("stats", user=OWNER)
    fields = {f["name"]: f["value"] for f in sent[-1].body["embeds"][0]["fields"]}
    assert fields["Events"] == "1 played · 1 podiums · 1 won"  # the cancelled one does not count


async def test_forget_me_leaves_the_standings_and_the_others_close_up(harness, fixed_deals):
    event_id = await play_three_players(harness)
    sent = await harness.command("forget-me", user=OWNER)
    await harness.press(sent[-1].button("Yes, delete my data"), user=OWNER)
    standings = await harness.storage.event_standings(event_id)
    assert [s.player_id for s in standings] == [ADMIN, STRANGER]
    await events_cog(harness).check()  # the loop redraws what the forget changed
    await events_cog(harness).announcements.flush()
    event = await harness.storage.event(event_id)
    text = announcement(harness, event)["embeds"][0]["fields"][1]["value"]
    assert "Player 1 " not in text and text.startswith("🥇 Player 3") and "🥈 Player 2" in text


async def test_a_deleted_announcement_or_channel_the_event_goes_on(harness, fixed_deals):
    event_id = await start_event(harness)
    event = await harness.storage.event(event_id)
    harness.hub.deleted_messages.add(event.message_id)
    await end_it(harness, await open_deal(harness, OWNER), OWNER)  # the edit is refused: nothing else fails
    await events_cog(harness).announcements.flush()
    assert len(await harness.storage.event_standings(event_id)) == 1
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    harness.hub.deleted_channels.add(CHANNEL_ID)
    sent = await harness.command(
        "/pyramide-admin event end", user=ADMIN, permissions=MODERATOR, channel_id=OTHER_CHANNEL_ID
    )
    assert "has ended" in said(sent).content and results_posts(harness) == []  # nowhere left to post
    assert (await harness.storage.event(event_id)).announced_at is not None  # and not tried again
    sent = await harness.command("event standings", channel_id=OTHER_CHANNEL_ID)
    titles = [e["title"] for e in sent[-1].body["embeds"]]
    assert titles == ["Standings · December Cup", "🏁 Final standings · December Cup"]
    assert DEALS[0].code in str(sent[-1].body)


async def test_limits_places_and_bad_input(harness, fixed_deals):
    for name in ("A", "B", "C"):
        await start_event(harness, name=name)
    sent = await harness.command("/pyramide-admin event start", user=ADMIN, permissions=MODERATOR, name="D")
    assert "already runs 3 events" in sent[-1].content
    assert len(await harness.storage.events_of_guild(GUILD_ID)) == 3
    sent = await harness.command(
        "/pyramide-admin event start", user=ADMIN, permissions=MODERATOR, name="E", duration="20d"
    )
    assert "between 1 hour and 14 days" in sent[-1].content
    sent = await harness.command("event play", channel_id=DM_CHANNEL_ID)
    assert "servers that invited Pyramide" in sent[-1].content
    harness.locale = "ru"
    sent = await harness.command("event play", channel_id=DM_CHANNEL_ID)
    assert "серверах, пригласивших Pyramide" in sent[-1].content


async def test_a_moderator_starts_an_event_with_winnable_deals_found_by_the_solver(harness):
    sent = await harness.command(
        "/pyramide-admin event start", user=ADMIN, permissions=MODERATOR, name="Quick", deals=2, duration="36h"
    )
    assert "has started with 2 deals" in sent[-1].content
    event = (await harness.storage.events_of_guild(GUILD_ID))[0]
    assert len(set(event.codes)) == 2 and event.ends_at == pytest.approx(harness.now[0] + 36 * HOUR)
    for code in event.codes:
        assert (await harness.bot.solver.verdict(code))[0] is Verdict.WON
    message = announcement(harness, event)
    assert message["components"][0]["components"][0]["custom_id"] == f"pye:play:{event.id}"
    assert message["embeds"][0]["title"] == "🏆 Quick"


def test_durations():
    assert parse_duration("36h") == 36 and parse_duration("3d") == 72 and parse_duration("2d12h") == 60
    assert parse_duration("14d") == 336 and parse_duration("15d") is None and parse_duration("0.5h") is None
    assert parse_duration("soon") is None and parse_duration("") is None


async def test_a_burst_of_changes_is_one_edit_showing_the_newest_figures(harness, fixed_deals):
    event_id = await start_event(harness)
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    announcements = events_cog(harness).announcements
    before = len(harness.hub.sent)
    for _ in range(3):  # three deals finished at once (another process's, seen by the loop, and this one's)
        announcements.schedule(event_id)
    await announcements.flush()
    edits = [s for s in harness.hub.sent[before:] if s.method == "PATCH"]
    assert len(edits) == 1 and "Player 1 · 0 cards" in edits[0].body["embeds"][0]["fields"][1]["value"]


async def test_in_a_thread_the_deal_is_played_in_place(harness, fixed_deals):
    await start_event(harness)
    thread = 700_000_000_000_000_050  # a thread of the server's (the harness sends it as type 12)
    threads = len(harness.hub.threads)
    sent = await harness.command("event play", channel_id=thread)
    assert len(harness.hub.threads) == threads  # no thread of its own
    board = next(s for s in sent if s.png)
    assert "Event deal 1" in board.content and DEALS[0].code not in board.content
    assert (await harness.bot.manager.live(thread)).record.event_deal == 0


async def test_next_event_deal_on_a_finished_board_deals_it_in_the_same_thread(harness, fixed_deals):
    event_id = await start_event(harness)
    thread = await open_deal(harness, OWNER)
    await end_it(harness, thread, OWNER)
    finished = next(m for m in reversed(harness.hub.messages.values()) if str(m.get("channel_id")) == str(thread))
    labels = [c["label"] for row in finished["components"] for c in row["components"]]
    assert labels == ["Next event deal", "New game"]  # no same deal, no animation of a hidden code
    press = next(
        c["custom_id"] for row in finished["components"] for c in row["components"] if c["label"] != "New game"
    )
    threads = len(harness.hub.threads)
    sent = await harness.press(press, user=OWNER, channel_id=thread)
    assert len(harness.hub.threads) == threads and any(s.png for s in sent)  # played on in the same thread
    assert (await harness.bot.manager.live(thread)).record.event_deal == 1
    sent = await harness.press(press, user=STRANGER, channel_id=thread)  # another player's press, a game in play
    assert "already running here" in sent[-1].content and sent[-1].ephemeral
    assert await harness.storage.event_entries(event_id, STRANGER) == []  # nothing opened, nothing counted


async def test_no_winnable_deal_found_in_time_starts_nothing(harness, monkeypatch):
    async def none_found(solver, rules, lang):
        return Game.new(rules), ("not found",)  # the finders' fallback: a deal not proved winnable

    monkeypatch.setattr(events, "winnable_game", none_found)
    sent = await harness.command("/pyramide-admin event start", user=ADMIN, permissions=MODERATOR, name="Cup")
    assert "could not find winnable deals" in sent[-1].content
    assert await harness.storage.events_of_guild(GUILD_ID) == []


async def test_a_results_post_lost_to_a_server_error_is_posted_by_the_next_check(harness, fixed_deals):
    event_id = await start_event(harness, duration="1h")
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    harness.now[0] += 2 * HOUR
    harness.hub.refuse("POST", "/channels/{channel_id}/messages", code=0, message="Service Unavailable", status=503)
    await events_cog(harness).check()
    assert results_posts(harness) == []
    assert (await harness.storage.event(event_id)).announced_at is None  # the claim was given back
    await events_cog(harness).check()  # the next minute
    await events_cog(harness).check()
    assert len(results_posts(harness)) == 1
    event = await harness.storage.event(event_id)
    assert event.announced_at is not None and event.results_id is not None
    # Sent with the event's own nonce, enforced: had the lost post landed after all, Discord would return it
    # to the second post instead of making another message.
    posted = results_posts(harness)[0].body
    assert posted["nonce"] == f"pyr-results-{event_id}" and posted["enforce_nonce"] is True


async def test_the_loop_coming_by_after_the_deadline_ends_it_at_the_deadline(harness, fixed_deals):
    event_id = await start_event(harness, duration="1h")
    thread = await open_deal(harness, STRANGER)  # in play at the deadline
    await harness.command("tap", card="K♠", channel_id=thread, user=STRANGER)
    deadline = (await harness.storage.event(event_id)).ends_at
    opened = (await harness.storage.event_entries(event_id, STRANGER))[0].opened_at
    harness.now[0] = deadline + 180.0  # the loop comes by 3 minutes late
    await events_cog(harness).check()
    event = await harness.storage.event(event_id)
    assert event.ended_at == deadline
    assert [s.seconds for s in await harness.storage.event_standings(event_id)] == [pytest.approx(deadline - opened)]


async def test_an_announcement_edit_lost_to_a_server_error_is_made_by_the_next_check(harness, fixed_deals):
    event_id = await start_event(harness)
    await events_cog(harness).check()
    await events_cog(harness).announcements.flush()
    record = GameRecord(  # another process's player finishes a deal: this one's loop redraws it
        id=0,
        guild_id=GUILD_ID,
        channel_id=OTHER_CHANNEL_ID,
        owner_id=OWNER,
        code=DEALS[0].code,
        rules="N",
        created_at=harness.now[0],
        started_at=harness.now[0],
        event_id=event_id,
        event_deal=0,
    )
    game = await harness.storage.create_game(record)
    game = replace(game, status="ended", finished_at=harness.now[0] + 60, removed=4, seconds=60.0)
    await harness.storage.finish_game(game)
    edit = "/channels/{channel_id}/messages/{message_id}"
    harness.hub.refuse("PATCH", edit, code=0, message="Bad Gateway", status=502)
    await events_cog(harness).check()
    await events_cog(harness).announcements.flush()
    event = await harness.storage.event(event_id)
    assert "Nobody has finished" in announcement(harness, event)["embeds"][0]["fields"][1]["value"]  # lost
    await events_cog(harness).check()  # the next minute
    await events_cog(harness).announcements.flush()
    assert announcement(harness, event)["embeds"][0]["fields"][1]["value"].startswith("🥇 ")


def kept(h: Harness, event_id: int) -> list[str]:
    marks = events_cog(h).announcements
    return [n for n in ("shown", "last_edit", "pending", "dirty", "gone") if event_id in getattr(marks, n)]


async def test_an_announced_or_cancelled_event_leaves_nothing_in_the_announcements_bookkeeping(harness, fixed_deals):
    first = await start_event(harness, name="Cup A", duration="1h")
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    await events_cog(harness).announcements.flush()
    assert kept(harness, first)  # kept while it runs
    harness.now[0] += 2 * HOUR
    await events_cog(harness).check()
    assert len(results_posts(harness)) == 1 and kept(harness, first) == []
    second = await start_event(harness, name="Cup B")
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    await events_cog(harness).announcements.flush()
    assert kept(harness, second)
    sent = await harness.command("/pyramide-admin event cancel", user=ADMIN, permissions=MODERATOR)
    assert "cancelled" in said(sent).content
    await events_cog(harness).announcements.flush()
    assert kept(harness, second) == []
    late = GameChanged(1, CHANNEL_ID, 1, True, ENDED, second, "en")  # a change that arrived after the end
    await harness.bot.changes.publish(late)
    await events_cog(harness).announcements.flush()
    assert kept(harness, second)  # drawn (its final state) and kept again ...
    await events_cog(harness).check()  # ... until the next minute drops it
    assert kept(harness, second) == []


async def finished_by(h: Harness, event_id: int, players: dict[int, str | None]) -> None:
    """Each player (with the name stored for them, or none) finished the first deal, from another process."""
    for i, (player, name) in enumerate(players.items()):
        record = GameRecord(
            id=0,
            guild_id=GUILD_ID,
            channel_id=800_000 + i,
            owner_id=player,
            code=DEALS[0].code,
            rules="N",
            created_at=h.now[0],
            started_at=h.now[0],
            event_id=event_id,
            event_deal=0,
        )
        game = await h.storage.create_game(record)
        game = replace(game, status="ended", finished_at=h.now[0] + 60, removed=20 - i, seconds=60.0 + i)
        await h.storage.finish_game(game)
        if name is not None:
            await h.storage.remember_name(player, name)


def whole_lines(text: str, limit: int, players: int) -> int:
    """The lines shown are whole standings lines, then one saying how many more: how many were shown."""
    lines = text.split("\n")
    assert len(text) <= limit
    assert all(line.endswith("💡 0") for line in lines[:-1]), lines
    assert lines[-1] == f"…and {players - len(lines) + 1} more players"
    return len(lines) - 1


async def test_long_names_show_whole_lines_then_how_many_more(harness, fixed_deals):
    event_id = await start_event(harness)
    # Discord's longest display names, each character escaped for markdown.
    await finished_by(harness, event_id, {1000 + i: "_*" * 16 for i in range(12)})
    await events_cog(harness).check()
    await events_cog(harness).announcements.flush()
    event = await harness.storage.event(event_id)
    field = announcement(harness, event)["embeds"][0]["fields"][1]["value"]
    assert 0 < whole_lines(field, 1024, 12) < 10
    sent = await harness.command("event standings")
    description = sent[-1].body["embeds"][0]["description"]
    assert whole_lines(description, 1800, 12) >= whole_lines(field, 1024, 12)


async def test_a_player_without_a_stored_name_is_a_player_on_the_podium_not_a_number(harness, fixed_deals):
    event_id = await start_event(harness)
    await finished_by(harness, event_id, {4321_0000_0000_0000_00: None, 1001: "Ana"})
    sent = await harness.command("/pyramide-admin event end", user=ADMIN, permissions=MODERATOR, event=str(event_id))
    assert "has ended" in said(sent).content
    alt = results_posts(harness)[0].body["attachments"][0]["description"]
    assert "1. a player" in alt and "2. Ana" in alt and "4321" not in alt
    sent = await harness.command("event standings", event=str(event_id))
    alt = sent[-1].body["attachments"][0]["description"]
    assert "a player" in alt and "4321" not in alt


async def test_an_event_deal_whose_board_is_refused_is_taken_back_and_can_be_opened_again(harness, fixed_deals):
    event_id = await start_event(harness)
    threads = len(harness.hub.threads)
    harness.hub.refuse("POST", "/channels/{channel_id}/messages")
    sent = await harness.command("event play")
    assert "could not post your board" in sent[-1].content
    thread_id = int(harness.hub.threads[threads]["id"])
    assert any(s.method == "DELETE" and s.url.endswith(f"/channels/{thread_id}") for s in harness.hub.sent)
    assert await harness.storage.event_entries(event_id, OWNER) == []  # nothing counted
    thread = await open_deal(harness, OWNER)
    assert (await harness.bot.manager.live(thread)).record.event_deal == 0  # the same deal, not the next


async def test_an_event_deal_that_cannot_be_taken_back_is_logged(harness, fixed_deals, caplog):
    await start_event(harness)
    storage = harness.storage

    async def fails(*args):
        raise OSError("disk I/O error")

    storage.remember_name = fails  # a step after the entry was stored fails...
    storage.discard_game = fails  # ...and so does taking the entry back
    threads = len(harness.hub.threads)
    try:
        sent = await harness.command("event play")
    finally:
        del storage.remember_name, storage.discard_game
    assert "Something went wrong" in sent[-1].content
    thread_id = int(harness.hub.threads[threads]["id"])
    assert any(s.method == "DELETE" and s.url.endswith(f"/channels/{thread_id}") for s in harness.hub.sent)
    left = [r for r in caplog.records if "was not taken back" in r.getMessage()]
    assert left and left[0].exc_info is not None  # visible, with its traceback, not swallowed
