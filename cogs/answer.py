"""The one answer an interaction gets: in time, and private from its first byte when it is meant to be.

Discord wants an answer within 3 seconds. ``Answer`` defers by itself when the real answer is not
ready after ``PATIENCE`` (a busy channel, a slow database, the solver), and defers with the
visibility the answer will have: a command's deferral is ephemeral unless the flow has said the
answer is public. Every way of answering goes through one lock, so the watchdog's deferral and the
real answer never both respond. An answer Discord refuses or never receives is logged, not
retried: the move is stored, and the next press on the board redraws it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import asyncpg
import discord

from pyramide.i18n import t
from pyramide.manager import GameError
from pyramide.storage import StorageUnavailable

from .common import language

log = logging.getLogger(__name__)

PATIENCE = 1.2  # seconds before an answer that is not ready yet is deferred
CONTENT_LIMIT = 2000  # Discord's limit for a message's content
LOST = (discord.HTTPException, aiohttp.ClientError, asyncio.TimeoutError)


def shorten(text: str, limit: int = CONTENT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Answer:
    """How one interaction is answered. ``private`` is the visibility of the answer to come: a bool,
    or a function asked at the moment a deferral has to be made (before the flow knows)."""

    def __init__(self, interaction: discord.Interaction, *, private: bool | Callable[[], bool] = True) -> None:
        self.interaction = interaction
        self.private = private
        self.deferred_private: bool | None = None  # how a command was deferred (None: not deferred)
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._watchdog: asyncio.Task[None] | None = None

    @property
    def is_component(self) -> bool:
        return self.interaction.type is discord.InteractionType.component

    @property
    def done(self) -> bool:
        return self.interaction.response.is_done()

    # ------------------------------------------------------------- deferring
    def watch(self, patience: float = PATIENCE) -> None:
        """Defer by itself if no answer was sent after ``patience`` seconds."""
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(patience, self._wake)

    def _wake(self) -> None:
        self._watchdog = asyncio.ensure_future(self._defer_quietly())

    async def _defer_quietly(self) -> None:
        with contextlib.suppress(*LOST):
            await self.defer()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._watchdog is not None and not self._watchdog.done():
            self._watchdog.cancel()

    def _is_private(self) -> bool:
        private = self.private
        return private() if callable(private) else private

    async def defer(self) -> None:
        """Acknowledge now, answer later. A button press defers as an update of its message (what
        follows may edit it, or send new messages of either visibility); a command defers with the
        visibility of its answer."""
        async with self._lock:
            if self.done:
                return
            if self.is_component:
                await self.interaction.response.defer()
            else:
                private = self._is_private()
                await self.interaction.response.defer(ephemeral=private, thinking=True)
                self.deferred_private = private

    # ------------------------------------------------------------- answering
    async def say(self, text: str, *, view: discord.ui.View | None = None) -> None:
        """A private message to the player."""
        content = shorten(text)
        extra: dict[str, Any] = {"view": view} if view is not None else {}
        async with self._lock:
            response = self.interaction.response
            if not self.done:
                await response.send_message(content, ephemeral=True, **extra)
            elif self.deferred_private is False:
                # A public "thinking" message would turn the first followup public: take it away first.
                await self.interaction.delete_original_response()
                self.deferred_private = None
                await self.interaction.followup.send(content, ephemeral=True, **extra)
            else:
                await self.interaction.followup.send(content, ephemeral=True, **extra)
                self.deferred_private = None

    async def post(self, note: str = "", **message: Any) -> discord.Message:
        """A new public message (a board), returned. ``note`` answers a command that was deferred privately."""
        sent = await self._post(note, True, message)
        assert sent is not None
        return sent

    async def announce(self, **message: Any) -> None:
        """A public message that nothing refers to later (a code, a ranking)."""
        if "content" in message:
            message["content"] = shorten(message["content"])
        await self._post("", False, message)

    async def _post(self, note: str, fetch: bool, message: dict[str, Any]) -> discord.Message | None:
        async with self._lock:
            response = self.interaction.response
            if not self.done:
                await response.send_message(**message)
                return await self.interaction.original_response() if fetch else None
            if self.deferred_private:
                # The private "thinking" message takes the note; the board follows as a message of its own.
                await self.interaction.edit_original_response(content=shorten(note or "✓"))
                self.deferred_private = None
            elif self.deferred_private is False:
                self.deferred_private = None  # this followup becomes the public deferred message
            return await self.interaction.followup.send(**message, wait=True)

    async def update(self, **message: Any) -> None:
        """Edit the message whose button was pressed."""
        async with self._lock:
            if not self.done:
                await self.interaction.response.edit_message(**message)
            else:
                await self.interaction.edit_original_response(**message)


@contextlib.asynccontextmanager
async def answering(
    interaction: discord.Interaction, *, private: bool | Callable[[], bool] = True
) -> AsyncIterator[Answer]:
    """An ``Answer`` watched for time; a failure is logged and, where Discord still listens, the player
    is told that nothing was lost (every answered move is stored first)."""
    answer = Answer(interaction, private=private)
    answer.watch()
    bot = interaction.client
    counted = hasattr(bot, "flow_started")
    if counted:
        bot.flow_started()  # type: ignore[attr-defined]
    started = time.perf_counter()
    database_error = False
    try:
        yield answer
    except (GameError, StorageUnavailable) as error:
        database_error = isinstance(error, StorageUnavailable)
        with contextlib.suppress(*LOST):
            await answer.say(t(language(interaction), f"error.{error.key}"))
    except LOST as error:
        # Discord refused or lost the answer (unknown interaction, a network error): what was played
        # is stored, and the next press on the board brings it up to date.
        log.warning("answer to interaction %s lost: %s", interaction.id, _reason(error))
    except Exception as error:
        database_error = isinstance(error, sqlite3.Error | asyncpg.PostgresError)
        log.error("interaction failed", exc_info=error)
        with contextlib.suppress(*LOST):
            await answer.say(t(language(interaction), "error.generic"))
    finally:
        answer.stop()
        if counted:
            kind = "button" if answer.is_component else "command"
            bot.flow_ended(kind, time.perf_counter() - started, database_error)  # type: ignore[attr-defined]


def _reason(error: BaseException) -> str:
    if isinstance(error, discord.HTTPException):
        return f"{error.status} {error.code} {error.text[:100]}"
    return type(error).__name__
