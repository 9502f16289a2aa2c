"""A storage operation, written once for both backends: an async method that takes a transaction (``Tx``)
and runs its statements on it, made a ``Storage`` method by ``read`` or ``write``.

    @read()
    async def race_stats(self, db: Tx, guild_id: int, player_id: int) -> RaceStats:
        found = await db.row(RACE_STATS, guild_id, player_id)
        ...

The decorator gives the method its public signature (``storage.race_stats(guild_id, player_id)``) and
hands the body to the backend (``Backend._read``, ``Backend._write``), which runs it as one unit of work:
a read in one snapshot, never older than the last acknowledged write; a write in one transaction (all of
it or, on any error, none of it, and nothing of any other unit in between). Parts shared by several
operations are plain async functions over a ``Tx`` (``await events.close_entry(db, record)``).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Concatenate, Literal, ParamSpec, Protocol, TypeVar

T = TypeVar("T")
P = ParamSpec("P")
B = TypeVar("B", bound="Backend")
Dialect = Literal["sqlite", "postgresql"]


class Tx(Protocol):
    """One connection, inside one unit of work. ``?`` placeholders on both backends; rows are sequences
    (index them). ``conflicts``: the driver's errors for a broken key or foreign key, where an operation
    turns one into its own answer (``MoveConflict``). A statement whose answer is awaited sees every
    statement the unit ran before it."""

    dialect: Dialect
    conflicts: tuple[type[BaseException], ...]

    async def rows(self, sql: str, *args: Any) -> Sequence[Sequence[Any]]: ...
    async def row(self, sql: str, *args: Any) -> Sequence[Any] | None: ...
    async def value(self, sql: str, *args: Any) -> Any: ...  # the first column of the first row, or None
    async def changed(self, sql: str, *args: Any) -> int: ...  # the rows the statement changed
    async def execute(self, sql: str, *args: Any, conflict: Exception | None = None) -> None:
        """A statement whose answer the unit does not need: a backend may send it on without waiting for
        it (SQLite's writer does), its failure failing the unit all the same; ``conflict`` is raised
        instead of the driver's error for a broken key or foreign key."""

    async def many(self, sql: str, args: Sequence[Sequence[Any]]) -> None: ...  # once per tuple of args


Work = Callable[[Tx], Awaitable[T]]


class Backend:
    """What a backend provides to the operations: running a unit of work. ``several`` says the unit runs
    more than one statement, so it needs a snapshot or a transaction of its own even where a single
    statement would not (PostgreSQL runs a one-statement unit alone, SQLite a one-statement read without a
    transaction; such a unit that tried a second statement would fail loudly). ``long`` marks maintenance
    that may take longer than a press may wait; ``retry`` whether a write may run again after a cut
    connection (every write here is idempotent or guarded by a key, except those that pass False)."""

    async def _read(self, work: Work[T], *, several: bool, long: bool) -> T:
        raise NotImplementedError

    async def _write(self, work: Work[T], *, several: bool, long: bool, retry: bool) -> T:
        raise NotImplementedError


Operation = Callable[Concatenate[B, Tx, P], Awaitable[T]]
Method = Callable[Concatenate[B, P], Coroutine[Any, Any, T]]  # (as an ``async def`` is: a protocol's too)


def read(*, several: bool = False, long: bool = False) -> Callable[[Operation[B, P, T]], Method[B, P, T]]:
    """The method that runs this body as a read."""

    def make(body: Operation[B, P, T]) -> Method[B, P, T]:
        async def method(self: B, /, *args: P.args, **kwargs: P.kwargs) -> T:
            return await self._read(lambda db: body(self, db, *args, **kwargs), several=several, long=long)

        functools.update_wrapper(method, body)  # its name and its documentation
        return method

    return make


def write(
    *, several: bool = False, long: bool = False, retry: bool | Callable[..., bool] = True
) -> Callable[[Operation[B, P, T]], Method[B, P, T]]:
    """The method that runs this body as a write (``retry``: or whether it may, given the call's arguments)."""

    def make(body: Operation[B, P, T]) -> Method[B, P, T]:
        async def method(self: B, /, *args: P.args, **kwargs: P.kwargs) -> T:
            again = retry if isinstance(retry, bool) else retry(*args, **kwargs)
            return await self._write(
                lambda db: body(self, db, *args, **kwargs), several=several, long=long, retry=again
            )

        functools.update_wrapper(method, body)
        return method

    return make


def postgres_sql(sql: str) -> str:
    """The statement with PostgreSQL's numbered placeholders (no statement here holds a literal ``?``)."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${number}{part}" for number, part in enumerate(parts[1:], start=1))
