"""The base of the requests the engine cannot serve, shared by the game manager and the solver service."""

from __future__ import annotations


class GameError(Exception):
    """A request that cannot be served; ``key`` names the message shown to the player."""

    key = "error"
