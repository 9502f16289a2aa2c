"""Discord's side of opening a deal (``pyramide_service.opening``), written once for the free game, the
daily, an event's deal and a race: threads made for games (private where the server allows it, else
public), a new game's board posted (as the interaction's answer, in the channel, or in its thread), and
a thread removed again when its game is not played in it after all."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from pyramide.i18n import t
from pyramide_discord.failures import DISCORD_ERRORS, describe_failure, log_refusal, lost
from pyramide_service.opening import Dealt, NoThread, NotPosted, Occupied, Placed

from ..answer import Answer
from .board import board_message

log = logging.getLogger(__name__)

# The status lines of a board just dealt (a thing to do before it is shown may happen here too).
Lines = Callable[[Dealt], Awaitable[list[str]]]
# What a thread made for a player's game is called.
ThreadName = Callable[[discord.abc.User], str]


async def create_thread(parent: object, name: str) -> discord.Thread | None:
    if not isinstance(parent, discord.TextChannel):
        return None
    for kind in (discord.ChannelType.private_thread, discord.ChannelType.public_thread):
        try:
            return await parent.create_thread(name=name, type=kind, auto_archive_duration=1440, invitable=False)
        except DISCORD_ERRORS as error:  # the next kind is tried; the player hears if none can be made
            log.warning("%s not made in %s: %s", kind.name, parent.id, describe_failure(error))
    return None


async def remove_thread(thread: discord.Thread | None) -> None:
    """Delete a thread made for a game that is not played in it after all (best effort, logged)."""
    if thread is None:
        return
    try:
        await thread.delete()
    except DISCORD_ERRORS as error:
        log_refusal(f"removal of thread {thread.id}", error)


async def answer_attempt(
    answer: Answer, opened: Placed, *, in_answer: bool, busy: str, ready: Callable[[int], str]
) -> None:
    """Tell the player how opening a counted attempt (the daily, an event's deal) went: its board posted as
    this interaction's answer (``in_answer``: a failure is raised on, ``answering`` words it), or posted
    elsewhere, then ``ready`` names where (by the channel's id). ``busy``: what a game in play here is."""
    if isinstance(opened, NoThread):
        await answer.say(t(answer.lang, "error.no_thread"))
    elif isinstance(opened, Occupied):
        await answer.say(busy)
    elif isinstance(opened, NotPosted) and (in_answer or not isinstance(opened.error, DISCORD_ERRORS)):
        raise opened.error  # (a lost answer may have shown the deal: the attempt stays, its board playable)
    elif isinstance(opened, NotPosted) and not opened.kept:
        # The player never saw this board: its attempt and the empty thread were taken back.
        permission = "Attach Files / Send Messages in Threads"
        await answer.say(t(answer.lang, "error.daily_post", permission=permission))
    elif not in_answer:
        await answer.say(ready(opened.dealt.channel_id))


class AnswerBoards:
    """A ``pyramide_service.opening.BoardPort`` over one interaction. A board dealt in place is the
    interaction's answer (with ``note`` for a command deferred privately), or with ``send_here`` a
    message of the bot's own in the channel; one dealt in a thread is the bot's message there.
    ``thread_name`` makes private threads (else public) for the players in ``players``."""

    def __init__(
        self,
        answer: Answer,
        lines: Lines,
        *,
        thread_name: ThreadName | None = None,
        note: str = "",
        send_here: bool = False,
        players: tuple[discord.abc.User, ...] = (),
    ) -> None:
        self.answer = answer
        self.lines = lines
        self.thread_name = thread_name
        self.note = note
        self.send_here = send_here
        self.players = {player.id: player for player in players or (answer.interaction.user,)}
        self.threads: dict[int, discord.Thread] = {}

    def add_thread(self, thread: discord.Thread) -> None:
        """A thread made before the deal (its board is posted there, and it goes if the deal does not)."""
        self.threads[thread.id] = thread

    async def make_thread(self, owner_id: int) -> int | None:
        assert self.thread_name is not None
        player = self.players[owner_id]
        thread = await create_thread(self.answer.interaction.channel, self.thread_name(player)[:100])
        if thread is None:
            return None
        with contextlib.suppress(discord.HTTPException):
            await thread.add_user(player)
        self.add_thread(thread)
        return thread.id

    async def post(self, dealt: Dealt) -> int:
        answer, live = self.answer, dealt.live
        status = await self.lines(dealt)
        message = await board_message(answer, live, answer.lang, status)
        target: Any = self.threads.get(dealt.channel_id)
        if target is None and self.send_here:
            target = answer.interaction.channel
        if target is None:
            return (await answer.post(note=self.note or (status[0] if status else ""), **message)).id
        try:
            return (await target.send(**message)).id
        except DISCORD_ERRORS as error:
            log_refusal(f"board of game {live.record.id} in {dealt.channel_id}", error)
            raise

    def may_have_shown(self, error: BaseException) -> bool:
        return isinstance(error, DISCORD_ERRORS) and lost(error)

    async def remove_thread(self, channel_id: int) -> None:
        await remove_thread(self.threads.pop(channel_id, None))
