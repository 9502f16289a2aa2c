"""The global commands pushed to Discord with the Activity's entry point command kept.

With Activities enabled, Discord makes an entry point command of its own (type 4, PRIMARY_ENTRY_POINT,
"Launch", handled by Discord: ``handler`` 2, DISCORD_LAUNCH_ACTIVITY). A bulk overwrite of the global
commands that leaves it out is refused with 400, code 50240, and discord.py's command tree has no type-4
command to send. So a push reads the global commands first and sends the entry point back as Discord has
it (its id, name, type, handler and where it may be used) beside the tree's own commands.
"""

from __future__ import annotations

from typing import Any

import discord

from pyramide_discord.internals import global_commands, overwrite_global_commands

PRIMARY_ENTRY_POINT = 4
# The fields of a command that a bulk overwrite takes back (Discord's ApplicationCommandUpdateRequest);
# ``application_id``, ``version`` and the like are Discord's answer, not part of a request.
KEPT_FIELDS = (
    "id",
    "type",
    "name",
    "name_localizations",
    "description",
    "description_localizations",
    "handler",
    "contexts",
    "integration_types",
    "dm_permission",
    "nsfw",
)


def entry_points(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entry point commands among ``commands`` (Discord's answer), as a bulk overwrite sends them back."""
    kept = []
    for command in commands:
        if command.get("type") != PRIMARY_ENTRY_POINT:
            continue
        entry = {key: command[key] for key in KEPT_FIELDS if key in command}
        permissions = command.get("default_member_permissions")
        if permissions is not None:  # Discord answers a string of digits; a request sends an integer
            entry["default_member_permissions"] = int(permissions)
        kept.append(entry)
    return kept


async def push_global_commands(client: discord.Client, payload: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Overwrite the global commands with ``payload`` (the command tree's) and the entry point command Discord
    made, if there is one; returns the commands Discord now has."""
    application_id = client.application_id
    if application_id is None:
        raise discord.app_commands.MissingApplicationID
    kept = entry_points(await global_commands(client, application_id))
    return await overwrite_global_commands(client, application_id, [*payload, *kept])
