"""What a worker process runs as it starts, before any work: it never outlives the process that started it.

Here, in the library (standard library only), and not beside the pools in ``pyramide_service.workers``: a
spawned worker imports the module of its initializer, and that package's ``__init__`` would load the database
drivers and the storage into every worker (about 0.35 s of CPU each, at every start and every replacement).

Dying with the parent, ``kill -9`` included: a worker asks the kernel for SIGKILL when its parent dies
(``PR_SET_PDEATHSIG``, Linux), checks right after that its parent is still the process that started it (the
parent may have died between the fork and the request), and keeps a watchdog thread polling its parent (other
systems, and a second line of defence).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_SECONDS = 1.0  # how often a worker's watchdog looks for its parent


def die_with_parent(parent: int) -> None:
    """The initializer of every worker: end this process when ``parent`` ends, however it ends."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(ctypes.c_int(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the watchdog below still works
            pass
    if os.getppid() != parent:  # the parent died before the request above could cover it
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watchdog", daemon=True).start()


def start_worker(parent: int, setup: Callable[[], None] | None) -> None:
    """The initializer of every worker: watch ``parent``, then ``setup`` (what the process that starts
    the workers chose at its start, such as the pure Python solver), so a worker never reads the
    environment itself."""
    die_with_parent(parent)
    if setup is not None:
        setup()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:  # re-parented: the process that started this worker is gone
            os._exit(1)
