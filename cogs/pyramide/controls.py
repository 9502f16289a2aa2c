"""The buttons of Pyramide's messages as they are sent: their ``custom_id``s and the plain buttons that
carry them. This is the game cog's lowest layer: every module that puts buttons on a message builds them
here, and ``buttons`` (the ``DynamicItem``s registered on the bot, at the top) reads the same ids back
when one is pressed and hands the press over. Discord dispatches a press by its ``custom_id`` alone, so
the button sent need not be the class that answers it."""

from __future__ import annotations

from typing import Any

import discord

from ..internals import PrebuiltView

SPOT_CODES = {"waste": "w", "under": "u", "stock": "s"}
CODE_SPOTS = {v: k for k, v in SPOT_CODES.items()}
SECONDARY = discord.ButtonStyle.secondary
LAUNCH = "launch"  # a board's action that opens the Activity on the board's channel (LAUNCH_ACTIVITY)


def board_id(game_id: int, version: int, action: str) -> str:
    """The custom_id of a game message's button: ``pyr:<game>:<version>:<action>``."""
    return f"pyr:{game_id}:{version}:{action}"


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
    """A board's buttons as Discord's JSON (see ``cogs.internals.PrebuiltView``)."""

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
