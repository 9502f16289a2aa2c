"""The application's own emojis as Discord keeps them, for both Discord-like servers of the tests
(``harness.Hub`` in process, ``fake_discord.FakeDiscord`` for the whole process).

Discord's limits: a name of 2-32 characters of ``[A-Za-z0-9_]``, unique in the application; a PNG,
JPEG or GIF of at most 256 KiB, sent as a data URI; at most 2,000 emojis. A bad request is refused
with 400, code 50035 (Invalid Form Body) and the field's error, and so is a message whose component
names an emoji the application does not have."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any

NAME = re.compile(r"[A-Za-z0-9_]{2,32}")
MAX_BYTES = 256 * 1024
MAX_COUNT = 2000
IMAGE = re.compile(r"data:image/(png|jpeg|gif);base64,(?P<data>[A-Za-z0-9+/=]+)")


class Refused(Exception):
    """A request Discord refuses with 400 Invalid Form Body; ``body`` is its JSON answer."""

    def __init__(self, where: str, code: str, message: str) -> None:
        super().__init__(message)
        self.body = {
            "code": 50035,
            "message": "Invalid Form Body",
            "errors": {where: {"_errors": [{"code": code, "message": message}]}},
        }


@dataclass
class AppEmojis:
    """The emojis of the application ``app_id``, and every upload and deletion made."""

    app_id: int
    next_id: int = 1_300_000_000_000_000_000
    emojis: dict[int, dict[str, Any]] = field(default_factory=dict)
    images: dict[int, bytes] = field(default_factory=dict)
    uploads: list[str] = field(default_factory=list)  # names, in order
    deletions: list[str] = field(default_factory=list)
    refuse_upload: int | None = None  # refuse the upload of this number (0: the first) and those after it

    def listing(self) -> dict[str, Any]:
        return {"items": list(self.emojis.values())}

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        name = str(body.get("name") or "")
        if not NAME.fullmatch(name):
            raise Refused("name", "BASE_TYPE_BAD_LENGTH", "Must be 2-32 characters of A-Z, a-z, 0-9 and _")
        if any(e["name"] == name for e in self.emojis.values()):
            raise Refused("name", "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "Application emoji name already taken")
        found = IMAGE.fullmatch(str(body.get("image") or ""))
        if found is None:
            raise Refused("image", "IMAGE_INVALID", "Invalid image data")
        data = base64.b64decode(found["data"])
        if len(data) > MAX_BYTES:
            raise Refused("image", "BINARY_TYPE_MAX_SIZE", "File cannot be larger than 256.0 kb")
        if len(self.emojis) >= MAX_COUNT:
            raise Refused("name", "MAX_EMOJIS", "Maximum number of emojis reached (2000)")
        if self.refuse_upload is not None and len(self.uploads) >= self.refuse_upload:
            raise Refused("image", "IMAGE_INVALID", "Invalid image data")
        self.uploads.append(name)
        return self._keep(name, data)

    def made_before(self, images: dict[str, bytes]) -> None:
        """Emojis the application already has, uploaded by an earlier run of the bot (not counted as uploads)."""
        for name, data in images.items():
            self._keep(name, data)

    def _keep(self, name: str, data: bytes) -> dict[str, Any]:
        self.next_id += 1
        emoji = {
            "id": str(self.next_id),
            "name": name,
            "roles": [],
            "require_colons": True,
            "managed": False,
            "animated": False,
            "available": True,
            "user": {"id": str(self.app_id), "username": "Pyramide", "discriminator": "0", "avatar": None},
        }
        self.emojis[self.next_id] = emoji
        self.images[self.next_id] = data
        return emoji

    def delete(self, emoji_id: int) -> bool:
        emoji = self.emojis.pop(emoji_id, None)
        self.images.pop(emoji_id, None)
        if emoji is not None:
            self.deletions.append(emoji["name"])
        return emoji is not None

    def check_components(self, body: dict[str, Any]) -> None:
        """Refuse a message whose buttons name a custom emoji the application does not have."""
        for i, row in enumerate(body.get("components") or []):
            for j, component in enumerate(row.get("components") or []):
                emoji = component.get("emoji") or {}
                if emoji.get("id") is not None and int(emoji["id"]) not in self.emojis:
                    raise Refused(
                        f"components.{i}.components.{j}.emoji.id", "BUTTON_COMPONENT_INVALID_EMOJI", "Invalid emoji"
                    )

    def by_name(self) -> dict[str, dict[str, Any]]:
        return {e["name"]: e for e in self.emojis.values()}
