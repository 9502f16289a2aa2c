"""The card faces as the application's own emojis, shown on the board's buttons.

The set (52 faces, the face cards again with each language's letters, the card back and the empty
waste, and the four-colour deck's ♦ and ♣ again in its blue and green: its ♠ and ♥ are the classic
ones) is drawn by ``pyramide.render``. An emoji's name carries the start of its image's SHA-256
(``pyr_QS_D_1a2b3c4``), so the same name is always the same picture: at every start the bot lists the
application's emojis, reuses those whose name it finds and uploads only the missing ones (an image that
changed has a new name); a restart uploads nothing. Processes of a cluster starting together upload the
same names, and never delete each other's: one that finds its name taken reads the listing again and
uses the other's. Emojis of older versions of the set are deleted only when an owner forces a sync or
the application's 2,000 would run out (a process of the older version may still be showing them); the
set in use never is. The
hash and the id of each image are kept in the database (``Storage.meta``). Until the set is complete,
or after Discord refused it (a refusal, a rate limit past the deadline), the buttons show text labels.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
import discord

from pyramide.cards import Card, full_deck
from pyramide.i18n import LANGUAGES, rank_letters
from pyramide.render import back_emoji, card_emoji, empty_waste_emoji
from pyramide.style import CLASSIC_SUITS, FOUR_COLOUR_SUITS, Deck
from pyramide_service.notes import Notes
from pyramide_service.tasks import Supervised

log = logging.getLogger(__name__)

PREFIX = "pyr_"  # every emoji of the set starts so; others of the application are left alone
BACK, WASTE = "pyr_back", "pyr_waste"  # the base names of the back and the empty waste
META_KEY = "card_emojis"  # {base name: [sha256 of the image, emoji id]}
APP_EMOJI_LIMIT = 2000  # Discord's limit of emojis an application owns
NAME = re.compile(r"[A-Za-z0-9_]{2,32}")  # Discord's rule for an emoji's name
DEADLINE = 120.0  # seconds for the whole sync; past it (a long rate limit) the buttons keep text labels
FOUR_COLOUR = "_4c"  # the end of a base name of the four-colour deck's own faces (pyr_QD_4c)

EmojiJSON = dict[str, Any]


@dataclass(frozen=True)
class EmojiImage:
    base: str  # what the image shows: pyr_QS_D
    png: bytes

    @functools.cached_property
    def digest(self) -> str:
        return hashlib.sha256(self.png).hexdigest()

    @property
    def name(self) -> str:
        """The emoji's name: the base and the start of the image's hash (another image, another name)."""
        return f"{self.base}_{self.digest[:7]}"


def face_name(card: Card, letter: str | None = None, deck: Deck = Deck.CLASSIC) -> str:
    """``pyr_QS``; a language's own letter is added (``pyr_QS_D``, ``pyr_QS_u0414`` for Д), and the mark of
    the four-colour deck to a face it draws in a colour of its own (``pyr_QD_4c``)."""
    name = PREFIX + card.ascii
    if letter:
        name += "_" + "".join(c if c.isascii() and c.isalnum() else f"u{ord(c):04x}" for c in letter)
    if deck is Deck.FOUR_COLOUR and _own_colour(card):
        name += FOUR_COLOUR
    return name


def _own_colour(card: Card) -> bool:
    """Whether the four-colour deck draws the card in another colour than the classic one (♦ and ♣)."""
    return FOUR_COLOUR_SUITS[card.suit] != CLASSIC_SUITS[card.suit]


def _face_names(lang: str, deck: Deck = Deck.CLASSIC) -> dict[Card, str]:
    letters = dict(rank_letters(lang))
    return {card: face_name(card, letters.get(card.rank), deck) for card in full_deck()}


@functools.cache
def emoji_images() -> dict[str, EmojiImage]:
    """The whole set, by emoji name (drawn once; about 80 images of a few KB)."""
    drawn: dict[str, EmojiImage] = {}
    for lang, deck in itertools.product(LANGUAGES, Deck):
        letters = dict(rank_letters(lang))
        for card in full_deck():
            base = face_name(card, letters.get(card.rank), deck)
            if base not in drawn:
                drawn[base] = EmojiImage(base, card_emoji(card, letters.get(card.rank), deck))
    drawn[BACK] = EmojiImage(BACK, back_emoji())
    drawn[WASTE] = EmojiImage(WASTE, empty_waste_emoji())
    images = {image.name: image for image in drawn.values()}
    assert all(NAME.fullmatch(name) for name in images), "an emoji name Discord would refuse"
    assert len(images) <= APP_EMOJI_LIMIT // 2, "no room left for a new version beside this one"
    return images


class CardEmojis:
    """What the buttons show, looked up in memory on every board: the emoji of a card in a language,
    of the back and of the empty waste, as a component's ``emoji`` JSON. Empty (every lookup ``None``,
    so the buttons show their text labels) until a sync has the whole set."""

    def __init__(self, emojis: Mapping[str, int] | None = None) -> None:
        """``emojis``: the application's emoji ids by name."""
        images = emoji_images()
        known = {
            images[name].base: {"id": str(emoji_id), "name": name}
            for name, emoji_id in (emojis or {}).items()
            if name in images
        }
        self.ready = len(known) == len(images)
        self._faces: dict[tuple[str, Deck], dict[Card, EmojiJSON]] = {}
        self.back: EmojiJSON | None = None
        self.waste: EmojiJSON | None = None
        if self.ready:
            self._faces = {
                (lang, deck): {c: known[n] for c, n in _face_names(lang, deck).items()}
                for lang, deck in itertools.product(LANGUAGES, Deck)
            }
            self.back, self.waste = known[BACK], known[WASTE]

    def face(self, card: Card, lang: str, deck: Deck = Deck.CLASSIC) -> EmojiJSON | None:
        """The card's emoji in a language's letters and a deck's colours."""
        faces = self._faces.get((lang, deck))
        return faces[card] if faces is not None else None

    def ids(self) -> set[int]:
        return {int(e["id"]) for faces in self._faces.values() for e in faces.values()} | (
            {int(self.back["id"]), int(self.waste["id"])} if self.back and self.waste else set()
        )


class EmojiClient(Protocol):
    """The part of ``discord.Client`` a sync uses."""

    async def fetch_application_emojis(self) -> list[discord.Emoji]: ...
    async def create_application_emoji(self, *, name: str, image: bytes) -> discord.Emoji: ...


@dataclass(frozen=True)
class SyncResult:
    emojis: CardEmojis
    uploaded: int
    deleted: int
    error: str | None = None


def _kept(text: str | None) -> dict[str, tuple[str, int]]:
    """What the database holds: {base name: (sha256, emoji id)}."""
    try:
        found = json.loads(text or "{}")
        return {str(name): (str(digest), int(emoji_id)) for name, (digest, emoji_id) in found.items()}
    except (ValueError, TypeError, AttributeError):
        return {}  # unreadable: everything is checked again (and uploaded where the listing lacks it)


async def sync_emojis(
    client: EmojiClient, notes: Notes, *, force: bool = False, deadline: float = DEADLINE
) -> SyncResult:
    """List the application's emojis and upload the images of the set that are missing; with ``force``
    (an owner's sync) also delete the older versions' emojis. The set in use is never deleted: every
    process of the deployment shows it. Never raises for Discord's answers: a failure is logged once and
    the result is empty (text labels); what was uploaded before it stays recorded."""
    images = await asyncio.to_thread(emoji_images)
    kept = _kept(await notes.read(META_KEY))
    before = dict(kept)
    uploaded = deleted = 0
    current: dict[str, int] = {}
    try:
        async with asyncio.timeout(deadline):
            listed = {emoji.name: emoji for emoji in await client.fetch_application_emojis()}
            for name, image in images.items():
                existing = listed.get(name)
                if existing is not None:  # its name says its picture: nothing to check, nothing to replace
                    current[name] = existing.id
                    kept[image.base] = (image.digest, existing.id)
                    continue
                try:
                    created = await client.create_application_emoji(name=name, image=image.png)
                except discord.HTTPException as error:
                    # Another process of the cluster, starting at the same moment, uploaded it first.
                    listed = {emoji.name: emoji for emoji in await client.fetch_application_emojis()}
                    if name not in listed:
                        raise error from None
                    created = listed[name]
                else:
                    uploaded += 1
                current[name] = created.id
                kept[image.base] = (image.digest, created.id)
            older = [emoji for name, emoji in listed.items() if name.startswith(PREFIX) and name not in images]
            if force or len(listed) + uploaded > APP_EMOJI_LIMIT - len(images):
                for emoji in older:
                    await emoji.delete()
                    deleted += 1
    except (discord.HTTPException, discord.RateLimited, aiohttp.ClientError, TimeoutError) as error:
        reason = " ".join(str(error).split()) or type(error).__name__  # one line in the log
        log.warning(
            "card emojis: Discord did not take them (%s; %d uploaded before); the buttons show text labels",
            reason,
            uploaded,
        )
        return SyncResult(CardEmojis(), uploaded, deleted, reason)
    finally:
        if kept != before:
            await notes.write(META_KEY, json.dumps({n: list(v) for n, v in sorted(kept.items())}))
    if uploaded or deleted:
        log.info("card emojis: uploaded %d, deleted %d, %d in use", uploaded, deleted, len(current))
    else:
        log.info("card emojis: all %d unchanged since the last sync", len(current))
    return SyncResult(CardEmojis(current), uploaded, deleted)


class CardEmojiSync:
    """The buttons' card emojis (``current``, read on every board) and the syncs that bring them in step:
    the first in the background at start (``start``), an owner's on demand (``sync``). It owns its task,
    watched, and closes it (``close``)."""

    def __init__(self, client: EmojiClient, notes: Notes) -> None:
        self.client = client
        self.notes = notes
        self.current = CardEmojis()  # empty (text labels) until a sync has the whole set
        self._tasks = Supervised("card emoji sync")

    def start(self, *, force: bool = False) -> None:
        """Sync in the background: a first start uploads the whole set, and boards meanwhile show text labels."""
        self._tasks.spawn(self.sync(force=force), "start")

    async def sync(self, *, force: bool = False) -> SyncResult:
        """Sync now and show the result on the buttons from now on (text labels if Discord did not take
        them); ``force`` uploads them all again."""
        result = await sync_emojis(self.client, self.notes, force=force)
        self.current = result.emojis
        return result

    async def wait(self) -> None:
        """Until the background sync has ended."""
        await self._tasks.wait()

    async def close(self) -> None:
        await self._tasks.close()
