"""How a game is stored, the same on every backend: its columns, one action as text, and a finished
game's actions packed into one value."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..stored import GameRecord
from .schema import BOOL, TABLE, columns

# The stored columns of a game that are GameRecord fields, in the order of the SELECTs.
FIELDS = tuple(name for name in columns("games") if name not in ("log", "hint_request"))
_FLAGS = frozenset(column.name for column in TABLE["games"].columns if column.kind == BOOL)
COLUMNS = ", ".join(FIELDS)


def encode_action(action: int | str) -> str:
    return json.dumps(action)


# A packed log: the number of actions (2 bytes), then 5 bits an action: pyramid spots 0-27, then these.
_LOG_CODES: dict[int | str, int] = {**{i: i for i in range(28)}, "waste": 28, "under": 29, "stock": 30, "undo": 31}
_LOG_ACTIONS: dict[int, int | str] = {code: action for action, code in _LOG_CODES.items()}
MAX_LOG = 0xFFFF


def pack_log(actions: Sequence[int | str]) -> bytes | None:
    """A game's actions in 5 bits each; ``None`` if one of them is not an action (or too many).

    Eight actions fill five bytes exactly, so the bits are built eight actions at a time (linear in the
    number of actions, where one growing integer would be quadratic)."""
    if len(actions) > MAX_LOG:
        return None
    try:
        codes = [_LOG_CODES[action] for action in actions]
    except (KeyError, TypeError):
        return None
    count = len(codes)
    codes += [0] * (-count % 8)
    packed = bytearray()
    for i in range(0, len(codes), 8):
        chunk = 0
        for code in codes[i : i + 8]:
            chunk = chunk << 5 | code
        packed += chunk.to_bytes(5, "big")
    return count.to_bytes(2, "big") + bytes(packed[: (count * 5 + 7) // 8])


def unpack_log(log: bytes) -> list[int | str]:
    count = int.from_bytes(log[:2], "big")
    size = (count * 5 + 7) // 8
    if len(log) != 2 + size:
        raise ValueError(f"packed log of {len(log)} bytes for {count} actions")
    body = bytes(log[2:]) + bytes(-size % 5)
    actions: list[int | str] = []
    for i in range(0, len(body), 5):
        chunk = int.from_bytes(body[i : i + 5], "big")
        actions += [_LOG_ACTIONS[chunk >> shift & 31] for shift in range(35, -1, -5)]
    return actions[:count]


def game_record(row: tuple[Any, ...] | Sequence[Any], actions: tuple[int | str, ...] = ()) -> GameRecord:
    """A game as stored, from a row of ``SELECT {COLUMNS}`` (either backend) and its actions as read."""
    data = dict(zip(FIELDS, row, strict=True))
    for name in _FLAGS:
        data[name] = bool(data[name])
    return GameRecord(**data, actions=actions)


def decode_action(text: str) -> int | str:
    value = json.loads(text)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"bad stored action {text!r}")
    return value
