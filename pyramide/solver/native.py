"""The compiled copy of the limited-passes search (``pyramide/_fastsolve.c``), when it was built.

The bot's settings (``PYRAMIDE_PURE_SOLVER=1``) switch it off at start with ``switch_off``, in the bot's
process and in each worker it starts; tests switch it off by setting ``core`` to ``None``. Nothing here
reads the environment."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..rules import Rules


def _load() -> ModuleType | None:
    try:  # built from _fastsolve.c when a C compiler is there
        return importlib.import_module("pyramide._fastsolve")
    except ImportError:  # pragma: no cover - depends on the machine
        return None


core: ModuleType | None = _load()


def switch_off() -> None:
    """Use the pure Python search from now on: called once at a process's start, before any search (the
    bot's ``pure_solver`` setting; the worker processes' ``setup``)."""
    global core
    core = None


def compiled() -> ModuleType:
    """The compiled core; only asked for where ``compiled_for`` said yes."""
    assert core is not None
    return core


def has_compiled_core() -> bool:
    """Whether the compiled core was built (and not switched off with ``switch_off``)."""
    return core is not None


def compiled_for(rules: Rules) -> bool:
    """Whether the compiled core runs the searches under these rules: those with limited passes."""
    return has_compiled_core() and rules.pass_limit is not None
