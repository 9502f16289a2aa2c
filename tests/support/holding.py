"""Work for a worker process that keeps it busy until the test lets it go (imported by the worker)."""

from __future__ import annotations

import time
from pathlib import Path


def hold_until(path: str, timeout: float = 30.0) -> bool:
    """Keep the worker busy until ``path`` exists, at most ``timeout`` seconds; whether it was let go."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if Path(path).exists():
            return True
        time.sleep(0.02)
    return False
