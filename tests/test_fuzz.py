"""Hostile and out-of-date clients, seeded: every command found in the bot's tree driven through the harness
with hostile values for each option's type (empty, very long, control, zero-width and right-to-left
characters, markup and mentions, numbers at and past each bound and past 64 bits, values outside the
choices), unknown subcommands and forged button ids. Every interaction is answered within Discord's window
(the harness refuses a late first answer), privately when refused, with no ERROR logged; a refused one stores
nothing (every table of the SQLite file compared before and after). One bot serves every example."""

from __future__ import annotations

import asyncio
import logging
import string
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from discord import app_commands
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyramide.i18n import t
from pyramide.limits import LIMITS, Length, OneOf, Span
from pyramide_service.inputs import within
from pyramide_service.workers import Workers
from tests.support import discord_internals as internals
from tests.support.command_tree import errors, forged_message, leaves, words
from tests.support.database_dump import changed, dump
from tests.support.harness import CHANNEL_ID, MANAGE_GUILD, OWNER, PLAIN, STRANGER, Harness, RecordingAdapter

EXAMPLES = 100

HOSTILE_TEXT = [
    "",
    " ",
    "x" * 6001,
    "\x00\x01\x07\x1b[31m\x7f",
    "\u200b\u200c\u200d\ufeff",
    "\u202e\u200fevil\u202c",
    "**bold** __u__ `code` ||spoiler|| <@600000000000000001> @everyone @here <#1> <@&1> <t:0>",
    "'; DROP TABLE games; --",
    "PY1-N-AAAAAAS",
    "PY1-P99999999999999999999999-AAAAAAS",
    "9" * 40,
    "-1",
    "1e400",
]
PAST_64_BITS = [2**63 - 1, 2**63, 2**64, 2**64 + 1, -(2**63) - 1, 10**40, -(10**40)]
# Options whose valid values start a search that takes seconds (a rated or winnable deal, an event's deals):
# the fuzz gives them only what the command refuses; their valid values have tests of their own.
SEARCHING = {"difficulty", "winnable", "deals"}
PREFIXES = [
    "pyr:",
    "pyrnew:",
    "pyrshare:",
    "pyranim:line:",
    "pyrrace:giveup:",
    "pyrlb:week:0:n:",
    "pyrlb:year:",
    "pyrconfirm:yes:",
    "pyrreset:no:",
    "pye:play:",
    "pye:line:",
    "pye:",
    "zz:",
    "",
]


@dataclass(frozen=True)
class Option:
    name: str  # as Discord sends it (the display name)
    key: str  # the parameter's name, the limits table's key
    kind: discord.AppCommandOptionType
    required: bool


def path_of(command: app_commands.Command[Any, ..., Any]) -> str:
    """The harness's path of a command: under /pyramide without the root, else "/root sub"."""
    names = command.qualified_name.split()
    return " ".join(names[1:]) if names[0] == "pyramide" else "/" + " ".join(names)


def options_of(command: app_commands.Command[Any, ..., Any]) -> list[Option]:
    return [Option(p.display_name, p.name, p.type, p.required) for p in command.parameters]


def numbers(key: str) -> st.SearchStrategy[int]:
    limit = LIMITS.get(key)
    edges: list[int] = []
    if isinstance(limit, Span):
        edges = [limit.low - 1, limit.low, limit.high, limit.high + 1]
    elif isinstance(limit, OneOf):
        values = [v for v in limit.values if isinstance(v, int)]
        edges = [*values, min(values) - 1, max(values) + 1]
    strategy = st.sampled_from(edges + PAST_64_BITS + [0, -1]) | st.integers()
    return strategy.filter(lambda v: not within(limit, v)) if key in SEARCHING and limit is not None else strategy


def texts(key: str) -> st.SearchStrategy[str]:
    limit = LIMITS.get(key)
    pool = list(HOSTILE_TEXT)
    if isinstance(limit, Length):
        pool += ["y" * limit.high, "y" * (limit.high + 1)]
    elif isinstance(limit, OneOf):
        values = [str(v) for v in limit.values]
        pool += values + [v.upper() for v in values] + [v + " " for v in values] + [v + "\u200b" for v in values]
    strategy = st.sampled_from(pool) | st.text(max_size=120)
    return strategy.filter(lambda v: not within(limit, v)) if key in SEARCHING and limit is not None else strategy


def value(option: Option) -> st.SearchStrategy[Any]:
    kind = option.kind
    if kind is discord.AppCommandOptionType.boolean:
        return st.just(False) if option.key in SEARCHING else st.booleans()
    if kind is discord.AppCommandOptionType.integer:
        return numbers(option.key)
    if kind is discord.AppCommandOptionType.string:
        return texts(option.key)
    if kind is discord.AppCommandOptionType.user:
        return st.sampled_from([OWNER, STRANGER, 1]).map(discord.Object)
    raise AssertionError(f"no hostile values for option type {kind}")


@dataclass
class Example:
    """What one example sent: its payload, and the options outside the limits (a refusal expected)."""

    payload: dict[str, Any]
    refused: list[str]
    kind: str  # "command", "unknown", "press", "suggest"
    reads: bool = False  # a press whose id one of the bot's buttons reads


@st.composite
def interactions(draw: st.DrawFn, h: Harness, commands: list[app_commands.Command[Any, ..., Any]]) -> Example:
    kind = draw(st.sampled_from(["command", "command", "command", "unknown", "press", "press", "suggest"]))
    permissions = draw(st.sampled_from([PLAIN, PLAIN | MANAGE_GUILD]))
    if kind == "unknown":  # no command of the bot's has "-gone" in its name
        group = draw(st.sampled_from(["", "daily ", "event ", "/", "/pyramide-admin ", "/pyramide-admin event "]))
        name = draw(st.text(string.ascii_lowercase + "-_", min_size=1, max_size=27))
        return Example(h.command_payload(f"{group}{name}-gone", permissions=permissions), [], "unknown")
    if kind == "suggest":  # autocomplete of an option, typed anything, of a command the bot has or had
        command = draw(st.sampled_from([c for c in commands if any(p.autocomplete for p in c.parameters)]))
        option = draw(st.sampled_from([p for p in command.parameters if p.autocomplete]))
        path = path_of(command) + draw(st.sampled_from(["", "-gone"]))
        payload = h._base(4, OWNER, CHANNEL_ID, PLAIN)
        payload["data"] = h._command_data(path, {option.display_name: draw(texts(option.name))}, option.display_name)
        return Example(payload, [], "suggest")
    if kind == "press":
        assert h.bot is not None
        if draw(st.booleans()):  # under a prefix of ours, or any
            custom_id = draw(st.sampled_from(PREFIXES)) + draw(st.text(max_size=60))
        else:  # one a button of ours reads, with forged values
            template = draw(st.sampled_from(h.bot.button_templates))
            custom_id = draw(st.from_regex(template, fullmatch=True))
        custom_id = custom_id[:100] or "x"
        payload = h.press_payload(custom_id, forged_message(custom_id))
        return Example(payload, [], "press", reads=h.bot.reads_button(custom_id))
    command = draw(st.sampled_from(commands))
    given: dict[str, Any] = {}
    refused = []
    for option in options_of(command):
        if option.required or draw(st.booleans()):
            chosen = draw(value(option))
            given[option.name] = chosen
            limit = LIMITS.get(option.key)
            if limit is not None and not within(limit, chosen):
                refused.append(option.key)
    if "deals" in {o.key for o in options_of(command)} and "deals" not in given:  # an event would start
        given["deals"] = draw(numbers("deals"))
        refused.append("deals")
    return Example(h.command_payload(path_of(command), permissions=permissions, **given), refused, "command")


async def one(h: Harness, sent: Example, caplog: pytest.LogCaptureFixture) -> None:
    caplog.clear()
    before = await dump(h.db_path)
    answers = await asyncio.wait_for(h._dispatch(sent.payload), 30)
    token = sent.payload["token"]
    what = f"{sent.kind} {sent.payload['data']!r:.400}"
    assert token in h.hub.acknowledged, f"never answered in time: {what}"  # the hub refuses a late first answer
    assert errors(caplog) == [], what
    first = answers[0]
    if sent.kind == "suggest":
        assert (first.data or {}).get("type") == 8, what  # suggestions, an empty list at worst
    elif sent.refused:
        assert first.ephemeral, what
        assert first.content in {words(option) for option in sent.refused}, (what, first.content)
    elif sent.kind == "unknown":
        assert first.ephemeral and first.content == t("en", "command.gone"), what
    elif sent.kind == "press" and not sent.reads:
        assert first.ephemeral and first.content == t("en", "error.stale_board"), what
    else:
        return  # a value the command takes: answered, and stored as it may be
    assert changed(before, await dump(h.db_path)) == {}, what


def test_hostile_and_stale_interactions(tmp_path, workers: Workers, caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.new_event_loop()
    h = loop.run_until_complete(Harness(str(tmp_path / "fuzz.db"), workers=workers).start())
    assert h.bot is not None
    # The answers' recorder is a context variable the start set in its own task; each example runs in a task
    # of its own, copied from this context.
    internals.record_webhooks(RecordingAdapter(h.hub))
    commands = leaves(h.bot.tree)
    try:

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        )
        @given(st.data())
        def run(data: st.DataObject) -> None:
            sent = data.draw(interactions(h, commands))
            loop.run_until_complete(one(h, sent, caplog))

        with caplog.at_level(logging.INFO):
            run()
        assert h.hub.invalid == [], "\n".join(h.hub.invalid)
    finally:
        loop.run_until_complete(h.stop())
        loop.close()
