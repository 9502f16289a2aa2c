"""Watch how a deal could have been won, or replay one's own game: an animated picture posted under a
finished board. The frames are drawn and encoded in the solver service's animation worker (at most a
few waiting; more are "busy, try again"); a second request for the same animation is answered from the
service's memory."""

from __future__ import annotations

import io
import time

import discord

from pyramide import Game
from pyramide.i18n import t
from pyramide.replay import MAX_BYTES, Animation, replay_animation, winning_animation
from pyramide_discord import presenter
from pyramide_discord.board import board_labels
from pyramide_discord.finders import LINE_SECONDS
from pyramide_discord.words import mention
from pyramide_service import GameRecord
from pyramide_service.solving import SolverBusy, wait_nodes

from ..answer import Answer


async def show_animation(answer: Answer, game_id: int, kind: str) -> None:
    """Post the winning line of a finished game's deal (``kind`` "line") or the game as it was played
    ("mine"), in the channel of the game's board."""
    lang, bot = answer.lang, answer.bot
    record = await bot.manager.record(game_id)
    here = answer.place.channel_id if answer.place is not None else 0  # (a channel's id names it everywhere)
    refused = await bot.admission.may_play_back(record, here)
    if refused is not None:
        await answer.say(presenter.playback_refusal(refused, lang))
        return
    assert record is not None
    await post_animation(answer, kind, record.code, record)


async def post_animation(answer: Answer, kind: str, code: str, record: GameRecord | None = None) -> None:
    """Draw and post the winning line of ``code`` ("line"), or ``record``'s game as played ("mine")."""
    lang, bot = answer.lang, answer.bot
    # Drawn in the style of the player whose game it was (of the one who asked, for a deal of nobody's game).
    style = await bot.styles.get(record.owner_id if record is not None else answer.interaction.user.id)
    key = (kind, code if kind == "line" or record is None else str(record.id), lang, style)
    animation: Animation | None = bot.solver.animations.get(key)
    if animation is None:
        if not bot.solver.has_room("animation"):
            raise SolverBusy()  # said privately, before any deferral
        await answer.defer()  # drawing and encoding take a second or two
        labels = board_labels(lang)
        if kind == "line":
            deadline = time.monotonic() + LINE_SECONDS
            nodes = wait_nodes(Game.from_code(code).rules)
            found = await bot.solver.animate(winning_animation, code, labels, nodes, deadline, style)
        else:
            assert record is not None
            found = await bot.solver.animate(replay_animation, code, tuple(record.actions), labels, style)
        if found is None:
            await answer.say(t(lang, "anim.none"))
            return
        if len(found.data) > MAX_BYTES:
            await answer.say(t(lang, "anim.too_big"))
            return
        animation = found
        bot.solver.animations.put(key, animation)
    name = "winning-line" if kind == "line" else "replay"
    words = (
        t(lang, "anim.line", code=code, moves=animation.moves)
        if kind == "line" or record is None
        else t(lang, "anim.mine", player=mention(record.owner_id), code=code, moves=animation.moves)
    )
    alt = t(lang, f"anim.alt_{kind}", code=code, moves=animation.moves)
    file = discord.File(io.BytesIO(animation.data), filename=f"{name}.{animation.format}", description=alt[:1000])
    await answer.announce(content=words, file=file, allowed_mentions=discord.AllowedMentions.none())
