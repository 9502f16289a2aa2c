"""Whatever a client sends, a clear private answer and nothing stored: values outside a command's limits,
commands and subcommands the bot no longer has (a moved one says where it went), button ids nothing of the
bot reads; the declared options are the limits table. Through the harness on both databases."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
import pytest

from pyramide.i18n import t
from pyramide.limits import LIMITS, Length, OneOf, Span
from tests.support.command_tree import errors, forged_message, leaves, words
from tests.support.database_dump import changed, dump
from tests.support.harness import MANAGE_GUILD, PLAIN

pytestmark = pytest.mark.backends("sqlite", "postgresql")

ADMIN = PLAIN | MANAGE_GUILD
LOCALES = {"en-US": "en", "hr": "hr", "da": "da", "ru": "ru"}


async def test_declared_options_are_the_limits_table(harness) -> None:
    """Every text and number option declares exactly its limit of pyramide.limits (the table the
    application checks against), and every limit of the table is some command's option."""
    used = set()
    for command in leaves(harness.bot.tree):
        for parameter in command.parameters:
            kind = parameter.type
            if kind not in (discord.AppCommandOptionType.string, discord.AppCommandOptionType.integer):
                continue
            where = f"/{command.qualified_name} {parameter.name}"
            assert parameter.name in LIMITS, f"{where} has no limit in pyramide/limits.py"
            limit = LIMITS[parameter.name]
            used.add(parameter.name)
            if isinstance(limit, OneOf):
                assert [c.value for c in parameter.choices] == list(limit.values), where
                assert [c.name for c in parameter.choices] == [t("en", key) for _, key in limit.choices], where
            else:
                assert not parameter.choices, where
                assert isinstance(limit, Span if kind is discord.AppCommandOptionType.integer else Length), where
                assert (parameter.min_value, parameter.max_value) == (limit.low, limit.high), where
    assert used == set(LIMITS)


async def test_the_moved_settings_command_says_where_it_went_in_four_languages(harness, caplog) -> None:
    before = await dump(harness.db_path)
    texts = set()
    for locale, lang in LOCALES.items():
        harness.locale = locale
        with caplog.at_level(logging.INFO):
            sent = await harness.command("settings", permissions=ADMIN, idle_minutes=5)
        assert len(sent) == 1 and sent[0].ephemeral, locale
        assert sent[0].content == t(lang, "command.moved", command="/pyramide-admin settings"), locale
        assert "/pyramide-admin settings" in sent[0].content
        texts.add(sent[0].content)
    assert len(texts) == len(LOCALES)  # each language its own words
    harness.locale = "en-US"
    for old, new in [("stats show", "/pyramide stats"), ("stats reset", "/pyramide-admin reset-stats")]:
        sent = await harness.command(old, permissions=ADMIN)
        assert len(sent) == 1 and sent[0].ephemeral, old
        assert sent[0].content == t("en", "command.moved", command=new), old
    assert changed(before, await dump(harness.db_path)) == {}
    assert errors(caplog) == []
    assert any(r.levelno == logging.INFO and "/pyramide settings" in r.getMessage() for r in caplog.records)


async def test_an_unknown_command_or_subcommand_is_answered_as_gone(harness, caplog) -> None:
    before = await dump(harness.db_path)
    for path in ("nope", "daily nope", "event nope", "/pyramide-admin nope", "/pyramide-old", "daily"):
        with caplog.at_level(logging.INFO):
            sent = await harness.command(path, permissions=ADMIN)
        assert len(sent) == 1 and sent[0].ephemeral, path
        assert sent[0].content == t("en", "command.gone"), path
    assert changed(before, await dump(harness.db_path)) == {}
    assert errors(caplog) == []


START = "/pyramide-admin event start"
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("/pyramide-admin settings", {"idle_minutes": 0}, "idle_minutes"),
    ("/pyramide-admin settings", {"idle_minutes": -1}, "idle_minutes"),
    ("/pyramide-admin settings", {"idle_minutes": 1441}, "idle_minutes"),
    ("/pyramide-admin settings", {"idle_minutes": 2**64 + 1}, "idle_minutes"),
    ("/pyramide-admin settings", {"who_can_play": "everyone", "idle_minutes": 30}, "who_can_play"),
    (START, {"name": "Cup", "deals": 10**12}, "deals"),
    (START, {"name": "Cup", "deals": 0}, "deals"),
    (START, {"name": "Cup", "passes": 99}, "passes"),
    (START, {"name": "Cup", "difficulty": "EASY"}, "difficulty"),
    (START, {"name": "x" * 61}, "name"),
    (START, {"name": ""}, "name"),
    (START, {"name": "Cup", "duration": "9" * 21}, "duration"),
    (START, {"name": "Cup", "duration": "15d"}, "duration"),
    ("new", {"passes": 99}, "passes"),
    ("new", {"passes": 5}, "passes"),
    ("new", {"difficulty": "EASY"}, "difficulty"),
    ("new", {"code": "PY1-N-" + "A" * 200}, "code"),
    ("race", {"opponent": discord.Object(600_000_000_000_000_002), "passes": -2}, "passes"),
    ("tap", {"card": ""}, "card"),
    ("leaderboard", {"period": "year"}, "period"),
    ("leaderboard", {"rules": "P7"}, "rules"),
    ("daily month", {"month": "next"}, "month"),
    ("event standings", {"event": "1" * 21}, "event"),
    ("/pyramide-admin event end", {"event": "1" * 40}, "event"),
]


async def test_a_value_outside_the_limits_says_what_is_allowed_and_changes_nothing(harness, caplog) -> None:
    before = await dump(harness.db_path)
    for path, options, option in REFUSED:
        caplog.clear()
        with caplog.at_level(logging.INFO):
            sent = await asyncio.wait_for(  # (a huge deal count once sized the search: it never ended)
                harness.command(path, permissions=ADMIN, **options), 10
            )
        assert len(sent) == 1 and sent[0].ephemeral, (path, options, [s.content for s in sent])
        assert sent[0].content == words(option), (path, options)
        assert errors(caplog) == [], (path, options)
        assert any(r.levelno == logging.INFO and option in r.getMessage() for r in caplog.records), (path, options)
    assert changed(before, await dump(harness.db_path)) == {}


async def test_a_refusal_is_in_the_players_language(harness) -> None:
    harness.locale = "hr"
    sent = await harness.command("/pyramide-admin settings", permissions=ADMIN, idle_minutes=1441)
    assert sent[-1].ephemeral
    assert sent[-1].content == t("hr", "limits.range", option=t("hr", "opt.idle_minutes"), low=1, high=1440)


async def test_the_settings_bounds_are_accepted_and_stored(harness) -> None:
    await harness.command("/pyramide-admin settings", permissions=ADMIN, idle_minutes=1440)
    assert (await harness.storage.settings(harness.guild_id)).idle_minutes == 1440
    await harness.command("/pyramide-admin settings", permissions=ADMIN, idle_minutes=1)
    assert (await harness.storage.settings(harness.guild_id)).idle_minutes == 1


async def test_a_button_id_nothing_reads_is_answered_as_out_of_date(harness, caplog) -> None:
    before = await dump(harness.db_path)
    forged = ["zz:1", "x", "pye:play:abc", "pye:play:99999999999999999999", "pyrshare:1:2", "pyrlb:year:0:n", "\u202e"]
    for custom_id in forged:
        with caplog.at_level(logging.INFO):
            sent = await harness._dispatch(harness.press_payload(custom_id, forged_message(custom_id)))
        assert len(sent) == 1 and sent[0].ephemeral, custom_id
        assert sent[0].content == t("en", "error.stale_board"), custom_id
    assert changed(before, await dump(harness.db_path)) == {}
    assert errors(caplog) == []
