"""What each press and command does. Every flow goes through ``GameManager.turn``: the channel's lock
is taken, the game id, the board version and the player's permission are checked against the game
actually in play, the action is applied and stored, and the answer is sent, all inside that lock."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from pyramide import STOCK, UNDER, WASTE, Card, Game, InvalidCard, InvalidCode, Rules
from pyramide import events as ev
from pyramide.codes import MAX_DEAL_NUMBER
from pyramide.i18n import card_name, describe, parse_card, t
from pyramide.manager import Live, Turn
from pyramide.solving import SolverBusy, SolverService
from pyramide.storage import ABANDONED, ENDED, PLAYING

from ..answer import DISCORD_ERRORS, Answer, answering, describe_failure, log_refusal, lost
from ..common import bot_of, language, mention, missing_permission
from . import buttons
from .board import post_board, post_board_to, show, update_board
from .places import of_this_place, place_of, settings_key
from .words import code_problem, ending_words, rules_words

log = logging.getLogger(__name__)

# How /pyramide new finds a deal of its own kind (a winnable one, or one of a difficulty), with notes.
Finder = Callable[[SolverService, Rules, str], Awaitable[tuple[Game, tuple[str, ...]]]]
QUIET_EVENTS = (
    ev.Blocked,
    ev.NotInPlay,
    ev.UnknownCard,
    ev.NothingToDo,
    ev.NothingToUndo,
    ev.NoPassesLeft,
    ev.GameOver,
)


async def allowed(answer: Answer, live: Live, lang: str) -> bool:
    """Only the game's starter plays it, unless the server (outside servers: the channel's last
    ``/pyramide new``) lets anyone in the channel play."""
    interaction = answer.interaction
    if interaction.user.id == live.record.owner_id:
        return True
    settings = await bot_of(interaction).guild_settings(settings_key(live.record))
    if settings.anyone_can_play:
        return True
    place = place_of(interaction)
    key = "error.not_your_game" if place is None or place.threads else "error.not_your_game_here"
    await answer.say(t(lang, key, owner=mention(live.record.owner_id)))
    return False


def may_end(interaction: discord.Interaction, live: Live) -> bool:
    perms = interaction.permissions
    return interaction.user.id == live.record.owner_id or perms.manage_messages


async def idle_minutes(interaction: discord.Interaction, live: Live) -> float:
    """How long the game has gone without a move, in minutes."""
    bot = bot_of(interaction)
    last = await bot.storage.last_action_at(live.record.id) or live.record.created_at
    return (bot.clock() - last) / 60


async def may_replace(interaction: discord.Interaction, live: Live) -> tuple[bool, str]:
    """Whether this player may end ``live`` to deal a new game, and how it is recorded: its starter or a
    moderator ends it; anyone in the channel may replace it once it sat idle past the server's limit
    (recorded as abandoned: played, not won)."""
    if may_end(interaction, live):
        return True, ENDED
    settings = await bot_of(interaction).guild_settings(settings_key(live.record))
    if await idle_minutes(interaction, live) >= settings.idle_minutes:
        return True, ABANDONED
    return False, ENDED


def _place(answer: Answer) -> tuple[int, int] | None:
    """The guild id games here are stored under (``OUTSIDE_SERVERS`` in DMs) and the channel's id."""
    place = place_of(answer.interaction)
    return None if place is None else (place.stats_id, place.channel_id)


async def _current_or_redraw(answer: Answer, turn: Turn, game_id: int, version: int, lang: str) -> Live | None:
    """The game a button press may act on, or ``None`` once the press has been answered otherwise:
    a press on the game's own message drawn for an older version redraws that message (a lost
    answer must never leave a board that cannot be played); a press on any other message is out of date."""
    message = answer.interaction.message
    message_id = message.id if message else None
    live = turn.live
    if live is None or live.record.id != game_id:
        if turn.broken is not None and turn.broken.record.id == game_id:
            await answer.say(t(lang, "error.broken_game"))
        elif not await _redraw_finished(answer, turn.channel_id, game_id, message_id, lang):
            await answer.say(t(lang, "error.stale_board"))
        return None
    if version == live.game.version:
        return live
    if message_id is not None and message_id == live.record.message_id:
        await update_board(answer, live, lang, [t(lang, "board.refreshed")], game=live.game.copy())
    else:
        await answer.say(t(lang, "error.stale_board"))
    return None


async def _redraw_finished(answer: Answer, channel_id: int, game_id: int, message_id: int | None, lang: str) -> bool:
    """A press on the last message of a finished game shows it finished, with its buttons."""
    record = await bot_of(answer.interaction).manager.record(game_id)
    if (
        record is None
        or record.status == PLAYING
        or record.channel_id != channel_id
        or message_id is None
        or record.message_id != message_id
    ):
        return False
    try:
        game = Game.replay(record.code, record.actions)
    except (ValueError, TypeError):
        return False
    live = Live(record, game)
    status = await ending_words(answer, live, lang)
    await update_board(answer, live, lang, status, game=game)
    return True


async def press(answer: Answer, game_id: int, version: int, action: str) -> None:
    """A button of a game message was pressed."""
    lang = language(answer.interaction)
    place = _place(answer)
    if place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    if action in ("new", "again"):
        await deal_again(answer, game_id, action)
        return
    if action == "hint":
        await show_hint(answer, lang, game_id=game_id, version=version)
        return
    manager = bot_of(answer.interaction).manager
    async with manager.turn(place[1]) as turn:
        live = await _current_or_redraw(answer, turn, game_id, version, lang)
        if live is None or not await allowed(answer, live, lang):
            return
        if action == "end":
            await finish(answer, turn, lang, edit=True)
            return
        await play(answer, turn, lang, tap_action(action), edit=True)


def tap_action(action: str) -> Callable[[Game], ev.Event]:
    if action == "undo":
        return lambda game: game.undo()
    spot: int | str = int(action) if action.isdigit() else buttons.CODE_SPOTS[action]
    return lambda game: game.tap(spot)


async def play(answer: Answer, turn: Turn, lang: str, action: Callable[[Game], ev.Event], *, edit: bool) -> None:
    """Apply a move to the turn's game, store it, and answer with the new board (inside the lock)."""
    bot = bot_of(answer.interaction)
    assert turn.live is not None
    guild_id = settings_key(turn.live.record)
    result = await turn.apply(action, request=answer.interaction.id)
    event = result.event
    quiet = not edit and isinstance(event, QUIET_EVENTS)
    answer.private = quiet
    settings = await bot.guild_settings(guild_id)
    if quiet and answer.deferred_private is not False:
        # Nothing on the board changed: answer the typed command privately, keep the channel quiet.
        if isinstance(event, ev.Blocked) and not settings.error_help:
            await answer.say(t(lang, "event.blocked_quiet"))
        else:
            await answer.say(describe(event, lang, True))
        return
    status = [describe(event, lang, settings.error_help or quiet)]
    if result.finished:
        status.extend(await ending_words(answer, result.live, lang))
    await show(answer, result.live, lang, status, edit=edit, game=result.snapshot)


async def finish(answer: Answer, turn: Turn, lang: str, *, edit: bool) -> None:
    """End the turn's game (its starter, or anyone with Manage Messages)."""
    assert turn.live is not None
    if not may_end(answer.interaction, turn.live):
        await answer.say(t(lang, "error.end_not_allowed", owner=mention(turn.live.record.owner_id)))
        return
    answer.private = False
    live = await turn.end()
    status = await ending_words(answer, live, lang)
    await show(answer, live, lang, status, edit=edit)


async def show_hint(answer: Answer, lang: str, *, game_id: int | None = None, version: int | None = None) -> None:
    """Hint: checked and snapshotted inside the lock, worked out outside it (other moves go on), and
    answered inside it again only if the board is still where the hint was asked."""
    interaction = answer.interaction
    bot = bot_of(interaction)
    place = _place(answer)
    if place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    channel_id = place[1]
    edit = game_id is not None
    async with bot.manager.turn(channel_id) as turn:
        if edit:
            assert game_id is not None and version is not None
            live = await _current_or_redraw(answer, turn, game_id, version, lang)
        else:
            live = await _live_or_say(answer, turn, lang)
        if live is None or not await allowed(answer, live, lang):
            return
        snapshot = live.game.copy()
    answer.private = False
    await answer.defer()
    try:
        suggestion = await bot.manager.hint(live, snapshot, request=answer.interaction.id)
    except SolverBusy:
        await answer.say(t(lang, "error.solver_busy"))
        return
    async with bot.manager.turn(channel_id) as turn:
        now = turn.live
        if now is None or now.record.id != live.record.id or now.game.version != snapshot.version:
            if now is not None and now.record.id == live.record.id:
                await show(answer, now, lang, [t(lang, "hint.moved_on")], edit=edit, game=now.game.copy())
            else:
                await answer.say(t(lang, "hint.moved_on"))
            return
        status, highlight, dead = hint_words(suggestion, snapshot, lang)
        await show(answer, now, lang, status, edit=edit, highlight=highlight, game=snapshot, dead=dead)


def hint_words(suggestion: Any, game: Game, lang: str) -> tuple[list[str], tuple, bool]:
    """The hint's line, the spots to highlight, and whether no card can be removed any more."""
    move = suggestion.move
    highlight: tuple = ()
    if suggestion.lost and suggestion.removable is not None and suggestion.removable <= game.removed:
        # Formally the game goes on while cards can be drawn (the rule texts), but the solver proved that
        # nothing more can ever be removed: say so, and offer a new deal.
        return [t(lang, "hint.dead", count=game.removed)], (), True
    if move is None:
        status = t(lang, "hint.none")
    elif move.kind == "draw":
        status, highlight = t(lang, "hint.draw"), (STOCK,)
    elif move.kind == "turn":
        status, highlight = t(lang, "hint.turn"), (STOCK,)
    else:
        names = [card_name(c, lang) for c in (game.card_at(s) for s in move.spots) if c is not None]
        status, highlight = t(lang, "hint.cards", cards=" + ".join(names)), tuple(move.spots)
    lines = [status, t(lang, "hint.losing")] if suggestion.lost and move is not None else [status]
    return lines, highlight, False


async def start_game(
    answer: Answer,
    game: Game,
    *,
    replace_id: int | None = None,
    daily: str | None = None,
    notes: tuple[str, ...] = (),
    thread: discord.Thread | None = None,
    anyone: bool | None = None,
) -> None:
    """Deal ``game`` in this channel. A running game is never dropped silently: the player is asked,
    and "End it and deal" (``replace_id``) ends exactly the game it was asked about. Outside servers
    ``anyone`` (``/pyramide new``'s option) decides who may play from now on in this channel."""
    interaction = answer.interaction
    lang = language(interaction)
    bot = bot_of(interaction)
    place = _place(answer)
    if place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    async with bot.manager.turn(thread.id if thread is not None else place[1]) as turn:
        running = turn.live
        if replace_id is not None:
            # The prompt is used once: its buttons go, whatever happens next.
            if running is None or running.record.id != replace_id:
                await answer.update(content=t(lang, "error.prompt_used"), view=None)
                return
            allowed_to_end, ending = await may_replace(interaction, running)
            if not allowed_to_end:
                await answer.update(
                    content=t(lang, "error.end_not_allowed", owner=mention(running.record.owner_id)), view=None
                )
                return
            await answer.update(content=t(lang, "new.replacing"), view=None)
        elif running is not None:
            await ask_replace(answer, running, game, lang)
            return
        else:
            ending = ENDED
        if daily is None:
            from .daily import peeks_at_the_daily  # the daily flows build on these

            if await peeks_at_the_daily(interaction, game):
                await _refuse(answer, replace_id, t(lang, "error.daily_peek"))
                return
        answer.private = False
        live = await turn.start(
            guild_id=place[0], owner_id=interaction.user.id, game=game, daily=daily, locale=lang, ending=ending
        )
        await bot.storage.remember_name(interaction.user.id, interaction.user.display_name)
        if anyone is not None:
            await choose_who_plays(answer, anyone)
        status = [t(lang, "new.dealt"), *notes]
        if turn.broken is not None:
            status.insert(0, t(lang, "new.broken_closed"))
        if not game.rules.is_default:
            status.append(t(lang, "new.rules", rules=rules_words(game.rules, lang)))
        if thread is not None:
            await post_in_thread(answer, thread, live, lang, status)
            return
        try:
            await post_board(answer, live, lang, status, new=True)
        except DISCORD_ERRORS as error:
            turn.live = None  # taken back by post_board: the channel is free
            if lost(error):
                raise
            log.error("board of game %s refused by Discord: %s", live.record.id, describe_failure(error))
            await answer.rescue(t(lang, "error.board_refused"))


async def choose_who_plays(answer: Answer, anyone: bool) -> None:
    """Outside servers, the channel's own setting: whether anyone in it may play its game."""
    place = place_of(answer.interaction)
    if place is None or place.in_server:
        return
    bot = bot_of(answer.interaction)
    current = await bot.guild_settings(place.channel_id)
    if current.anyone_can_play != anyone:
        await bot.save_guild_settings(place.channel_id, dataclasses.replace(current, anyone_can_play=anyone))


async def open_thread(answer: Answer, lang: str) -> discord.Thread | None:
    """A public thread of the player's own for a new game (a thread is a channel: one engine each);
    ``None`` after telling the player why not (the permission the bot lacks, by its name)."""
    interaction = answer.interaction
    channel = interaction.channel
    missing = missing_permission(interaction, "create_public_threads", "send_messages_in_threads", "attach_files")
    if missing is not None:
        await answer.say(t(lang, "error.thread_permission", permission=missing))
        return None
    assert isinstance(channel, discord.TextChannel)
    name = t(lang, "new.thread_name", player=interaction.user.display_name)[:100]
    try:
        thread = await channel.create_thread(
            name=name, type=discord.ChannelType.public_thread, auto_archive_duration=1440
        )
    except DISCORD_ERRORS as error:
        log_refusal(f"thread in {channel.id}", error)
        await answer.say(t(lang, "error.thread_permission", permission="Create Public Threads"))
        return None
    with contextlib.suppress(discord.HTTPException):
        await thread.add_user(interaction.user)
    return thread


async def post_in_thread(answer: Answer, thread: discord.Thread, live: Live, lang: str, status: list[str]) -> None:
    """The board goes into the new thread; the command is answered with a link to it. If the board
    cannot be posted there, the thread and the game nobody saw go away."""
    if not await post_board_to(thread, answer, live, lang, status, made=True):
        await answer.say(t(lang, "error.thread_permission", permission="Attach Files / Send Messages in Threads"))
        return
    await answer.announce(
        content=t(lang, "new.in_thread", player=mention(live.record.owner_id), thread=f"<#{thread.id}>")
    )


async def _refuse(answer: Answer, prompt: int | None, text: str) -> None:
    if prompt is not None:
        await answer.update(content=text, view=None)
    else:
        await answer.say(text)


async def ask_replace(answer: Answer, running: Live, game: Game, lang: str, *, winnable: bool = False) -> None:
    interaction = answer.interaction
    view = discord.ui.View(timeout=None)
    deal = f"W-{game.rules.token}" if winnable else game.code
    allowed_to_end, ending = await may_replace(interaction, running)
    view.add_item(
        buttons.NewGameChoice(
            "replace",
            running.record.id,
            deal,
            label=t(lang, "button.replace"),
            style=discord.ButtonStyle.danger,
            disabled=not allowed_to_end,
        )
    )
    view.add_item(
        buttons.NewGameChoice(
            "keep", running.record.id, "", label=t(lang, "button.keep"), style=discord.ButtonStyle.secondary
        )
    )
    view.stop()
    text = t(lang, "error.game_exists")
    settings = await bot_of(interaction).guild_settings(settings_key(running.record))
    if ending == ABANDONED:
        text += "\n" + t(lang, "error.idle_game", minutes=settings.idle_minutes)
    elif not allowed_to_end:
        text += "\n" + t(lang, "error.end_not_allowed", owner=mention(running.record.owner_id))
        text += "\n" + t(lang, "error.idle_later", minutes=settings.idle_minutes)
    await answer.say(text, view=view)


async def deal_again(answer: Answer, game_id: int, action: str) -> None:
    """ "New game" or "Same deal again" under a finished board: only for a game of this server and channel."""
    interaction = answer.interaction
    record = await bot_of(interaction).manager.record(game_id)
    lang = language(interaction)
    if record is None or not of_this_place(record, interaction):
        await answer.say(t(lang, "error.stale_board"))
        return
    rules = Rules.from_token(record.rules)
    game = Game.from_code(record.code) if action == "again" else Game.new(rules)
    # A daily's deal again is an ordinary game: it never counts. From a board where nothing can be
    # removed any more (the game still running), the choice ends that game.
    await start_game(answer, game, replace_id=record.id if record.status == PLAYING else None)


async def new_game(
    interaction: discord.Interaction,
    *,
    code: str | None,
    rules: dict[str, Any],
    winnable: bool,
    thread: bool | None = None,
    finder: Finder | None = None,
    anyone: bool | None = None,
) -> None:
    """/pyramide new: a random deal, the deal of a code, or a winnable deal (found by ``finder`` when
    given, e.g. one of a difficulty); in a thread of its own with ``thread`` (or the server's setting),
    so a busy channel stays free. Where no thread can be made (a DM, a group DM, a server without the
    bot) the game is dealt in place, with a note if one was asked."""
    lang = language(interaction)
    where = place_of(interaction)
    # Outside servers nobody sets who may play: each /pyramide new does (only its starter by default).
    anyone = None if where is None or where.in_server else bool(anyone)
    async with answering(interaction) as answer:
        game: Game | None = None
        notes: tuple[str, ...] = ()
        if code:
            game = await deal_of_code(answer, code, rules, lang)
            if game is None:
                return
        if where is not None and not where.threads:
            if thread:
                notes = (t(lang, "new.no_thread_here"),)
            thread = False
        if thread is None and interaction.guild_id is not None:
            thread = (await bot_of(interaction).guild_settings(interaction.guild_id)).new_in_thread
        room: discord.Thread | None = None
        if thread and isinstance(interaction.channel, discord.TextChannel):
            room = await open_thread(answer, lang)
            if room is None:
                return
        chosen = game.rules if game is not None else Rules().with_options(**options(rules))
        if game is not None or not winnable:
            await start_game(answer, game or Game.new(chosen), thread=room, notes=notes, anyone=anyone)
            return
        place = _place(answer)
        manager = bot_of(interaction).manager
        solver = bot_of(interaction).solver
        if place is not None and room is None:
            running = await manager.snapshot(place[1])
            if running is not None:
                # Ask before any public deferral: the prompt is the player's alone.
                if finder is not None:  # a deal of its own kind is found first, then named by its code
                    await ask_replace(answer, running, (await finder(solver, chosen, lang))[0], lang)
                    return
                await ask_replace(answer, running, Game.new(chosen), lang, winnable=True)
                return
        if not solver.has_room("winnable"):
            raise SolverBusy()  # said privately, before the public deferral
        answer.private = False
        await answer.defer()
        found, found_notes = await (finder or winnable_game)(solver, chosen, lang)
        await start_game(answer, found, notes=notes + found_notes, thread=room, anyone=anyone)


async def deal_of_code(answer: Answer, code: str, rules: dict[str, Any], lang: str) -> Game | None:
    """The deal of a pasted code under the rule options given, or ``None`` after saying what is wrong."""
    try:
        base = Game.from_code(code)
    except InvalidCode as error:
        problem = code_problem(error, lang)
        await answer.say(t(lang, "error.invalid_code", code=code.strip()[:60], problem=problem))
        return None
    return Game(base.deal, base.rules.with_options(**options(rules)))


def options(given: dict[str, Any]) -> dict[str, Any]:
    """The rule options a command was given (``None``: not given; a pass limit below 0: unlimited)."""
    chosen = {name: value for name, value in given.items() if value is not None}
    if chosen.get("pass_limit", 0) < 0:
        chosen["pass_limit"] = None
    return chosen


async def winnable_game(solver: SolverService, rules: Rules, lang: str) -> tuple[Game, tuple[str, ...]]:
    """The first deal from a random number that the solver proves winnable (a few seconds at most).
    Raises ``SolverBusy`` when too many searches wait."""
    pick = await solver.winnable(secrets.randbelow(MAX_DEAL_NUMBER + 1), rules)
    if pick is None:
        return Game.new(rules), (t(lang, "error.winnable_not_found"),)
    return Game.from_number(pick.number, rules), ()


async def command_move(interaction: discord.Interaction, action: Callable[[Game], ev.Event]) -> None:
    """/pyramide tap, draw, undo: the same moves as the buttons, answered with a fresh board.

    If the answer has to be deferred before the move is made (a busy channel), its visibility is
    guessed from the current position: a refusal, or a move that changes nothing, is private."""
    lang = language(interaction)
    bot = bot_of(interaction)
    manager = bot.manager

    def private() -> bool:
        live = manager.peek(interaction.channel_id or 0)
        if live is None:
            return True
        if live.record.owner_id != interaction.user.id:
            settings = bot.cached_settings(settings_key(live.record))
            if settings is None or not settings.anyone_can_play:
                return True
        return isinstance(action(live.game.copy()), QUIET_EVENTS)

    async with answering(interaction, private=private) as answer:
        place = _place(answer)
        if place is None:
            await answer.say(t(lang, "error.guild_only"))
            return
        async with manager.turn(place[1]) as turn:
            live = await _live_or_say(answer, turn, lang)
            if live is None or not await allowed(answer, live, lang):
                return
            await play(answer, turn, lang, action, edit=False)


def card_action(text: str, lang: str) -> Callable[[Game], ev.Event]:
    if text in (WASTE, UNDER):
        return lambda game: game.tap(text)
    try:
        card: Card | str = parse_card(text[:40], lang)
    except InvalidCard:
        card = text
    return lambda game: game.tap_card(card)


async def _live_or_say(answer: Answer, turn: Turn, lang: str) -> Live | None:
    if turn.live is None:
        await answer.say(t(lang, "error.broken_game" if turn.broken is not None else "error.no_game"))
    return turn.live


async def command_end(interaction: discord.Interaction) -> None:
    lang = language(interaction)
    async with answering(interaction) as answer:
        place = _place(answer)
        if place is None:
            await answer.say(t(lang, "error.guild_only"))
            return
        async with bot_of(interaction).manager.turn(place[1]) as turn:
            if await _live_or_say(answer, turn, lang) is not None:
                await finish(answer, turn, lang, edit=False)


async def command_hint(interaction: discord.Interaction) -> None:
    async with answering(interaction) as answer:
        await show_hint(answer, language(interaction))


async def command_code(interaction: discord.Interaction) -> None:
    lang = language(interaction)
    async with answering(interaction) as answer:
        live = await bot_of(interaction).manager.snapshot(interaction.channel_id or 0)
        if live is None:
            await answer.say(t(lang, "error.no_game"))
            return
        if live.record.counted:
            await answer.say(t(lang, "error.daily_code_hidden"))
            return
        answer.private = False
        await answer.announce(content=t(lang, "code.show", code=live.record.code))


async def card_choices(interaction: discord.Interaction, current: str) -> list[tuple[str, str]]:
    """Autocomplete for /pyramide tap: the playable cards, in the player's way of naming them."""
    lang = language(interaction)
    with contextlib.suppress(Exception):
        live = await bot_of(interaction).manager.snapshot(interaction.channel_id or 0)
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
        typed = current.strip().lower()[:40]
        return [c for c in choices if typed in c[0].lower() or typed in c[1].lower()][:25]
    return []
