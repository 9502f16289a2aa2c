"""The game message: board picture, status line and buttons, and what a press does."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import os
import re
import secrets
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import discord

from pyramide import STOCK, UNDER, WASTE, Card, Game, InvalidCard, InvalidCode, Rules
from pyramide import events as ev
from pyramide.codes import MAX_DEAL_NUMBER
from pyramide.i18n import card_name, describe, parse_card, t
from pyramide.manager import BrokenGame, GameExists, Live, StaleBoard
from pyramide.render import render_board
from pyramide.solver import first_winnable, wait_nodes
from pyramide.storage import ENDED

from .common import board_labels, language, mention
from .words import code_problem, ending_words, rules_words

if TYPE_CHECKING:
    from .client import PyramideBot

log = logging.getLogger(__name__)

SPOT_CODES = {WASTE: "w", UNDER: "u", STOCK: "s"}
CODE_SPOTS = {v: k for k, v in SPOT_CODES.items()}
BOARD_ACTIONS = {str(i) for i in range(28)} | set(CODE_SPOTS) | {"undo", "hint", "end", "new", "again"}
QUIET_EVENTS = (
    ev.Blocked,
    ev.NotInPlay,
    ev.UnknownCard,
    ev.NothingToDo,
    ev.NothingToUndo,
    ev.NoPassesLeft,
    ev.GameOver,
)
# One drawing thread per core: more would only fight over the GIL with the event loop.
RENDERERS = ThreadPoolExecutor(max_workers=os.cpu_count() or 2, thread_name_prefix="render")
WINNABLE_TRIES = 60
WINNABLE_BUDGET = 5  # times wait_nodes(rules), over all tries: a few seconds at worst, for the rarest rule sets


def bot_of(interaction: discord.Interaction) -> PyramideBot:
    return interaction.client  # type: ignore[return-value]


@contextlib.asynccontextmanager
async def guarded(interaction: discord.Interaction) -> AsyncIterator[None]:
    """Log a failure and tell the player that nothing was lost (every answered move is stored first)."""
    try:
        yield
    except Exception as error:
        log.error("interaction failed", exc_info=error)
        with contextlib.suppress(discord.HTTPException):
            await reply(interaction, t(language(interaction), "error.generic"))


# ------------------------------------------------------------------------- buttons
class BoardButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"pyr:(?P<game>[0-9]+):(?P<version>[0-9]+):(?P<action>[a-z0-9]+)",
):
    """A button of a game message. Its custom_id names the game, the board version it was drawn for,
    and the action, so it keeps working after a restart and is refused once the board moved on."""

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
            discord.ui.Button(
                label=label[:80], style=style, disabled=disabled, row=row, custom_id=f"pyr:{game_id}:{version}:{action}"
            )
        )
        self.game_id = game_id
        self.version = version
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> BoardButton:
        return cls(int(match["game"]), int(match["version"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        async with guarded(interaction):
            await press(interaction, self.game_id, self.version, self.action)


class NewGameChoice(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"pyrnew:(?P<choice>replace|keep):(?P<code>[A-Z0-9-]*)",
):
    """The answer to "a game is already running here": end it and deal ``code``, or keep it."""

    def __init__(
        self,
        choice: str,
        code: str,
        *,
        label: str = "\u200b",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=style, disabled=disabled, custom_id=f"pyrnew:{choice}:{code}")
        )
        self.choice = choice
        self.code = code

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> NewGameChoice:
        return cls(match["choice"], match["code"])

    async def callback(self, interaction: discord.Interaction) -> None:
        lang = language(interaction)
        async with guarded(interaction):
            if self.choice == "keep":
                await interaction.response.edit_message(content=t(lang, "error.kept"), view=None)
                return
            await start_game(interaction, Game.from_code(self.code), replace=True)


def _finished_view(live: Live, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(
        BoardButton(live.record.id, 0, "new", label=t(lang, "button.new_game"), style=discord.ButtonStyle.success)
    )
    view.add_item(
        BoardButton(live.record.id, 0, "again", label=t(lang, "button.same_deal"), style=discord.ButtonStyle.primary)
    )
    view.stop()
    return view


def board_view(live: Live, lang: str) -> discord.ui.View:
    """One button per playable card, the waste, the stock, then undo, hint and end."""
    game, record = live.game, live.record
    if game.is_over or record.status != "playing":
        return _finished_view(live, lang)
    view = discord.ui.View(timeout=None)
    version = game.version

    def button(action: str, label: str, style: discord.ButtonStyle, row: int, disabled: bool = False) -> None:
        view.add_item(BoardButton(record.id, version, action, label=label, style=style, disabled=disabled, row=row))

    cards = [s for s in game.selectable_spots() if isinstance(s, int)]
    for position, spot in enumerate(cards[:15]):
        card = game.pyramid[spot]
        assert card is not None
        style = discord.ButtonStyle.success if game.selected == spot else discord.ButtonStyle.secondary
        button(str(spot), card_name(card, lang), style, row=position // 5)
    row = (min(len(cards), 15) + 4) // 5
    top = game.card_at(WASTE)
    waste_style = discord.ButtonStyle.success if game.selected == WASTE else discord.ButtonStyle.primary
    button("w", card_name(top, lang) if top else "—", waste_style, row, disabled=top is None)
    under = game.card_at(UNDER)
    if under is not None:
        style = discord.ButtonStyle.success if game.selected == UNDER else discord.ButtonStyle.secondary
        button("u", t(lang, "button.under", card=card_name(under, lang)), style, row)
    if game.stock:
        button("s", t(lang, "button.draw", n=len(game.stock)), discord.ButtonStyle.primary, row)
    elif game.can_turn:
        button("s", t(lang, "button.turn"), discord.ButtonStyle.primary, row)
    else:
        button("s", t(lang, "button.no_stock"), discord.ButtonStyle.secondary, row, disabled=True)
    row += 1
    button("undo", t(lang, "button.undo"), discord.ButtonStyle.secondary, row, disabled=not game.can_undo)
    button("hint", t(lang, "button.hint"), discord.ButtonStyle.secondary, row)
    button("end", t(lang, "button.end"), discord.ButtonStyle.danger, row)
    view.stop()  # every press is dispatched through the dynamic items, never through this object
    return view


# ------------------------------------------------------------------------ messages
async def board_message(
    live: Live, lang: str, status: list[str], *, highlight: tuple = (), game: Game | None = None
) -> dict[str, Any]:
    """content, file and view of a game message; the picture is drawn in a worker thread."""
    snapshot = game or live.game
    banner = t(lang, "board.ended") if live.record.status == ENDED else None
    draw = functools.partial(render_board, snapshot, labels=board_labels(lang), highlight=highlight, banner=banner)
    png = await asyncio.get_running_loop().run_in_executor(RENDERERS, draw)
    lines = [t(lang, "board.title", player=mention(live.record.owner_id), code=live.record.code)]
    lines.extend(line for line in status if line)
    return {
        "content": "\n".join(lines),
        "file": discord.File(io.BytesIO(png), filename="pyramide.png"),
        "view": board_view(live, lang),
    }


async def post_board(
    interaction: discord.Interaction, live: Live, lang: str, status: list[str], *, highlight: tuple = ()
) -> None:
    """Answer a command with a fresh game message and make it the game's message."""
    message = await board_message(live, lang, status, highlight=highlight)
    old = live.record.message_id
    if interaction.response.is_done():
        sent = await interaction.followup.send(**message, wait=True)
    else:
        await interaction.response.send_message(**message)
        sent = await interaction.original_response()
    live.record.message_id = sent.id
    await bot_of(interaction).storage.set_message(live.record.id, sent.id)
    if old and old != sent.id and isinstance(interaction.channel, discord.abc.Messageable):
        # The old board's buttons would only answer "out of date": take them away.
        with contextlib.suppress(discord.HTTPException):
            await interaction.channel.get_partial_message(old).edit(view=None)  # type: ignore[union-attr]


async def update_board(
    interaction: discord.Interaction,
    live: Live,
    lang: str,
    status: list[str],
    *,
    highlight: tuple = (),
    game: Game | None = None,
) -> None:
    """Answer a button press by redrawing the message it belongs to (the old picture is replaced)."""
    message = await board_message(live, lang, status, highlight=highlight, game=game)
    file = message.pop("file")
    if interaction.response.is_done():
        await interaction.edit_original_response(attachments=[file], **message)
    else:
        await interaction.response.edit_message(attachments=[file], **message)


async def reply(interaction: discord.Interaction, content: str) -> None:
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=True)
    else:
        await interaction.response.send_message(content, ephemeral=True)


# --------------------------------------------------------------------------- flows
async def allowed(interaction: discord.Interaction, live: Live, lang: str) -> bool:
    """Only the game's starter plays it, unless the server lets anyone in the channel play."""
    if interaction.user.id == live.record.owner_id:
        return True
    settings = await bot_of(interaction).storage.settings(live.record.guild_id)
    if settings.anyone_can_play:
        return True
    await reply(interaction, t(lang, "error.not_your_game", owner=mention(live.record.owner_id)))
    return False


def may_end(interaction: discord.Interaction, live: Live) -> bool:
    perms = interaction.permissions
    return interaction.user.id == live.record.owner_id or perms.manage_messages


async def press(interaction: discord.Interaction, game_id: int, version: int, action: str) -> None:
    """A button of a game message was pressed."""
    lang = language(interaction)
    bot = bot_of(interaction)
    channel_id = interaction.channel_id
    if interaction.guild_id is None or channel_id is None:
        await reply(interaction, t(lang, "error.guild_only"))
        return
    if action not in BOARD_ACTIONS:
        await reply(interaction, t(lang, "error.stale_board"))
        return
    if action in ("new", "again"):
        await deal_again(interaction, game_id, action)
        return
    try:
        live = await bot.manager.live(channel_id)
    except BrokenGame:
        await reply(interaction, t(lang, "error.broken_game"))
        return
    if live is None or live.record.id != game_id:
        await reply(interaction, t(lang, "error.stale_board"))
        return
    if not await allowed(interaction, live, lang):
        return
    if action == "end":
        if not may_end(interaction, live):
            await reply(interaction, t(lang, "error.end_not_allowed", owner=mention(live.record.owner_id)))
            return
        await interaction.response.defer()
        await finish(interaction, live, lang, edit=True)
        return
    if action == "hint":
        await interaction.response.defer()
        await show_hint(interaction, live, lang, edit=True)
        return
    await play(interaction, live, lang, tap_action(action), game_id=game_id, version=version, edit=True)


def tap_action(action: str) -> Callable[[Game], ev.Event]:
    if action == "undo":
        return lambda game: game.undo()
    spot: int | str = int(action) if action.isdigit() else CODE_SPOTS[action]
    return lambda game: game.tap(spot)


async def play(
    interaction: discord.Interaction,
    live: Live,
    lang: str,
    action: Callable[[Game], ev.Event],
    *,
    edit: bool,
    game_id: int | None = None,
    version: int | None = None,
) -> None:
    """Apply a move under the channel's lock, store it, and answer with the new board.

    The answer is sent inside the lock, so boards reach Discord in the order the moves were made."""
    bot = bot_of(interaction)
    channel_id = live.record.channel_id
    lock = bot.manager.lock(channel_id)
    if lock.locked() and not interaction.response.is_done():
        await interaction.response.defer(thinking=not edit, ephemeral=False)
    async with lock:
        try:
            result = await bot.manager.apply(channel_id, action, game_id=game_id, version=version)
        except StaleBoard:
            await reply(interaction, t(lang, "error.stale_board"))
            return
        settings = await bot.storage.settings(live.record.guild_id)
        event = result.event
        if not edit and isinstance(event, QUIET_EVENTS):
            # Nothing on the board changed: answer the typed command privately, keep the channel quiet.
            if isinstance(event, ev.Blocked) and not settings.error_help:
                await reply(interaction, t(lang, "event.blocked_quiet"))
            else:
                await reply(interaction, describe(event, lang, True))
            return
        status = [describe(event, lang, settings.error_help)]
        if result.finished:
            status.extend(await ending_words(result.live, lang))
        if edit:
            await update_board(interaction, result.live, lang, status, game=result.snapshot)
        else:
            await post_board(interaction, result.live, lang, status)


async def finish(interaction: discord.Interaction, live: Live, lang: str, *, edit: bool) -> None:
    bot = bot_of(interaction)
    live = await bot.manager.end(live.record.channel_id)
    status = await ending_words(live, lang)
    if edit:
        await update_board(interaction, live, lang, status)
    else:
        await post_board(interaction, live, lang, status)


async def show_hint(interaction: discord.Interaction, live: Live, lang: str, *, edit: bool) -> None:
    bot = bot_of(interaction)
    suggestion = await bot.manager.add_hint(live)
    move = suggestion.move
    highlight: tuple = ()
    if move is None:
        status = t(lang, "hint.none")
    elif move.kind == "draw":
        status, highlight = t(lang, "hint.draw"), (STOCK,)
    elif move.kind == "turn":
        status, highlight = t(lang, "hint.turn"), (STOCK,)
    else:
        names = [card_name(c, lang) for c in (live.game.card_at(s) for s in move.spots) if c is not None]
        status, highlight = t(lang, "hint.cards", cards=" + ".join(names)), tuple(move.spots)
    lines = [status, t(lang, "hint.losing")] if suggestion.lost and move is not None else [status]
    if edit:
        await update_board(interaction, live, lang, lines, highlight=highlight)
    else:
        await post_board(interaction, live, lang, lines, highlight=highlight)


async def start_game(
    interaction: discord.Interaction,
    game: Game,
    *,
    replace: bool = False,
    daily: str | None = None,
    notes: tuple[str, ...] = (),
) -> None:
    """Deal ``game`` in this channel; a running game is never dropped silently."""
    lang = language(interaction)
    bot = bot_of(interaction)
    if interaction.guild_id is None or interaction.channel_id is None:
        await reply(interaction, t(lang, "error.guild_only"))
        return
    try:
        live = await bot.manager.start(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            owner_id=interaction.user.id,
            game=game,
            daily=daily,
            locale=lang,
            replace=replace and await _may_replace(interaction),
        )
    except GameExists as exists:
        await ask_replace(interaction, exists.live, game, lang)
        return
    status = [t(lang, "new.dealt"), *notes]
    if not game.rules.is_default:
        status.append(t(lang, "new.rules", rules=rules_words(game.rules, lang)))
    await post_board(interaction, live, lang, status)


async def _may_replace(interaction: discord.Interaction) -> bool:
    live = await bot_of(interaction).manager.live(interaction.channel_id or 0)
    return live is None or may_end(interaction, live)


async def ask_replace(interaction: discord.Interaction, running: Live, game: Game, lang: str) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(
        NewGameChoice(
            "replace",
            game.code,
            label=t(lang, "button.replace"),
            style=discord.ButtonStyle.danger,
            disabled=not may_end(interaction, running),
        )
    )
    view.add_item(NewGameChoice("keep", "", label=t(lang, "button.keep"), style=discord.ButtonStyle.secondary))
    view.stop()
    text = t(lang, "error.game_exists")
    if not may_end(interaction, running):
        text += "\n" + t(lang, "error.end_not_allowed", owner=mention(running.record.owner_id))
    if interaction.response.is_done():
        await interaction.followup.send(text, view=view, ephemeral=True)
    else:
        await interaction.response.send_message(text, view=view, ephemeral=True)


async def deal_again(interaction: discord.Interaction, game_id: int, action: str) -> None:
    """ "New game" or "Same deal again" under a finished board."""
    record = await bot_of(interaction).manager.record(game_id)
    lang = language(interaction)
    if record is None:
        await reply(interaction, t(lang, "error.stale_board"))
        return
    rules = Rules.from_token(record.rules)
    game = Game.from_code(record.code) if action == "again" else Game.new(rules)
    await start_game(interaction, game, daily=record.daily if action == "again" else None)


async def new_game(
    interaction: discord.Interaction, *, code: str | None, rules: dict[str, Any], winnable: bool
) -> None:
    """/pyramide new: a random deal, the deal of a code, or a winnable deal."""
    lang = language(interaction)
    notes: list[str] = []
    if code:
        try:
            base = Game.from_code(code)
        except InvalidCode as error:
            await reply(
                interaction, t(lang, "error.invalid_code", code=code.strip()[:60], problem=code_problem(error, lang))
            )
            return
        game = Game(base.deal, _merge(base.rules, rules))
    else:
        chosen = _merge(Rules(), rules)
        game = Game.new(chosen)
        if winnable:
            await interaction.response.defer(thinking=True)
            start = secrets.randbelow(MAX_DEAL_NUMBER + 1)
            limit = wait_nodes(chosen)
            pick = await asyncio.to_thread(
                first_winnable, start, chosen, limit, WINNABLE_TRIES, WINNABLE_BUDGET * limit
            )
            if pick is None:
                notes.append(t(lang, "error.winnable_not_found"))
            else:
                game = Game.from_number(pick.number, chosen)
    await start_game(interaction, game, notes=tuple(notes))


def _merge(base: Rules, options: dict[str, Any]) -> Rules:
    fields = {name: getattr(base, name) for name in ("strict_win", "pass_limit", "draw_with_waste", "pair_with_cover")}
    for name, value in options.items():
        if value is not None:
            fields[name] = None if name == "pass_limit" and value < 0 else value
    return Rules(**fields)


async def command_move(interaction: discord.Interaction, action: Callable[[Game], ev.Event]) -> None:
    """/pyramide tap, draw, undo: the same moves as the buttons, answered with a fresh board."""
    lang = language(interaction)
    live = await _live_or_reply(interaction, lang)
    if live is None or not await allowed(interaction, live, lang):
        return
    await play(interaction, live, lang, action, edit=False)


def card_action(text: str, lang: str) -> Callable[[Game], ev.Event]:
    if text in (WASTE, UNDER):
        return lambda game: game.tap(text)
    try:
        card: Card | str = parse_card(text, lang)
    except InvalidCard:
        card = text
    return lambda game: game.tap_card(card)


async def _live_or_reply(interaction: discord.Interaction, lang: str) -> Live | None:
    if interaction.guild_id is None or interaction.channel_id is None:
        await reply(interaction, t(lang, "error.guild_only"))
        return None
    try:
        live = await bot_of(interaction).manager.live(interaction.channel_id)
    except BrokenGame:
        await reply(interaction, t(lang, "error.broken_game"))
        return None
    if live is None:
        await reply(interaction, t(lang, "error.no_game"))
    return live


async def command_end(interaction: discord.Interaction) -> None:
    lang = language(interaction)
    live = await _live_or_reply(interaction, lang)
    if live is None:
        return
    if not may_end(interaction, live):
        await reply(interaction, t(lang, "error.end_not_allowed", owner=mention(live.record.owner_id)))
        return
    await interaction.response.defer(thinking=True)
    await finish(interaction, live, lang, edit=False)


async def command_hint(interaction: discord.Interaction) -> None:
    lang = language(interaction)
    live = await _live_or_reply(interaction, lang)
    if live is None or not await allowed(interaction, live, lang):
        return
    await interaction.response.defer(thinking=True)
    await show_hint(interaction, live, lang, edit=False)


async def command_code(interaction: discord.Interaction) -> None:
    lang = language(interaction)
    live = await _live_or_reply(interaction, lang)
    if live is not None:
        await interaction.response.send_message(t(lang, "code.show", code=live.record.code))


async def card_choices(interaction: discord.Interaction, current: str) -> list[tuple[str, str]]:
    """Autocomplete for /pyramide tap: the playable cards, in the player's way of naming them."""
    lang = language(interaction)
    live = await bot_of(interaction).manager.live(interaction.channel_id or 0)
    if live is None:
        return []
    game = live.game
    choices = []
    for spot in game.selectable_spots():
        card = game.card_at(spot)
        if card is None:
            continue
        name = card_name(card, lang)
        if isinstance(spot, int):
            choices.append((name, card.ascii))
        else:
            choices.append((t(lang, "button.under", card=name) if spot == UNDER else name, spot))
    typed = current.strip().lower()
    return [c for c in choices if typed in c[0].lower() or typed in c[1].lower()][:25]
