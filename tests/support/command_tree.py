"""The bot's command tree walked to every command a player can run, what a player reads about an option's
limit, a forged button message, and the ERROR lines a test expects none of (``test_inputs.py``,
``test_fuzz.py``)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from discord import app_commands

from pyramide.i18n import t
from pyramide.limits import LIMITS, Length, Span
from tests.support.harness import BOT_USER, CHANNEL_ID, message_payload, snowflake


def leaves(tree: app_commands.CommandTree) -> list[app_commands.Command[Any, ..., Any]]:
    """Every command a player can run, subcommands of groups included."""
    found: list[app_commands.Command[Any, ..., Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, app_commands.Group):
            for child in node.commands:
                walk(child)
        elif isinstance(node, app_commands.Command):
            found.append(node)

    for command in tree.get_commands():
        walk(command)
    return found


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


def words(option: str) -> str:
    """What the player reads about ``option``'s limit, in English."""
    limit = LIMITS[option]
    if option == "duration":
        return t("en", "event.error.duration")
    if isinstance(limit, Span):
        return t("en", "limits.range", option=option, low=limit.low, high=limit.high)
    if isinstance(limit, Length):
        return t("en", "limits.length", option=option, low=limit.low, high=limit.high)
    return t("en", "limits.choice", option=option, choices=", ".join(t("en", key) for _, key in limit.choices))


def forged_message(custom_id: str) -> dict[str, Any]:
    """A message carrying a button of ``custom_id``, as a modified client could claim it pressed."""
    body = {"components": [{"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": custom_id}]}]}
    return message_payload(snowflake(), CHANNEL_ID, body, {}, BOT_USER, 0)
