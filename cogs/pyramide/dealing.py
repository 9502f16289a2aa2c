"""New games: a deal from a code, a winnable one or one of a difficulty; the question whether to replace
the game running; the board posted in the channel or in a thread of its own."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from typing import Any

import discord

from pyramide import Game
from pyramide.i18n import t
from pyramide_discord import controls, presenter
from pyramide_discord.failures import DISCORD_ERRORS, describe_failure, log_refusal, lost
from pyramide_discord.finders import rated_finder, winnable_game
from pyramide_discord.words import mention, rules_words
from pyramide_service import admission, inputs
from pyramide_service.admission import AskFirst, Refused, Replacing
from pyramide_service.opening import Deal, Dealt, Here, InThread, NoThread, NotPosted, Opened, Where, open_free_deal
from pyramide_service.solving import SolverBusy

from ..answer import Answer, answering
from ..common import missing_permission
from .home import of_this_place
from .posting import AnswerBoards

log = logging.getLogger(__name__)


async def start_game(
    answer: Answer,
    game: Game,
    *,
    replace_id: int | None = None,
    notes: tuple[str, ...] = (),
    thread: discord.Thread | None = None,
    anyone: bool | None = None,
) -> None:
    """Deal ``game`` in this channel. A running game is never dropped silently: the player is asked,
    and "End it and deal" (``replace_id``) ends exactly the game it was asked about. Outside servers
    ``anyone`` (``/pyramide new``'s option) decides who may play from now on in this channel."""
    interaction = answer.interaction
    lang = answer.lang
    place = answer.place
    if place is None:
        await answer.say(t(lang, "error.guild_only"))
        return

    async def lines(dealt: Dealt) -> list[str]:
        if replace_id is not None:  # the prompt is used once: its buttons go
            await answer.update(content=t(lang, "new.replacing"), view=None)
        answer.private = False
        if anyone is not None:
            await choose_who_plays(answer, anyone)
        status = [t(lang, "new.dealt"), *notes]
        if dealt.broken:
            status.insert(0, t(lang, "new.broken_closed"))
        if not game.rules.is_default:
            status.append(t(lang, "new.rules", rules=rules_words(game.rules, lang)))
        return status

    boards = AnswerBoards(answer, lines)
    where: Where = Here(place.channel_id)
    if thread is not None:
        boards.add_thread(thread)
        where = InThread(thread.id)
    user, bot = interaction.user, answer.bot
    deal = Deal(game, place.stats_id, user.id, user.display_name, lang)
    replacing = Replacing(user.id, interaction.permissions.manage_messages, replace_id)
    opened = await open_free_deal(bot.admission, boards, deal, where, replacing, changes=bot.changes)
    if not isinstance(opened, Opened | NotPosted | NoThread):
        await refuse_deal(answer, opened, game, replace_id)
    elif isinstance(opened, NotPosted):
        error = opened.error
        if thread is not None and isinstance(error, DISCORD_ERRORS):  # the thread went with the game
            await answer.say(t(lang, "error.thread_permission", permission="Attach Files / Send Messages in Threads"))
            return
        if not isinstance(error, DISCORD_ERRORS) or lost(error):
            raise error
        log.error("board of game %s refused by Discord: %s", opened.dealt.live.record.id, describe_failure(error))
        await answer.rescue(t(lang, "error.board_refused"))
    elif isinstance(opened, Opened) and thread is not None:
        owner = mention(opened.dealt.live.record.owner_id)
        await answer.announce(content=t(lang, "new.in_thread", player=owner, thread=f"<#{thread.id}>"))


async def choose_who_plays(answer: Answer, anyone: bool) -> None:
    """Outside servers, the channel's own setting: whether anyone in it may play its game."""
    place = answer.place
    if place is None or place.in_server:
        return
    bot = answer.bot
    current = await answer.settings(place.channel_id)
    if current.anyone_can_play != anyone:
        await bot.settings.save(place.channel_id, dataclasses.replace(current, anyone_can_play=anyone))


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


async def refuse_deal(answer: Answer, refused: Refused, game: Game, prompt: int | None) -> None:
    """Answer a deal the application's rules refused: a question with its choices, else the presenter's words,
    on the question's message when it came from one (the prompt is used once: its buttons go), or privately."""
    if isinstance(refused, AskFirst):
        await ask_replace(answer, refused, game, answer.lang)
        return
    text = "\n".join(presenter.deal_refusal(refused, answer.lang, mention))
    if prompt is not None:
        await answer.update(content=text, view=None)
    else:
        await answer.say(text)


async def ask_replace(answer: Answer, asked: AskFirst, game: Game, lang: str, *, winnable: bool = False) -> None:
    """The question before a deal replaces the running game: end it and deal, or keep it (and who may)."""
    running = asked.running
    view = discord.ui.View(timeout=None)
    deal = f"W-{game.rules.token}" if winnable else game.code
    view.add_item(
        controls.new_game_choice(
            "replace",
            running.record.id,
            deal,
            label=t(lang, "button.replace"),
            style=discord.ButtonStyle.danger,
            disabled=not asked.allowed,
        )
    )
    view.add_item(
        controls.new_game_choice(
            "keep", running.record.id, "", label=t(lang, "button.keep"), style=discord.ButtonStyle.secondary
        )
    )
    view.stop()
    text = "\n".join(presenter.question(asked, lang, mention))
    await answer.say(text, view=view)


async def deal_again(answer: Answer, game_id: int, action: str) -> None:
    """ "New game" or "Same deal again" under a finished board: only for a game of this server and channel."""
    record = await answer.bot.manager.record(game_id)
    lang = answer.lang
    if record is None or not of_this_place(record, answer.place):
        await answer.say(t(lang, "error.stale_board"))
        return
    game, replace_id = admission.deal_again(record, same=action == "again")
    await start_game(answer, game, replace_id=replace_id)


async def new_game(
    interaction: discord.Interaction,
    *,
    choice: inputs.FreeDeal,
    thread: bool | None = None,
    anyone: bool | None = None,
) -> None:
    """/pyramide new: a random deal, the deal of a code, or a winnable deal (one of a difficulty when
    ``choice`` asks); in a thread of its own with ``thread`` (or the server's setting),
    so a busy channel stays free. Where no thread can be made (a DM, a group DM, a server without the
    bot) the game is dealt in place, with a note if one was asked."""
    async with answering(interaction) as answer:
        lang = answer.lang
        where = answer.place
        # Outside servers nobody sets who may play: each /pyramide new does (only its starter by default).
        anyone = None if where is None or where.in_server else bool(anyone)
        game = choice.game
        notes: tuple[str, ...] = ()
        finder = rated_finder(choice.tier) if choice.tier is not None else None
        if where is not None and not where.threads:
            if thread:
                notes = (t(lang, "new.no_thread_here"),)
            thread = False
        if thread is None and interaction.guild_id is not None:
            thread = (await answer.settings(interaction.guild_id)).new_in_thread
        room: discord.Thread | None = None
        if thread and isinstance(interaction.channel, discord.TextChannel):
            room = await open_thread(answer, lang)
            if room is None:
                return
        chosen = choice.rules
        if game is not None or not choice.winnable:
            await start_game(answer, game or Game.new(chosen), thread=room, notes=notes, anyone=anyone)
            return
        solver = answer.bot.solver
        if where is not None and room is None:
            replacing = Replacing(interaction.user.id, interaction.permissions.manage_messages)
            asked = await answer.bot.admission.ask_first(where.channel_id, replacing)
            if asked is not None:
                # Ask before any public deferral: the prompt is the player's alone.
                if finder is not None:  # a deal of its own kind is found first, then named by its code
                    await ask_replace(answer, asked, (await finder(solver, chosen, lang))[0], lang)
                    return
                await ask_replace(answer, asked, Game.new(chosen), lang, winnable=True)
                return
        if not solver.has_room("winnable"):
            raise SolverBusy()  # said privately, before the public deferral
        answer.private = False
        await answer.defer()
        found, found_notes = await (finder or winnable_game)(solver, chosen, lang)
        await start_game(answer, found, notes=notes + found_notes, thread=room, anyone=anyone)


async def deal_of_code(answer: Answer, code: str, rules: dict[str, Any], lang: str) -> Game | None:
    """The deal of a pasted code under the rule options given, or ``None`` after saying what is wrong."""
    choice = inputs.free_deal(rules, code, None, False)
    if isinstance(choice, inputs.FreeDeal):
        return choice.game
    await answer.say(presenter.free_deal_refusal(choice, lang))
    return None
