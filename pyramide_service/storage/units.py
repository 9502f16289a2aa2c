"""A unit of storage work, as both backends run it: one ``Step`` (a statement, its arguments and what
to return), or a program: a generator that yields steps and receives their results (``queries``)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

T = TypeVar("T")
Mode = Literal["all", "one", "value", "changed", "many"]


@dataclass(frozen=True, slots=True)
class Step:
    """One statement: ``all`` rows, ``one`` row (or None), the first ``value`` of the first row (or None),
    the number of rows ``changed``, or ``many`` (the statement run once per tuple of ``args``)."""

    sql: str
    args: Sequence[Any]
    mode: Mode


Program = Generator[Step, Any, T]
Unit = Step | Callable[[], Program[Any]]


def rows(sql: str, *args: Any) -> Step:
    return Step(sql, args, "all")


def row(sql: str, *args: Any) -> Step:
    return Step(sql, args, "one")


def scalar(sql: str, *args: Any) -> Step:
    return Step(sql, args, "value")


def changed(sql: str, *args: Any) -> Step:
    return Step(sql, args, "changed")


def many(sql: str, args: Sequence[Sequence[Any]]) -> Step:
    return Step(sql, args, "many")


def postgres_sql(sql: str) -> str:
    """The statement with PostgreSQL's numbered placeholders (no statement here holds a literal ``?``)."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${number}{part}" for number, part in enumerate(parts[1:], start=1))
