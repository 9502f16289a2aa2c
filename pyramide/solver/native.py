"""The compiled copy of the limited-passes search (``pyramide/_fastsolve.c``), when it was built.

``PYRAMIDE_PURE_SOLVER=1`` switches it off; tests switch it off by setting ``core`` to ``None``."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from ..rules import Rules


def _load() -> ModuleType | None:
    if os.environ.get("PYRAMIDE_PURE_SOLVER", "").strip() == "1":
        return None
    try:  # built from _fastsolve.c when a C compiler is there
        return importlib.import_module("pyramide._fastsolve")
    except ImportError:  # pragma: no cover - depends on the machine
        return None


core: ModuleType | None = _load()


def switch_off() -> None:
    """Use the pure Python search from now on (``PYRAMIDE_PURE_SOLVER=1`` read from ``.env``, after this
    module was imported)."""
    global core
    core = None


def compiled() -> ModuleType:
    """The compiled core; only asked for where ``compiled_for`` said yes."""
    assert core is not None
    return core


def has_compiled_core() -> bool:
    """Whether the compiled core was built (and not switched off with PYRAMIDE_PURE_SOLVER)."""
    return core is not None


def compiled_for(rules: Rules) -> bool:
    """Whether the compiled core runs the searches under these rules: those with limited passes."""
    return has_compiled_core() and rules.pass_limit is not None
