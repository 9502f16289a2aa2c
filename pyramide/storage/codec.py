"""How a game is stored, the same on every backend: its columns, one action as text, and a finished
game's actions packed into one value."""

from __future__ import annotations

import json

# The stored columns of a game, in the order of the backends' SELECTs; each is a GameRecord field.
FIELDS = (
    "id",
    "guild_id",
    "channel_id",
    "owner_id",
    "code",
    "rules",
    "status",
    "score",
    "moves",
    "removed",
    "hints",
    "message_id",
    "daily",
    "counted",
    "created_at",
    "started_at",
    "finished_at",
    "seconds",
    "locale",
)
COLUMNS = ", ".join(FIELDS)


def encode_action(action: int | str) -> str:
    return json.dumps(action)


# A packed log: the number of actions (2 bytes), then 5 bits an action: pyramid spots 0-27, then these.
_LOG_CODES: dict[int | str, int] = {**{i: i for i in range(28)}, "waste": 28, "under": 29, "stock": 30, "undo": 31}
_LOG_ACTIONS: dict[int, int | str] = {code: action for action, code in _LOG_CODES.items()}
MAX_LOG = 0xFFFF


def pack_log(actions: list[int | str]) -> bytes | None:
    """A game's actions in 5 bits each; ``None`` if one of them is not an action (or too many)."""
    if len(actions) > MAX_LOG:
        return None
    bits = 0
    try:
        for action in actions:
            bits = bits << 5 | _LOG_CODES[action]
    except (KeyError, TypeError):
        return None
    size = (len(actions) * 5 + 7) // 8
    return len(actions).to_bytes(2, "big") + (bits << (size * 8 - len(actions) * 5)).to_bytes(size, "big")


def unpack_log(log: bytes) -> list[int | str]:
    count = int.from_bytes(log[:2], "big")
    size = (count * 5 + 7) // 8
    if len(log) != 2 + size:
        raise ValueError(f"packed log of {len(log)} bytes for {count} actions")
    bits = int.from_bytes(log[2:], "big") >> (size * 8 - count * 5)
    return [_LOG_ACTIONS[bits >> (5 * (count - 1 - i)) & 31] for i in range(count)]


def decode_action(text: str) -> int | str:
    value = json.loads(text)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"bad stored action {text!r}")
    return value
