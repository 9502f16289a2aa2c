"""The harness refuses, as Discord does, what Discord's published API description does not allow
(``discord_api.py``): a test of the check itself, on bodies made wrong on purpose."""

from __future__ import annotations

import copy

import discord
import fastjsonschema
import pytest
from discord.http import Route

from tests.support import discord_api
from tests.support.harness import CHANNEL_ID, Hub

pytestmark = pytest.mark.skipif(
    not discord_api.found(), reason=f"the body check's own tests: no Discord API description at {discord_api.sought()}"
)

CALLBACK = "/interactions/{interaction_id}/{interaction_token}/callback"
CALLBACK_URL = "https://discord.com/api/v10/interactions/1234567890/a-token/callback"


def board(label: str = "K♠", kind: int = 2) -> dict:
    """A board's first answer as the bot sends it: a picture and rows of buttons."""
    button = {"type": kind, "style": 2, "custom_id": "pyr:1:0:21", "label": label, "emoji": {"id": "1", "name": "k"}}
    return {
        "type": 4,
        "data": {
            "content": "**Pyramide**",
            "components": [{"type": 1, "components": [dict(button, custom_id=f"pyr:1:0:{i}") for i in range(5)]}],
            "attachments": [{"id": 0, "filename": "board.png", "description": "The pyramid"}],
            "allowed_mentions": {"parse": []},
        },
    }


def broken(change) -> dict:
    body = copy.deepcopy(board())
    change(body)
    return body


def button(body: dict, n: int = 0) -> dict:
    return body["data"]["components"][0]["components"][n]


WRONG = {
    "a button label over 80 characters": broken(lambda b: button(b).update(label="x" * 81)),
    "a component type no row takes": broken(lambda b: button(b, 1).update(type=99)),
    "an empty row": broken(lambda b: b["data"]["components"].append({"type": 1, "components": []})),
    "an emoji without its name": broken(lambda b: button(b).update(emoji={"id": "1"})),
    "an unknown callback type": broken(lambda b: b.update(type=42)),
    "a snowflake that is no number": broken(lambda b: b["data"]["attachments"][0].update(id="zero")),
}


def test_a_board_as_the_bot_sends_it_is_valid():
    assert discord_api.check("POST", CALLBACK_URL, board()) == []
    assert discord_api.check("POST", CALLBACK_URL, broken(lambda b: b["data"].update(allowed_mentions=None))) == []


@pytest.mark.parametrize("body", WRONG.values(), ids=WRONG.keys())
def test_a_body_the_description_does_not_allow_is_named_with_its_place(body):
    reasons = discord_api.check("POST", CALLBACK_URL, body)
    assert len(reasons) == 1 and reasons[0].startswith(f"POST {CALLBACK}: "), reasons


@pytest.mark.parametrize("body", [board(), *WRONG.values()], ids=["valid", *WRONG.keys()])
def test_unions_told_apart_by_type_give_the_published_unions_verdicts(body):
    """The validators read the description with its unions rewritten to the branch ``type`` names (for
    speed); the description as published, with every branch tried, agrees on every body."""
    operation = discord_api.resolve("POST", CALLBACK_URL)
    assert operation is not None and operation.body is not None
    published = discord_api.compiled(discord_api.described(), operation.body)
    try:
        published(body)
        valid = True
    except fastjsonschema.JsonSchemaValueException:
        valid = False
    assert valid == (discord_api.check("POST", CALLBACK_URL, body) == [])


def test_the_most_specific_path_template_names_the_route():
    assert discord_api.resolve("PATCH", "https://discord.com/api/v10/webhooks/1/t/messages/@original").template == (
        "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
    )
    assert discord_api.resolve("PATCH", "https://discord.com/api/v10/webhooks/1/t/messages/2").template == (
        "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"
    )
    assert discord_api.resolve("GET", "https://discord.com/api/v10/nowhere/1") is None


async def test_the_hub_refuses_an_invalid_body_as_discord_does_and_keeps_the_reason():
    hub = Hub()
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=CHANNEL_ID)
    row = {"type": 1, "components": [{"type": 2, "style": 2, "custom_id": "a", "label": "x" * 81}]}
    with pytest.raises(discord.HTTPException) as refused:
        await hub.http_request(route, json={"content": "hello", "components": [row]})
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert hub.invalid == [
        "POST /channels/{channel_id}/messages: components/0/components/0/label: "
        "data.components[0].components[0].label must be shorter than or equal to 80 characters"
    ]
    row["components"][0]["label"] = "x" * 80
    message = await hub.http_request(route, json={"content": "hello", "components": [row]})
    assert message["content"] == "hello" and len(hub.invalid) == 1  # the valid one is posted


async def test_the_hub_refuses_a_route_discord_does_not_publish():
    hub = Hub()
    with pytest.raises(discord.HTTPException) as refused:
        await hub.http_request(Route("POST", "/channels/{channel_id}/nonsense", channel_id=CHANNEL_ID), json={})
    assert refused.value.code == 50035 and "no such route" in hub.invalid[0]
