"""What the tests need from outside the repository, under one rule: a fresh clone with nothing beside it
passes its tests. Under ``CI`` each of these is required, and a missing one stops the run at its start with
one line (``conftest.pytest_sessionstart``); elsewhere the tests run without it (the part that needs it left
out, or skipped) and the run's summary gives one line for each, saying what was left out and how to turn
it on (``conftest.pytest_terminal_summary``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pyramide.solver import native
from pyramide_bot.activity import page_built
from tests.support import discord_api
from tests.support.activity_browser import AXE, chromium_found
from tests.support.throwaway_postgres import PostgresMissing, binaries


@dataclass(frozen=True)
class Missing:
    what: str  # what is not here, and where it was looked for
    left_out: str  # what the tests do without it
    remedy: str  # how to turn it on, in the imperative

    def notice(self) -> str:
        return f"{self.what}: {self.left_out}; {self.remedy}."


def required() -> bool:
    """Whether this is CI, where nothing may be left out."""
    return bool(os.environ.get("CI"))


def missing() -> list[Missing]:
    """What the tests would need from outside the repository and do not find here."""
    absent = []
    if not discord_api.found():
        absent.append(
            Missing(
                f"Discord's API description not found at {discord_api.sought()}",
                "request bodies were not checked against it",
                f"get it from {discord_api.PUBLISHED} and set {discord_api.VARIABLE} to its path",
            )
        )
    if not os.environ.get("PYRAMIDE_TEST_DATABASE_URL", "").strip():
        try:
            binaries()
        except PostgresMissing:
            absent.append(
                Missing(
                    "PostgreSQL not found (no initdb and pg_ctl, PYRAMIDE_TEST_DATABASE_URL unset)",
                    "the tests on PostgreSQL were skipped",
                    "install the postgresql server package (the tests start their own server), "
                    "set PYRAMIDE_PG_BIN to its binaries, or set PYRAMIDE_TEST_DATABASE_URL",
                )
            )
    if native.core is None:
        absent.append(
            Missing(
                "Compiled solver core not built (pyramide/_fastsolve.c, no C compiler at set-up)",
                "its tests were skipped and the Python search ran",
                "install gcc and the Python headers, then run "
                "`.venv/bin/python -m pip install --no-deps --no-build-isolation -e .`",
            )
        )
    if chromium_found() is None:
        absent.append(
            Missing(
                "Chromium or Playwright not found (/usr/bin/chromium, the playwright package)",
                "the Activity's browser tests were skipped",
                "install Debian's chromium package and the test requirements (scripts/setup.sh test)",
            )
        )
    if not page_built():
        absent.append(
            Missing(
                "The Activity's page not built (web/build/sdk.js: Node.js and npm at set-up)",
                "the Activity's browser tests were skipped",
                "install Node.js and npm, then run `bash scripts/setup.sh test`",
            )
        )
    elif not AXE.is_file():
        absent.append(
            Missing(
                "axe-core not installed (web/node_modules/axe-core: npm ci at set-up)",
                "the Activity's accessibility tests were skipped",
                "run `bash scripts/setup.sh test`",
            )
        )
    return absent
