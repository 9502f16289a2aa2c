"""The buttons of the game's messages, as ``DynamicButton``s (discord.py's ``DynamicItem``): their
``custom_id`` carries what a press needs after a restart. Each callback hands the press over
(``cogs.pyramide.adapters``, ``dealing``)."""

from __future__ import annotations

import re
from typing import Any

import discord

from pyramide import Game, InvalidCode, Rules
from pyramide.i18n import t
from pyramide.rules import InvalidRules
from pyramide_discord import controls, finders
from pyramide_discord.controls import row_id
from pyramide_discord.host import DynamicButton

from ..answer import Answer, answering
from . import adapters, animation, daily, dealing, race, records


class BoardButton(DynamicButton, template=controls.BOARD):
    """A button of a game message. Its custom_id ``pyr:<game>:<version>:<action>`` names the game, the
    board version it was drawn for and the action, so it keeps working after a restart. Any other
    ``pyr:`` id (forged, malformed, too large) is answered as out of date."""

    def __init__(
        self,
        game_id: int,
        version: int,
        action: str,
        *,
        label: str = "\u200b",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        super().__init__(
            controls.board_button(game_id, version, action, label=label, style=style, disabled=disabled, row=row)
        )
        self.game_id = game_id
        self.version = version
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BoardButton:
        press = controls.parse_board(match["rest"])
        return cls(press.game_id, press.version, press.action) if press else cls(0, 0, "")

    async def callback(self, interaction: discord.Interaction) -> None:
        async with answering(interaction) as answer:
            if not self.game_id:
                await answer.say(t(answer.lang, "error.stale_board"))
                return
            await adapters.press(answer, self.game_id, self.version, self.action)


class NewGameChoice(DynamicButton, template=controls.NEW_GAME):
    """The answer to "a game is already running here": end game ``game_id`` and deal, or keep it.

    ``deal`` is a deal code, or ``W-<rules token>`` for a winnable deal still to be found."""

    def __init__(
        self,
        choice: str,
        game_id: int,
        deal: str,
        *,
        label: str = "\u200b",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            controls.new_game_choice(choice, game_id, deal, label=label, style=style, disabled=disabled)
        )
        self.choice = choice
        self.game_id = game_id
        self.deal = deal

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> NewGameChoice:
        found = controls.parse_new_game_choice(match["rest"])
        return cls(found.choice, found.game_id, found.deal) if found else cls("", 0, "")

    async def callback(self, interaction: discord.Interaction) -> None:
        async with answering(interaction) as answer:
            lang = answer.lang
            if self.choice == "keep":
                await answer.update(content=t(lang, "error.kept"), view=None)
                return
            try:
                rules = Rules.from_token(self.deal[2:]) if self.deal.startswith("W-") else None
                game = Game.from_code(self.deal) if rules is None else None
            except (InvalidCode, InvalidRules):
                rules = game = None
            if self.choice != "replace" or (rules is None and game is None):
                await answer.update(content=t(lang, "error.stale_board"), view=None)
                return
            notes: tuple[str, ...] = ()
            if rules is not None:  # a winnable deal is found once the choice is made
                await answer.defer()
                game, notes = await finders.winnable_game(answer.bot.solver, rules, lang)
            assert game is not None
            await dealing.start_game(answer, game, replace_id=self.game_id, notes=notes)


class ShareButton(DynamicButton, template=controls.SHARE):
    """Posts a finished counted daily's spoiler-free share line in the channel the thread belongs to."""

    def __init__(self, game_id: int, *, label: str = "\u200b") -> None:
        super().__init__(
            controls.share_button(game_id, label=label)
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ShareButton:
        return cls(row_id(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async with answering(interaction) as answer:
            await daily.share_daily(answer, self.game_id)


class AnimationButton(DynamicButton, template=controls.ANIMATION):
    """Under a finished board: "Show a winning line" (``line``) or "Replay my game" (``mine``)."""

    def __init__(self, kind: str, game_id: int, *, label: str = "\u200b") -> None:
        super().__init__(
            controls.animation_button(kind, game_id, label=label)
        )
        self.kind = kind
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> AnimationButton:
        return cls(match["kind"], row_id(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async with answering(interaction) as answer:
            await animation.show_animation(answer, self.game_id, self.kind)


class RaceGiveUp(DynamicButton, template=controls.RACE_GIVE_UP):
    """Under a race's scoreboard: the presser gives up their own game in the race."""

    def __init__(self, race_id: int, *, label: str = "\u200b") -> None:
        super().__init__(
            controls.race_give_up(race_id, label=label)
        )
        self.race_id = race_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RaceGiveUp:
        return cls(row_id(match["race"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async with answering(interaction) as answer:
            await race.give_up(answer, self.race_id)


class LeaderboardPage(DynamicButton, template=controls.LEADERBOARD):
    """Previous (``p``) or next (``n``) page of a leaderboard; ``page`` is the page it leads to, ``rules``
    the rule set it shows (``-``: all)."""

    def __init__(
        self, period: str, page: int, way: str, rules: str = "-", *, label: str = "\u200b", disabled: bool = False
    ) -> None:
        super().__init__(
            controls.leaderboard_page(period, page, way, rules, label=label, disabled=disabled)
        )
        self.period = period
        self.page = page
        self.rules = None if rules == "-" else rules

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LeaderboardPage:
        return cls(match["period"], int(match["page"]), match["way"], match["rules"] or "-")

    async def callback(self, interaction: discord.Interaction) -> None:
        async with answering(interaction) as answer:
            embed, view = await records.leaderboard_page(answer, self.period, self.page, self.rules)
            await answer.update(embed=embed, view=view)


class _Confirmation(
    DynamicButton,
    template=r"pyrconfirm:(?P<choice>yes|no):(?P<player>[0-9]{1,19})",
):
    """A yes/no button of a confirmation about one player (0: everyone); subclasses name their prefix
    (in their template too) and what the answer does."""

    prefix = "pyrconfirm"

    def __init__(
        self,
        choice: str,
        player: int,
        *,
        label: str = "\u200b",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        super().__init__(controls.confirmation(self.prefix, choice, player, label=label, style=style))
        self.choice = choice
        self.player = player

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> _Confirmation:
        return cls(match["choice"], row_id(match["player"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        async with answering(interaction) as answer:
            await self.answer(answer)

    async def answer(self, answer: Answer) -> None:
        raise NotImplementedError


class ResetChoice(_Confirmation, template=controls.RESET):
    """The answer to /pyramide-admin reset-stats."""

    prefix = "pyrreset"

    async def answer(self, answer: Answer) -> None:
        await records.confirm_reset(answer, self.choice, self.player)


class ForgetChoice(_Confirmation, template=controls.FORGET):
    """The answer to /pyramide forget-me: delete the player's data, or not."""

    prefix = "pyrforget"

    async def answer(self, answer: Answer) -> None:
        await records.confirm_forget(answer, self.choice, self.player)
