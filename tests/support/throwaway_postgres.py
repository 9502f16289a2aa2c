"""A throwaway PostgreSQL server for the tests and benches: a temporary data directory, a free port on
127.0.0.1, stopped (and deleted) at the end.

It is started from the installed server binaries (Debian's ``/usr/lib/postgresql/N/bin``, or the
``pg_ctl`` on PATH, or ``PYRAMIDE_PG_BIN``). PostgreSQL refuses to run as root: as root, the server is
run as the ``postgres`` system user (``runuser``), which owns its temporary directory.

Why not pytest-postgresql's process fixture: it runs ``pg_ctl`` as the current user, and CI runs as
root, where the server will not start.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import asyncpg

T = TypeVar("T")


class PostgresMissing(RuntimeError):
    """No PostgreSQL server binaries here (or they could not start a server)."""


def binaries() -> Path:
    """The folder of ``initdb``, ``pg_ctl`` and ``postgres``: the newest installed version."""
    given = os.environ.get("PYRAMIDE_PG_BIN", "").strip()
    candidates = [given] if given else []
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(str(Path(on_path).parent))
    versions = glob.glob("/usr/lib/postgresql/*/bin")
    candidates += sorted(versions, key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0)[::-1]
    for folder in candidates:
        if (Path(folder) / "initdb").is_file() and (Path(folder) / "pg_ctl").is_file():
            return Path(folder)
    raise PostgresMissing(
        "no PostgreSQL server binaries (initdb, pg_ctl) found: install the distribution's postgresql package "
        "(Debian: apt-get install postgresql), or set PYRAMIDE_TEST_DATABASE_URL"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ThrowawayPostgres:
    """``start()`` gives the URL of a fresh server's ``postgres`` database (user ``postgres``, no password,
    only on 127.0.0.1); ``stop()`` ends it and deletes its files."""

    def __init__(self, *, durable: bool = False) -> None:
        self.durable = durable  # fsync on, as in production (benches); tests run without it
        self.folder: Path | None = None
        self.port = 0
        self._bin: Path | None = None
        self._as_postgres = os.geteuid() == 0

    def _run(self, *command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if self._as_postgres else []
        return subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=timeout, check=False)

    def start(self) -> str:
        self._bin = binaries()
        if self._as_postgres:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresMissing("running as root, with no postgres system user to run the server") from None
        # A folder (and so a socket and a data directory) of this process's own; under pytest-xdist, named
        # after the worker, so that a server left running can be told apart in ``ps``.
        worker = os.environ.get("PYTEST_XDIST_WORKER", "")
        self.folder = Path(tempfile.mkdtemp(prefix=f"pyramide-pg-{worker}-" if worker else "pyramide-pg-"))
        if self._as_postgres:
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
        data = self.folder / "data"
        made = self._run(
            str(self._bin / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"
        )
        if made.returncode != 0:
            self._remove()
            raise PostgresMissing(f"initdb failed: {made.stderr.strip()[-400:]}")
        settings = [
            "-c listen_addresses=127.0.0.1",
            f"-k {self.folder}",
            "-c max_connections=200",
            "-c shared_buffers=64MB",
        ]
        if not self.durable:
            settings += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        for _ in range(3):  # a port taken between the probe and the start: try another one
            self.port = free_port()
            started = self._run(
                str(self._bin / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(self.folder / "server.log"),
                "-w",
                "-t",
                "60",
                "-o",
                " ".join([f"-p {self.port}", *settings]),
                "start",
            )
            if started.returncode == 0:
                return self.url
        log = (self.folder / "server.log").read_text(errors="replace")[-600:] if self.folder else ""
        self._remove()
        raise PostgresMissing(f"the PostgreSQL server did not start: {started.stderr.strip()[-300:]} {log}")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        if self.folder is None or self._bin is None:
            return
        self._run(str(self._bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        self._remove()

    def _remove(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


_names = itertools.count()


def database_url(server_url: str, name: str) -> str:
    """The URL of database ``name`` on the server of ``server_url``."""
    base, _, _ = server_url.rpartition("/")
    return f"{base}/{name}"


async def create_database(server_url: str, template: str = "template0") -> str:
    """A new database on that server, a copy of ``template`` (by default an empty one); returns its URL."""
    name = f"pyramide_test_{os.getpid()}_{next(_names)}"
    connection = await asyncpg.connect(server_url)
    try:
        try:
            await connection.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        except asyncpg.PostgresSyntaxError:  # before PostgreSQL 15
            await connection.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    finally:
        await connection.close()
    return database_url(server_url, name)


async def drop_database(server_url: str, url: str) -> None:
    name = url.rpartition("/")[2]
    connection = await asyncpg.connect(server_url)
    try:
        with contextlib.suppress(asyncpg.PostgresError):
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await connection.close()


def run_to_end(work: Coroutine[object, object, T]) -> T:
    """Run a coroutine to its end from synchronous code, even while an event loop runs in this thread."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, work).result()


def fetch(url: str, query: str) -> list[tuple]:
    """The rows of a query, from synchronous code (even while an event loop runs in this thread)."""

    async def run() -> list[tuple]:
        connection = await asyncpg.connect(url)
        try:
            return [tuple(row) for row in await connection.fetch(query)]
        finally:
            await connection.close()

    return run_to_end(run())


def server_processes(url: str) -> list[int]:
    """The processes of the PostgreSQL server of ``url`` (its postmaster first, then its children), found
    from its data folder; none for a server this machine cannot see (another machine's)."""
    folder = fetch(url, "SHOW data_directory")[0][0]
    try:
        postmaster = int((Path(folder) / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):  # (a process that ended meanwhile)
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                children.append(int(stat.parent.name))
    return [postmaster, *children]


def signal_all(pids: list[int], number: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, number)


class Frozen:
    """Processes stopped with SIGSTOP (a PostgreSQL server frozen as a network stall would freeze it; root
    may signal the postgres user's processes) until ``thaw()``, or at the latest ``longest`` seconds
    later: a detached ``kill -CONT`` is left waiting, so that a test killed meanwhile leaves no frozen
    server behind."""

    def __init__(self, pids: list[int], longest: float = 30.0) -> None:
        self.pids = pids
        signal_all(pids, signal.SIGSTOP)
        listed = " ".join(str(pid) for pid in pids)
        self._thawer: subprocess.Popen[bytes] | None = subprocess.Popen(
            ["sh", "-c", f"sleep {longest}; kill -CONT {listed} 2>/dev/null"], start_new_session=True
        )

    def thaw(self) -> None:
        signal_all(self.pids, signal.SIGCONT)
        if self._thawer is not None:
            self._thawer.kill()
            self._thawer.wait()
            self._thawer = None


# What a database made from the schema template holds besides its rows (tables, indexes, views, sequences,
# columns, constraints, triggers, functions, types, the database's own settings): a database whose objects
# still match it can be emptied for the next test instead of dropped.
_SHAPE = """
SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'),
       (SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal),
       (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'),
       (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public'),
       (SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND a.attnum > 0),
       (SELECT count(*) FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace WHERE n.nspname = 'public'),
       (SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
          WHERE d.datname = current_database()),
       (SELECT COALESCE(MAX(version), 0) FROM pyramide_schema)
"""


_TABLES = "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'pyramide_schema'"
_HELD = "SELECT '{0}' WHERE EXISTS (SELECT FROM {0})"
_USED = "SELECT quote_ident(sequencename) FROM pg_sequences WHERE schemaname = 'public' AND last_value IS NOT NULL"


class Recycled:
    """Each test's PostgreSQL database, a copy of the schema template: made with ``CREATE DATABASE`` (about
    0.2 s of the server's time) only when no earlier test's database could be emptied for it. After a test
    its database is emptied (every connection to it ended, the tables holding a row truncated, every sequence
    drawn on restarted: as the template was) if its objects are still the template's; otherwise (a test changed
    the schema, a lock held) it is dropped."""

    def __init__(self, server_url: str, template: str) -> None:
        self.server_url, self.template = server_url, template
        self.spare: str | None = None
        self.shape: tuple[int, ...] | None = None
        self.tables: list[str] | None = None

    async def take(self) -> str:
        url, self.spare = self.spare, None
        return url or await create_database(self.server_url, self.template)

    async def give_back(self, url: str) -> None:
        if not await self._emptied(url):
            await drop_database(self.server_url, url)
        elif self.spare is None:
            self.spare = url
        else:
            await drop_database(self.server_url, url)

    async def _emptied(self, url: str) -> bool:
        name = url.rpartition("/")[2]
        try:  # (a server given by PYRAMIDE_TEST_DATABASE_URL may not let its user end others' sessions)
            server = await asyncpg.connect(self.server_url)
            try:
                await server.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = $1 AND pid <> pg_backend_pid()",
                    name,
                )
            finally:
                await server.close()
        except (OSError, asyncpg.PostgresError):
            return False
        try:
            connection = await asyncpg.connect(url)
        except (OSError, asyncpg.PostgresError):
            return False
        try:
            shape = tuple(await connection.fetchrow(_SHAPE))
            if self.shape is None:  # the first database given back was a fresh copy: the template's shape
                self.shape = await self._template_shape()
            if shape != self.shape:
                return False
            if self.tables is None:
                self.tables = [t[0] for t in await connection.fetch(_TABLES)]
            await connection.execute("SET lock_timeout = '2s'")
            # Only the tables the test wrote: a TRUNCATE costs a new file for each table it names.
            held = [t[0] for t in await connection.fetch(" UNION ALL ".join(_HELD.format(t) for t in self.tables))]
            used = [s[0] for s in await connection.fetch(_USED)]  # a sequence drawn on, rows kept or not
            work = [f"TRUNCATE {', '.join(held)} CASCADE"] if held else []
            work += [f"ALTER SEQUENCE {sequence} RESTART" for sequence in used]
            if work:
                await connection.execute("; ".join(work))
            return True
        except (OSError, asyncpg.PostgresError):
            return False
        finally:
            await connection.close()

    async def _template_shape(self) -> tuple[int, ...]:
        connection = await asyncpg.connect(database_url(self.server_url, self.template))
        try:
            return tuple(await connection.fetchrow(_SHAPE))
        finally:
            await connection.close()

    async def close(self) -> None:
        if self.spare is not None:
            await drop_database(self.server_url, self.spare)
            self.spare = None
