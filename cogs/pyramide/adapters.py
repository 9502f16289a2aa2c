"""What a board's button press or a typed /pyramide command hands over to: the press routed to a move
(``turns``), a hint (``hints``) or a new deal (``dealing``); the commands' options turned into the same."""

from __future__ import annotations

import logging
from collections.abc import Callable

import discord

from pyramide import UNDER, WASTE, Card, Game, InvalidCard
from pyramide import effects as ev
from pyramide.i18n import card_name, parse_card, t
from pyramide_discord import controls, presenter
from pyramide_discord.presenter import tap_action

from ..answer import Answer, answering
from ..common import bot_of, language
from .dealing import deal_again
from .hints import show_hint
from .home import Place, settings_key
from .turns import finish, play, press_of

log = logging.getLogger(__name__)


async def press(answer: Answer, game_id: int, version: int, action: str) -> None:
    """A button of a game message was pressed."""
    lang = answer.lang
    place = answer.place
    if place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    if action == controls.LAUNCH:
        await launch(answer, place)
        return
    if action in controls.DEALS:
        await deal_again(answer, game_id, action)
        return
    if action == controls.HINT:
        await show_hint(answer, lang, game_id=game_id, version=version)
        return
    pressed = press_of(answer, game_id, version)
    if action == controls.END:
        await finish(answer, pressed, edit=True)
        return
    await play(answer, pressed, tap_action(action), edit=True)


async def launch(answer: Answer, place: Place) -> None:
    """The Activity's button: Discord opens the Activity on this channel, which shows the channel's game
    whatever board the button was under. It is the interaction's first answer, with nothing loaded first.
    A button left from before the Activity was turned off, or from a place it does not open in, is answered
    privately with the reason."""
    if not answer.bot.offers_activity:
        await answer.say(t(answer.lang, "error.launch_unavailable"))
    elif not place.activities:
        await answer.say(t(answer.lang, "error.launch_not_here"))
    else:
        await answer.launch()


async def command_move(
    interaction: discord.Interaction, action_in: Callable[[str], Callable[[Game], ev.Effect]]
) -> None:
    """/pyramide tap, draw, undo: the same moves as the buttons, answered with a fresh board
    (``action_in``: the move, given the player's language its card names are read in).

    If the answer has to be deferred before the move is made (a busy channel), its visibility is
    guessed from the current position: a refusal, or a move that changes nothing, is private."""

    def private() -> bool:  # asked by the answer's deferral, so after ``answer`` below is made
        live = answer.bot.manager.peek(interaction.channel_id or 0)
        if live is None:
            return True
        if live.record.owner_id != interaction.user.id:
            settings = answer.bot.settings.cached(settings_key(live.record))
            if settings is None or not settings.anyone_can_play:
                return True
        return presenter.quiet(action_in(answer.lang)(live.game.copy()))

    async with answering(interaction, private=private) as answer:
        lang = answer.lang
        place = answer.place
        if place is None:
            await answer.say(t(lang, "error.guild_only"))
            return
        await play(answer, press_of(answer), action_in(lang), edit=False)


def card_action(text: str, lang: str) -> Callable[[Game], ev.Effect]:
    if text in (WASTE, UNDER):
        return lambda game: game.tap(text)
    try:
        card: Card | str = parse_card(text[:40], lang)
    except InvalidCard:
        card = text
    return lambda game: game.tap_card(card)


async def command_end(interaction: discord.Interaction) -> None:
    async with answering(interaction) as answer:
        lang = answer.lang
        place = answer.place
        if place is None:
            await answer.say(t(lang, "error.guild_only"))
            return
        await finish(answer, press_of(answer), edit=False)


async def command_hint(interaction: discord.Interaction) -> None:
    async with answering(interaction) as answer:
        await show_hint(answer, answer.lang)


async def command_code(interaction: discord.Interaction) -> None:
    async with answering(interaction) as answer:
        lang = answer.lang
        live = await answer.bot.manager.snapshot(interaction.channel_id or 0)
        if live is None:
            await answer.say(t(lang, "error.no_game"))
            return
        if live.record.event_id is not None:
            await answer.say(t(lang, "event.code_hidden"))
            return
        if live.record.counted:
            await answer.say(t(lang, "error.daily_code_hidden"))
            return
        answer.private = False
        await answer.announce(content=t(lang, "code.show", code=live.record.code))


async def card_choices(interaction: discord.Interaction, current: str) -> list[tuple[str, str]]:
    """Autocomplete for /pyramide tap: the playable cards, in the player's way of naming them."""
    lang = language(interaction)
    try:
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
    except Exception:  # a suggestion is no move: the player still gets an (empty) answer, and the bug a log line
        log.exception("autocomplete of /pyramide tap failed in channel %s", interaction.channel_id)
        return []
