"""Pyramide: the game of Pyramid solitaire as a pure Python library."""

from .cards import Card, InvalidCard
from .codes import InvalidCode, InvalidLayout
from .effects import Effect, GameResult, Spot
from .game import STOCK, UNDER, UNDO, WASTE, Game, InvalidAction, InvalidSpot, Move
from .rules import InvalidRules, Rules

__all__ = [
    "STOCK",
    "UNDER",
    "UNDO",
    "WASTE",
    "Card",
    "Effect",
    "Game",
    "GameResult",
    "InvalidAction",
    "InvalidCard",
    "InvalidCode",
    "InvalidLayout",
    "InvalidRules",
    "InvalidSpot",
    "Move",
    "Rules",
    "Spot",
]
