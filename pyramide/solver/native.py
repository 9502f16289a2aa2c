"""The compiled copy of the limited-passes search (``pyramide/_fastsolve.c``), when it was built.

``PYRAMIDE_PURE_SOLVER=1`` switches it off; tests switch it off by setting ``core`` to ``None``."""

from __future__ import annotations

import os
from types import ModuleType

from ..rules import Rules

core: ModuleType | None
try:  # built from _fastsolve.c when a C compiler is there
    from .. import _fastsolve as core
except ImportError:  # pragma: no cover - depends on the machine
    core = None
if os.environ.get("PYRAMIDE_PURE_SOLVER"):
    core = None


def has_compiled_core() -> bool:
    """Whether the compiled core was built (and not switched off with PYRAMIDE_PURE_SOLVER)."""
    return core is not None


def compiled_for(rules: Rules) -> bool:
    """Whether the compiled core runs the searches under these rules: those with limited passes."""
    return has_compiled_core() and rules.pass_limit is not None
