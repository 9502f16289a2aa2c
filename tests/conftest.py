from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator

import pytest

from pyramide import Game
from pyramide_service.storage import Storage, from_url
from pyramide_service.workers import Workers
from tests.support import outside
from tests.support.deals import example_game
from tests.support.throwaway_postgres import (
    PostgresMissing,
    Recycled,
    ThrowawayPostgres,
    create_database,
    drop_database,
    run_to_end,
)

# The fixtures of the support modules, for every test module that asks for one by name.
pytest_plugins = ["tests.support.bot_process", "tests.support.event_steps", "tests.support.hang_watch"]


@pytest.fixture(autouse=True)
def cog_modules_kept() -> Iterator[None]:
    """The cogs' modules stay those of the whole run: discord.py's ``Bot.close`` unloads the extensions,
    which drops their modules from ``sys.modules``, and every later bot of the process would then run
    fresh copies of them (what a test patches in a module it imported would no longer reach the bot)."""
    kept = {name: module for name, module in sys.modules.items() if name == "cogs" or name.startswith("cogs.")}
    yield
    sys.modules.update(kept)


@pytest.fixture
def example() -> Game:
    return example_game()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI, what the tests need from outside the repository is required: a missing part stops the run
    here, in one line, before any test (and before pytest-xdist starts its workers)."""
    absent = outside.missing() if outside.required() else []
    if absent:
        raise pytest.UsageError("Required under CI: " + " ".join(f"{part.what}; {part.remedy}." for part in absent))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Elsewhere, one line for each part left out, with how to turn it on (under CI the run has stopped)."""
    for part in [] if outside.required() else outside.missing():
        terminalreporter.write_line(part.notice(), yellow=True)


BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test asking for ``backend`` (through ``storage``, ``harness`` or ``database_url``) runs on each database
    its closest ``backends`` mark names: the module's ``pytestmark``, or the test's own (a test about SQLite
    itself in a module of both); SQLite alone without one."""
    if "backend" not in metafunc.fixturenames:
        return
    mark = metafunc.definition.get_closest_marker("backends")
    names = mark.args if mark else ("sqlite",)
    unknown = [name for name in names if name not in BACKENDS]
    if unknown or not names:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: backends({names}) names none or unknown of {BACKENDS}")
    metafunc.parametrize("backend", list(names), indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server for the whole run: ``PYRAMIDE_TEST_DATABASE_URL``, or a throwaway one
    started here. Without PostgreSQL the tests that need it are skipped, except in CI, where they fail."""
    given = os.environ.get("PYRAMIDE_TEST_DATABASE_URL", "").strip()
    if given:
        yield given
        return
    server = ThrowawayPostgres()
    try:
        url = server.start()
    except PostgresMissing as missing:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is required in CI: {missing}", pytrace=False)
        pytest.skip(str(missing))
    try:
        yield url
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A new, empty PostgreSQL database of the test's own (a plain fixture, so that async ones can ask for it)."""
    url = run_to_end(create_database(postgres_server))
    yield url
    run_to_end(drop_database(postgres_server, url))


@pytest.fixture(scope="session")
def postgres_schema(postgres_server: str) -> str:
    """The name of a database the bot's storage has created its schema in, once for the run: each test's
    database is a copy (what an open migrates on a new database is tested on empty ones, ``postgres_url``)."""

    async def made() -> str:
        url = await create_database(postgres_server)
        store = from_url(url)
        await store.open()
        await store.close()
        return url.rpartition("/")[2]

    return run_to_end(made())


@pytest.fixture
def database_url(request: pytest.FixtureRequest, backend: str, tmp_path) -> Iterator[str]:
    """Where the test's storage lives: a SQLite file of its own, or a PostgreSQL database of its own (with
    the bot's schema already made, as after its first start)."""
    if backend != "postgresql":
        yield str(tmp_path / "pyramide.db")
        return
    databases: Recycled = request.getfixturevalue("postgres_databases")
    url = run_to_end(databases.take())
    yield url
    run_to_end(databases.give_back(url))


@pytest.fixture(scope="session")
def postgres_databases(postgres_server: str, postgres_schema: str) -> Iterator[Recycled]:
    """The tests' PostgreSQL databases, copies of the schema template, emptied between tests (``Recycled``)."""
    databases = Recycled(postgres_server, postgres_schema)
    yield databases
    run_to_end(databases.close())


@pytest.fixture
async def storage(database_url: str) -> AsyncIterator[Storage]:
    """An open storage on a real database of the test's own: a SQLite file (``storage.path``), or in the
    modules marked ``backends("sqlite", "postgresql")`` also a PostgreSQL database."""
    store = from_url(database_url)
    await store.open()
    yield store
    await store.close()


@pytest.fixture(scope="session")
def workers() -> Iterator[Workers]:
    """The solver's worker processes, started once for the run (each bot still gets a solver service of
    its own: its caches and queues are fresh in every test)."""
    pools = Workers()
    yield pools
    pools.close()


@pytest.fixture
async def harness(request: pytest.FixtureRequest, database_url: str, workers: Workers):
    """The real bot on a real database, with only Discord's HTTP edge replaced (tests/support/harness.py). Its
    application has run before (its card emojis are on Discord) unless the test is marked ``new_application``."""
    from tests.support.harness import Harness, Hub

    hub = Hub(new_application=request.node.get_closest_marker("new_application") is not None)
    h = await Harness(database_url, hub, workers=workers).start()
    yield h
    await h.stop()
    # Discord would have refused these (400 50035): a body its published API description does not allow.
    assert h.hub.invalid == [], "\n".join(h.hub.invalid)
