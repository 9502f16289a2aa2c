"""A test that stops advancing fails, and says where it waits, instead of holding the run forever.

Each test (its set-up, body and tear-down) runs under a bound (``PYRAMIDE_TEST_BOUND`` seconds, 150 by
default: the slowest test takes about a fifth of that). Past it, a thread of this plugin writes to stderr
every thread's stack and every pending asyncio task of every running event loop (and to a file,
``pyramide-hang-<pid>.txt`` in the temporary folder), with each coroutine it awaits in turn, then cancels
those tasks so that the test fails and the run goes on (every task of the loop: where a module shares one
loop, as the browser tests do, its later tests fail with it; the stacks name the one that hung). If the test
still has not ended a minute later (a thread that never returns), the worker exits, and the run fails rather
than never ending."""

from __future__ import annotations

import asyncio
import faulthandler
import gc
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BOUND = float(os.environ.get("PYRAMIDE_TEST_BOUND", "150"))
LAST_CHANCE = 60.0  # seconds after the cancel before the worker gives up on the test


def running_loops() -> list[asyncio.AbstractEventLoop]:
    return [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop) and o.is_running()]


def awaiting(task: asyncio.Task[object]) -> list[str]:
    """Where the task waits, outermost first: its coroutine and each coroutine it awaits in turn (a suspended
    task's ``get_stack`` gives its outer frame only)."""
    lines: list[str] = []
    coro: Any = task.get_coro()
    while coro is not None and len(lines) < 40:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None) or getattr(coro, "ag_frame", None)
        if frame is not None:
            lines.append(f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None) or getattr(coro, "ag_await", None)
    return lines


def dump(test: str) -> list[asyncio.AbstractEventLoop]:
    """Every thread's stack and every running loop's pending tasks, to stderr and to a file of the system's
    temporary folder (a pytest-xdist worker's stderr may not reach the terminal); the loops found."""
    path = Path(tempfile.gettempdir()) / f"pyramide-hang-{os.getpid()}.txt"
    with path.open("a", encoding="utf-8") as out:
        out.write(f"\n===== {test} has run for {BOUND:.0f} s: where it waits =====\n")
        out.flush()
        faulthandler.dump_traceback(file=out, all_threads=True)
        loops = running_loops()
        for loop in loops:
            tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
            out.write(f"--- event loop {id(loop):#x}: {len(tasks)} pending tasks ---\n")
            for task in tasks:
                out.write(f"{task!r}\n")
                for line in awaiting(task):
                    out.write(f"    {line}\n")
    err = sys.__stderr__ or sys.stderr
    err.write(path.read_text(encoding="utf-8") + f"\n(written to {path})\n")
    err.flush()
    return loops


def cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    def cancel() -> None:
        for task in asyncio.all_tasks(loop):
            task.cancel(f"the test ran past its bound of {BOUND:.0f} s (stacks on stderr)")

    loop.call_soon_threadsafe(cancel)


class Watch:
    def __init__(self, test: str) -> None:
        self.test = test
        self.ended = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="hang-watch", daemon=True)

    def _watch(self) -> None:
        if self.ended.wait(BOUND):
            return
        for loop in dump(self.test):
            cancel_all(loop)
        if self.ended.wait(LAST_CHANCE):
            return
        (sys.__stderr__ or sys.stderr).write(f"===== {self.test} did not end after its cancel: exiting =====\n")
        faulthandler.dump_traceback(all_threads=True)
        os._exit(3)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    watch = Watch(item.nodeid)
    watch.thread.start()
    try:
        yield
    finally:
        watch.ended.set()
