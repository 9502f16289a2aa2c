"""The one answer an interaction gets: in time, and private from its first byte when it is meant to be.

Discord wants an answer within 3 seconds. ``Answer`` defers by itself when the real answer is not
ready after ``PATIENCE`` (a busy channel, a slow database, the solver), and defers with the
visibility the answer will have: a command's deferral is ephemeral unless the flow has said the
answer is public. Every way of answering goes through one lock, so the watchdog's deferral and the
real answer never both respond.

Discord's failures are of two kinds (``lost`` tells them apart). A *lost* answer never reached a
player who is still waiting (10062 Unknown interaction, an expired token, 40060 answered already by
another process, a timeout, a connection error, Discord's own 5xx): it is logged as a warning and not
retried; the move is stored, and the next press on the board redraws it. A *refused* answer (403
Missing Access or Permissions, a 400 such as 50035 Invalid Form Body, ...) is logged at error level
with Discord's code and message, and the player is told privately where Discord still listens (the
interaction's own answer or followup); a "thinking..." placeholder left by a deferral is replaced,
never left standing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import discord

from pyramide.i18n import t
from pyramide_discord.failures import (
    DISCORD_ERRORS,
    FOLLOWUPS_SPENT,
    describe_failure,
    log_refusal,
    lost,
    refusal_words,
)
from pyramide_discord.host import Host
from pyramide_service import DATABASE_ERRORS, GuildSettings, StorageUnavailable
from pyramide_service.inputs import OutOfLimits
from pyramide_service.manager import GameError

from .common import bot_of, language
from .places import Place, place_of
from .refused import limit_words, log_refused

log = logging.getLogger(__name__)

PATIENCE = 1.2  # seconds before an answer that is not ready yet is deferred
CONTENT_LIMIT = 2000  # Discord's limit for a message's content
def shorten(text: str, limit: int = CONTENT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Answer:
    """How one interaction is answered, and the facts of it that every flow reads, worked out once when it
    arrives: the bot (``bot``), the player's language (``lang``), where it happened (``place``) and, asked
    at most once each, the settings that rule there (``settings``). ``private`` is the visibility of the
    answer to come: a bool, or a function asked at the moment a deferral has to be made (before the flow
    knows)."""

    def __init__(self, interaction: discord.Interaction, *, private: bool | Callable[[], bool] = True) -> None:
        self.interaction = interaction
        self.bot: Host = bot_of(interaction)
        self.lang = language(interaction)
        self.place: Place | None = place_of(interaction)
        self._settings: dict[int, GuildSettings] = {}
        self.private = private
        self.deferred_private: bool | None = None  # how a command was deferred (None: not deferred)
        # Whether the first answer is private words ("thinking...", a note, a private reply) that a rescue
        # may overwrite, and whether Discord refused a follow-up as one too many (40094).
        self.words_original = False
        self.followups_spent = False
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._watchdog: asyncio.Task[None] | None = None

    async def settings(self, key: int) -> GuildSettings:
        """The settings of ``key`` (a server, or outside servers a channel: ``places.settings_key``)."""
        settings = self._settings.get(key)
        if settings is None:
            settings = self._settings[key] = await self.bot.settings.get(key)
        return settings

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
        """The watchdog's deferral (a task of this answer's own, cancelled by ``stop``)."""
        try:
            await self.defer()
        except DISCORD_ERRORS as error:
            log_refusal(f"deferral of interaction {self.interaction.id}", error)
        except Exception:  # nobody awaits this task: a bug here is logged with its traceback, not lost
            log.exception("deferral of interaction %s failed", self.interaction.id)

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
                self.words_original = private

    # ------------------------------------------------------------- answering
    async def say(self, text: str, *, view: discord.ui.View | None = None, file: discord.File | None = None) -> None:
        """A private message to the player (with a picture: ``file``)."""
        content = shorten(text)
        extra: dict[str, Any] = {"view": view} if view is not None else {}
        if file is not None:
            extra["file"] = file
        async with self._lock:
            response = self.interaction.response
            if not self.done:
                await response.send_message(content, ephemeral=True, **extra)
                self.words_original = True
            elif self.deferred_private is False:
                # A public "thinking" message would turn the first followup public: take it away first.
                await self.interaction.delete_original_response()
                self.deferred_private = None
                await self._followup(content=content, ephemeral=True, **extra)
            else:
                await self._followup(content=content, ephemeral=True, **extra)
                self.deferred_private = None

    async def _followup(self, **message: Any) -> Any:
        try:
            return await self.interaction.followup.send(**message)
        except discord.HTTPException as error:
            if error.code == FOLLOWUPS_SPENT:
                self.followups_spent = True
            raise

    async def rescue(self, text: str) -> None:
        """After a refusal: tell the player privately, wherever Discord still listens, and never leave a
        "thinking..." placeholder standing (it is edited into the words, or removed). Once Discord takes
        no more follow-ups, the command's own first answer takes the words (a note or "thinking..."
        overwritten), so that the player is never left reading that something was done."""
        if not self.followups_spent:
            try:
                await self.say(text)
                return
            except DISCORD_ERRORS as error:
                log_refusal(f"private answer to interaction {self.interaction.id}", error)
        if self.followups_spent and self.words_original and not self.is_component:
            async with self._lock:
                try:
                    await self.interaction.edit_original_response(content=shorten(text), attachments=[], view=None)
                    self.deferred_private = None
                except DISCORD_ERRORS as error:
                    log_refusal(f"first answer of interaction {self.interaction.id}", error)
            return
        if self.deferred_private is None:
            return
        async with self._lock:
            try:
                if self.deferred_private or self.followups_spent:  # (public words: nowhere else is left)
                    await self.interaction.edit_original_response(content=shorten(text), attachments=[], view=None)
                else:
                    await self.interaction.delete_original_response()
                self.deferred_private = None
            except DISCORD_ERRORS as error:
                log_refusal(f"placeholder of interaction {self.interaction.id}", error)

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
                self.words_original = False
                return await self.interaction.original_response() if fetch else None
            if self.deferred_private:
                # The private "thinking" message takes the note; the board follows as a message of its own.
                await self.interaction.edit_original_response(content=shorten(note or "✓"))
                self.deferred_private = None
            sent = await self._followup(**message, wait=True)
            self.deferred_private = None  # a public "thinking" message became this followup
            return sent

    async def launch(self) -> None:
        """Open the application's Activity for the player (LAUNCH_ACTIVITY, callback type 12): only as the
        interaction's first answer, which carries no message."""
        async with self._lock:
            await self.interaction.response.launch_activity()

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
    bot = answer.bot
    bot.flow_started()
    started = time.perf_counter()
    database_error = False
    try:
        yield answer
    except OutOfLimits as error:  # a value the command's limits refuse, found inside a flow
        log_refused(interaction, error)
        await answer.rescue(limit_words(answer.lang, error))
    except (GameError, StorageUnavailable) as error:
        database_error = isinstance(error, StorageUnavailable)
        await answer.rescue(t(answer.lang, f"error.{error.key}"))
    except DISCORD_ERRORS as error:
        what = f"answer to interaction {interaction.id}"
        if lost(error):
            # Lost on the way (unknown interaction, a network error): what was played is stored, and
            # the next press on the board brings it up to date. Nobody is listening to be told.
            log.warning("%s lost: %s", what, describe_failure(error))
        else:
            log.error("%s refused by Discord: %s", what, describe_failure(error))
            await answer.rescue(refusal_words(answer.lang, error))
    except Exception as error:
        database_error = isinstance(error, DATABASE_ERRORS)
        log.error("interaction failed", exc_info=error)
        await answer.rescue(t(answer.lang, "error.generic"))
    finally:
        answer.stop()
        kind = "button" if answer.is_component else "command"
        bot.flow_ended(kind, time.perf_counter() - started, database_error)

