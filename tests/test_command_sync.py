"""The global commands pushed with the Activity's entry point command kept, through the harness.

With Activities enabled, Discord has made an entry point command (type 4, "launch", handler 2) that
discord.py's command tree does not hold, and it refuses a bulk overwrite that leaves it out (400, 50240).
The Hub keeps the application's commands as Discord does (``tests/support/app_commands.py``): the tests show it
refusing such an overwrite, the bot's sync keeping the entry point as Discord made it, the hash that spares
an unchanged sync still sparing it, and every command still answering after a sync."""

import discord
import pytest
from discord.app_commands import AppInstallationType

from tests.support.app_commands import ENTRY_POINT_MESSAGE
from tests.support.deals import kings_and_pairs
from tests.support.harness import CHANNEL_ID, MANAGE_GUILD, OWNER, PLAIN, STRANGER, labels

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def command_requests(h, since=0):
    return [(s.method, s.path) for s in h.hub.sent[since:] if s.path.endswith("/commands")]


def held(h):
    """The global commands Discord holds: (type, name) -> the command."""
    return {(c["type"], c["name"]): c for c in h.hub.app_commands.listing()}


async def test_a_sync_keeps_the_entry_point_discord_made(harness):
    h = harness
    ours = {key: c["id"] for key, c in held(h).items()}  # pushed at the first start
    entry = h.hub.app_commands.enable_activities()
    since = len(h.hub.sent)
    assert await h.bot.sync_commands(force=True) == 3
    assert command_requests(h, since) == [
        ("GET", "/applications/{application_id}/commands"),
        ("PUT", "/applications/{application_id}/commands"),
    ]
    put = h.hub.sent[-1]
    assert [c["name"] for c in put.data] == ["pyramide", "pyramide-admin", "launch"]
    assert put.data[-1] == {
        "id": entry["id"],
        "type": 4,
        "name": "launch",
        "description": "",
        "handler": 2,
        "integration_types": [0, 1],
        "contexts": [0, 1, 2],
        "nsfw": False,
    }
    now = held(h)
    assert set(now) == {(1, "pyramide"), (1, "pyramide-admin"), (4, "launch")}
    kept = now[(4, "launch")]
    assert (kept["id"], kept["handler"], kept["contexts"]) == (entry["id"], 2, [0, 1, 2])
    assert {key: c["id"] for key, c in now.items() if key[0] == 1} == ours  # our commands keep their ids too


async def test_discord_refuses_an_overwrite_that_leaves_the_entry_point_out(harness):
    """What the bot did before (discord.py's ``tree.sync``): Discord refuses it and changes nothing."""
    h = harness
    h.hub.app_commands.enable_activities()
    before = h.hub.app_commands.listing()
    with pytest.raises(discord.HTTPException) as refused:
        await h.bot.tree.sync()
    assert (refused.value.status, refused.value.code, refused.value.text) == (400, 50240, ENTRY_POINT_MESSAGE)
    assert h.hub.app_commands.listing() == before and h.hub.app_commands.refused == 1


async def test_an_unchanged_definition_costs_no_request_and_a_changed_one_keeps_the_entry_point(harness):
    h = harness
    h.hub.app_commands.enable_activities()
    await h.restart()  # the commands' hash was stored at the first start: nothing is read or pushed
    assert await h.bot.sync_commands() is None
    assert command_requests(h) == [
        ("GET", "/applications/{application_id}/commands"),
        ("PUT", "/applications/{application_id}/commands"),
    ]  # the first start's push, only
    h.bot.tree.get_command("pyramide").allowed_installs = AppInstallationType(guild=True, user=False)
    assert await h.bot.sync_commands() == 3
    assert held(h)[(1, "pyramide")]["integration_types"] == [0] and (4, "launch") in held(h)
    assert await h.bot.sync_commands() is None


async def test_the_owners_sync_keeps_the_entry_point(harness):
    h = harness
    h.hub.app_commands.enable_activities()
    h.bot.owner_id = OWNER
    sent = await h.say(f"<@{h.bot.user.id}> sync")
    assert "Synced 3 commands (global)" in sent[-1].content
    assert (4, "launch") in held(h) and h.hub.app_commands.refused == 0
    assert not await h.say(f"<@{h.bot.user.id}> sync", user=STRANGER)  # the owner's only


async def test_every_command_keeps_working_after_a_sync_with_the_entry_point(harness):
    h = harness
    h.hub.app_commands.enable_activities()
    await h.bot.sync_commands(force=True)
    assert {name for kind, name in held(h) if kind == 1} == {c.name for c in h.bot.tree.get_commands()}
    sent = await h.command("new", code=kings_and_pairs().code)
    assert sent[0].png is not None and "Undo" in labels(h.board())
    sent = await h.press(h.board_button("K♠"))
    assert "K♠ removed" in sent[-1].content
    await h.command("/pyramide-admin settings", user=STRANGER, permissions=PLAIN | MANAGE_GUILD, who_can_play="anyone")
    await h.press(h.board_button("A♠"), user=STRANGER)
    sent = await h.press(h.board_button("Q♠"), user=STRANGER)
    assert "removed" in sent[-1].content and (await h.storage.live_game(CHANNEL_ID)).removed == 3
