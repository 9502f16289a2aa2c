"""The application's commands as Discord keeps them, for both Discord-like servers of the tests
(``harness.Hub`` in process, ``fake_discord.FakeDiscord`` for the whole process).

Global commands are read with ``GET /applications/{id}/commands`` and replaced whole with a bulk
overwrite (``PUT``): a command sent with the ``id`` of one Discord has, or with the type and name of one,
keeps its id; the others are made anew; those left out are deleted. With Activities enabled
(``enable_activities``), Discord has made an entry point command (type 4, PRIMARY_ENTRY_POINT, named
"launch", ``handler`` 2: DISCORD_LAUNCH_ACTIVITY) and refuses an overwrite that leaves it out, as it does:
400, code 50240. At most one global entry point; none in a server; ``handler`` only on one; anything else
Discord's form checks refuse is answered 400 50035 (``app_emojis.Refused``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tests.support.app_emojis import Refused

PRIMARY_ENTRY_POINT = 4
DISCORD_LAUNCH_ACTIVITY = 2
ENTRY_POINT_KEPT = 50240
# Discord's words for 50240 (as bots meeting it have logged them).
ENTRY_POINT_MESSAGE = (
    "You cannot remove this app's Entry Point command in a bulk update operation. Please include the Entry "
    "Point command in your update request or delete it separately."
)


class EntryPointOmitted(Exception):
    """A bulk overwrite that would delete the entry point command: Discord's 400 with code 50240."""

    body: ClassVar[dict[str, Any]] = {"code": ENTRY_POINT_KEPT, "message": ENTRY_POINT_MESSAGE}


@dataclass
class AppCommands:
    """The global commands of the application ``app_id``, and every overwrite Discord accepted."""

    app_id: int
    ids: itertools.count = field(default_factory=lambda: itertools.count(1_400_000_000_000_000_000))
    commands: list[dict[str, Any]] = field(default_factory=list)
    overwrites: int = 0  # bulk overwrites accepted
    refused: int = 0  # and refused

    def enable_activities(self) -> dict[str, Any]:
        """What turning Activities on in the developer portal does: the default entry point command."""
        entry = self._stored(
            {
                "type": PRIMARY_ENTRY_POINT,
                "name": "launch",
                "description": "",
                "handler": DISCORD_LAUNCH_ACTIVITY,
                "integration_types": [0, 1],
                "contexts": [0, 1, 2],
            },
            None,
        )
        self.commands.append(entry)
        return entry

    def entry_point(self) -> dict[str, Any] | None:
        return next((c for c in self.commands if c["type"] == PRIMARY_ENTRY_POINT), None)

    def listing(self) -> list[dict[str, Any]]:
        return [dict(command) for command in self.commands]

    def overwrite(self, body: Any, *, guild: bool = False) -> list[dict[str, Any]]:
        """A bulk overwrite (``guild``: a server's commands, which keep no entry point and are not stored)."""
        try:
            commands = self._checked(body, guild)
            entry = self.entry_point()
            if not guild and entry is not None and not any(c.get("type") == PRIMARY_ENTRY_POINT for c in commands):
                raise EntryPointOmitted
        except (Refused, EntryPointOmitted):
            self.refused += 1
            raise
        old = {} if guild else {int(c["id"]): c for c in self.commands}
        stored = [self._stored(command, self._match(command, old)) for command in commands]
        if not guild:
            self.commands = stored
            self.overwrites += 1
        return [dict(command) for command in stored]

    def _checked(self, body: Any, guild: bool) -> list[dict[str, Any]]:
        if not isinstance(body, list) or not all(isinstance(c, dict) for c in body):
            raise Refused("_", "BASE_TYPE_ARRAY", "Must be an array of commands")
        kinds = [c.get("type") or 1 for c in body]
        if kinds.count(PRIMARY_ENTRY_POINT) > (0 if guild else 1):
            where = "a server's commands" if guild else "an application"
            raise Refused("type", "APPLICATION_COMMAND_TYPE_INVALID", f"At most one entry point command in {where}")
        for kind, command in zip(kinds, body, strict=True):
            if "handler" in command and command["handler"] is not None and kind != PRIMARY_ENTRY_POINT:
                raise Refused("handler", "APPLICATION_COMMAND_HANDLER_INVALID", "Only an entry point has a handler")
        names = [(kind, c.get("name")) for kind, c in zip(kinds, body, strict=True)]
        if len(set(names)) != len(names):
            raise Refused("name", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
        return body

    @staticmethod
    def _match(command: dict[str, Any], old: dict[int, dict[str, Any]]) -> dict[str, Any] | None:
        if command.get("id") is not None:
            return old.get(int(command["id"]))
        kind = command.get("type") or 1
        return next((c for c in old.values() if c["type"] == kind and c["name"] == command.get("name")), None)

    def _stored(self, command: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
        """The command as Discord answers it: its id (kept from ``previous``), the application's, and a version
        that changes with its definition."""
        kind = command.get("type") or 1
        stored = {
            "description": "",
            "default_member_permissions": None,
            "nsfw": False,
            **{k: v for k, v in command.items() if v is not None},
            "id": previous["id"] if previous is not None else str(next(self.ids)),
            "application_id": str(self.app_id),
            "type": kind,
        }
        if stored["default_member_permissions"] is not None:
            stored["default_member_permissions"] = str(stored["default_member_permissions"])
        same = previous is not None and {k: v for k, v in previous.items() if k != "version"} == stored
        stored["version"] = previous["version"] if same and previous is not None else str(next(self.ids))
        return stored
