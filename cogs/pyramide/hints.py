"""The two-phase hint: checked and snapshotted inside the channel's lock, worked out outside it (other
moves go on), answered inside it again only if the board is still where the hint was asked."""

from __future__ import annotations

from pyramide.i18n import t
from pyramide_discord import presenter
from pyramide_discord.presenter import hint_words
from pyramide_discord.words import mention
from pyramide_service.outcomes import Hinted, MovedOn

from ..answer import Answer
from .board import show
from .turns import press_of, refused, slow


async def show_hint(answer: Answer, lang: str, *, game_id: int | None = None, version: int | None = None) -> None:
    """Hint: checked and snapshotted inside the lock, worked out outside it (other moves go on), and
    answered inside it again only if the board is still where the hint was asked (``Plays.hint``)."""
    if answer.place is None:
        await answer.say(t(lang, "error.guild_only"))
        return
    edit = game_id is not None
    async with answer.bot.plays.hint(press_of(answer, game_id, version), slow=slow(answer)) as outcome:
        match outcome:
            case Hinted(live, snapshot, suggestion):
                status, highlight, dead = hint_words(suggestion, snapshot, lang)
                await show(answer, live, lang, status, edit=edit, highlight=highlight, game=snapshot, dead=dead)
            case MovedOn(live, snapshot) if live is not None:
                words = presenter.unplayed(outcome, lang, mention, face="board")
                await show(answer, live, lang, words, edit=edit, game=snapshot)
            case _:
                await refused(answer, outcome, lang)
