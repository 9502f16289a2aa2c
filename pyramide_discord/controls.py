"""The buttons of Pyramide's messages: their ``custom_id``s, built and read back here alone, and the
plain buttons that carry them. This is the game cog's lowest layer: every module that puts buttons on a
message builds them here; ``buttons`` (the ``DynamicItem``s registered on the bot, at the top) matches a
press with the templates below and reads it with the parsers below before handing it over. Discord
dispatches a press by its ``custom_id`` alone, so the button sent need not be the class that answers it.

An id already sent stays on its message for as long as the message lives: a change of this protocol
keeps reading the ids of earlier versions (a leaderboard page without its rule set is one), or answers
them as out of date, never with an error."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import discord

from .internals import PrebuiltView

TAP_WASTE, TAP_UNDER, TAP_STOCK = "w", "u", "s"
SPOT_CODES = {"waste": TAP_WASTE, "under": TAP_UNDER, "stock": TAP_STOCK}
CODE_SPOTS = {v: k for k, v in SPOT_CODES.items()}
SECONDARY = discord.ButtonStyle.secondary
MAX_ID = (1 << 63) - 1  # Discord snowflakes and our row ids fit a signed 64-bit integer

# A game message's actions besides its cards (a pyramid position 0-27, or a spot's code of SPOT_CODES).
UNDO, HINT, END, NEW, AGAIN = "undo", "hint", "end", "new", "again"
LAUNCH = "launch"  # a board's action that opens the Activity on the board's channel (LAUNCH_ACTIVITY)
DEALS = (NEW, AGAIN)  # a new deal, the same deal again: from a finished (or dead) board
BOARD_ACTIONS = frozenset({str(i) for i in range(28)} | set(CODE_SPOTS) | {UNDO, HINT, END, NEW, AGAIN, LAUNCH})

# What each kind of button's id looks like, for discord.py's DynamicItem (``template=``): a loose match
# where a malformed id must still reach its item (to be answered as out of date), a strict one elsewhere.
BOARD = r"pyr:(?P<rest>.{0,95})"
NEW_GAME = r"pyrnew:(?P<rest>.{0,90})"
SHARE = r"pyrshare:(?P<game>[0-9]{1,19})"
ANIMATION = r"pyranim:(?P<kind>line|mine):(?P<game>[0-9]{1,19})"
RACE_GIVE_UP = r"pyrrace:giveup:(?P<race>[0-9]{1,19})"
LEADERBOARD = r"pyrlb:(?P<period>today|week|all):(?P<page>[0-9]{1,6}):(?P<way>[pn])(?::(?P<rules>[A-Z0-9-]{1,8}))?"
RESET = r"pyrreset:(?P<choice>yes|no):(?P<player>[0-9]{1,19})"
FORGET = r"pyrforget:(?P<choice>yes|no):(?P<player>[0-9]{1,19})"
EVENT_PLAY = r"pye:play:(?P<event>[0-9]{1,19})"
EVENT_LINE = r"pye:line:(?P<event>[0-9]{1,19}):(?P<position>[0-9])"
ALL = (BOARD, NEW_GAME, SHARE, ANIMATION, RACE_GIVE_UP, LEADERBOARD, RESET, FORGET, EVENT_PLAY, EVENT_LINE)
TEMPLATES = tuple(re.compile(template) for template in ALL)
_BOARD_REST = re.compile(r"(?P<game>[0-9]{1,19}):(?P<version>[0-9]{1,9}):(?P<action>[a-z0-9]{1,6})")
_NEW_GAME_REST = re.compile(r"(?P<choice>replace|keep):(?P<game>[0-9]{1,19}):(?P<deal>[A-Z0-9-]{0,70})")


def ours(custom_id: str) -> bool:
    """Whether ``custom_id`` is one some button of ours reads (whatever it then makes of it)."""
    return any(template.fullmatch(custom_id) for template in TEMPLATES)


def row_id(digits: str) -> int:
    """An id read from a custom_id, capped where a database row's could be."""
    return min(int(digits), MAX_ID)


@dataclass(frozen=True)
class BoardPress:
    """A game message's button: the game, the board version it was drawn for, and the action."""

    game_id: int
    version: int
    action: str


def spot_of(action: str) -> int | str:
    """The card's pyramid position or the spot (``waste``, ``under``, ``stock``) a tap action names."""
    return int(action) if action.isdigit() else CODE_SPOTS[action]


def board_id(game_id: int, version: int, action: str) -> str:
    """The custom_id of a game message's button: ``pyr:<game>:<version>:<action>``."""
    return f"pyr:{game_id}:{version}:{action}"


def parse_board(rest: str) -> BoardPress | None:
    """A game message button's id after ``pyr:``; ``None`` for anything else (forged, malformed, too large)."""
    match = _BOARD_REST.fullmatch(rest)
    if match is None or match["action"] not in BOARD_ACTIONS:
        return None
    game_id = int(match["game"])
    return BoardPress(game_id, int(match["version"]), match["action"]) if 0 < game_id <= MAX_ID else None


@dataclass(frozen=True)
class NewGameChoice:
    """The answer to "a game is already running here": ``replace`` game ``game_id`` by ``deal`` (a code,
    or ``W-<rules>`` for a winnable deal still to be found), or ``keep`` it."""

    choice: str
    game_id: int
    deal: str


def parse_new_game_choice(rest: str) -> NewGameChoice | None:
    match = _NEW_GAME_REST.fullmatch(rest)
    if match is None or int(match["game"]) > MAX_ID:
        return None
    return NewGameChoice(match["choice"], int(match["game"]), match["deal"])


def _button(custom_id: str, label: str, style: discord.ButtonStyle, **options: Any) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=label[:80], style=style, custom_id=custom_id[:100], **options)


def board_button(
    game_id: int,
    version: int,
    action: str,
    *,
    label: str = "\u200b",
    style: discord.ButtonStyle = SECONDARY,
    disabled: bool = False,
    row: int | None = None,
) -> discord.ui.Button[Any]:
    return _button(board_id(game_id, version, action), label, style, disabled=disabled, row=row)


def new_game_choice(
    choice: str,
    game_id: int,
    deal: str,
    *,
    label: str = "\u200b",
    style: discord.ButtonStyle = SECONDARY,
    disabled: bool = False,
) -> discord.ui.Button[Any]:
    """End game ``game_id`` and deal ``deal`` (a code, or ``W-<rules>`` for a winnable deal), or keep it."""
    return _button(f"pyrnew:{choice}:{game_id}:{deal}", label, style, disabled=disabled)


def share_button(game_id: int, *, label: str = "\u200b") -> discord.ui.Button[Any]:
    return _button(f"pyrshare:{game_id}", label, SECONDARY)


def event_play_button(event_id: int, *, label: str = "\u200b") -> discord.ui.Button[Any]:
    """Under an event's announcement and a finished event deal: the presser's next deal of the event."""
    return _button(f"pye:play:{event_id}", label, discord.ButtonStyle.success)


def event_line_button(event_id: int, position: int, *, label: str = "\u200b") -> discord.ui.Button[Any]:
    """Under an ended event's results: how its deal ``position`` could have been won."""
    return _button(f"pye:line:{event_id}:{position}", label, SECONDARY)


def animation_button(kind: str, game_id: int, *, label: str = "\u200b") -> discord.ui.Button[Any]:
    """``kind``: ``line`` (a winning line of the deal) or ``mine`` (the player's own taps)."""
    return _button(f"pyranim:{kind}:{game_id}", label, SECONDARY)


def race_give_up(race_id: int, *, label: str = "\u200b") -> discord.ui.Button[Any]:
    return _button(f"pyrrace:giveup:{race_id}", label, discord.ButtonStyle.danger)


def leaderboard_page(
    period: str, page: int, way: str, rules: str = "-", *, label: str = "\u200b", disabled: bool = False
) -> discord.ui.Button[Any]:
    """Previous (``p``) or next (``n``) page; ``page`` is the page it leads to, ``rules`` the rule set (``-``)."""
    return _button(f"pyrlb:{period}:{page}:{way}:{rules}", label, SECONDARY, disabled=disabled)


def confirmation(
    prefix: str, choice: str, player: int, *, label: str = "\u200b", style: discord.ButtonStyle = SECONDARY
) -> discord.ui.Button[Any]:
    """A yes/no button of a confirmation (``pyrreset``, ``pyrforget``) about one player (0: everyone)."""
    return _button(f"{prefix}:{choice}:{player}", label, style)


class ButtonRows(PrebuiltView):
    """A board's buttons as Discord's JSON (see ``internals.PrebuiltView``)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[dict[str, Any]]] = [[] for _ in range(5)]

    def button(
        self,
        custom_id: str,
        label: str,
        style: discord.ButtonStyle,
        row: int,
        *,
        disabled: bool = False,
        emoji: dict[str, Any] | None = None,
    ) -> None:
        """A button; ``emoji`` is a component's emoji JSON (an application emoji's id and name)."""
        button: dict[str, Any] = {
            "type": 2,
            "style": style.value,
            "custom_id": custom_id,
            "label": label[:80],
            "disabled": disabled,
        }
        if emoji is not None:
            button["emoji"] = emoji
        self.rows[row].append(button)

    def to_components(self) -> list[dict[str, Any]]:
        return [{"type": 1, "components": row} for row in self.rows if row]

    def __len__(self) -> int:
        return sum(len(row) for row in self.rows)

    def __repr__(self) -> str:
        return f"<ButtonRows buttons={len(self)}>"
