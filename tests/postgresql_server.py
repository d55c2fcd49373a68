"""The PostgreSQL server the tests use, and a fresh schema for each test that asks.

`BPMN_TEST_POSTGRESQL` names a server (a `postgresql://` URL; `.ci/run` starts one and sets
it). Without it, outside CI, a throwaway cluster is started from the PostgreSQL binaries
found here (initdb, pg_ctl) and stopped when the tests end; with no binaries the PostgreSQL
tests skip, saying why. In CI (`CI` set), or when the variable is set but the server cannot
be reached, they fail: the PostgreSQL half is never skipped silently.

Each pytest process (each `pytest-xdist` worker, or the one process without it) makes a
database of its own on that server and drops it at the end: advisory locks (deploys,
messages, instance claims) and `NOTIFY` are per database, so one worker's test never waits
for, or is woken by, another's. Every connection a test makes has `lock_timeout` and
`statement_timeout`: a test stuck on a lock fails in seconds, naming itself, instead of
hanging the suite.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

ENV = "BPMN_TEST_POSTGRESQL"
WORKER_ENV = "PYTEST_XDIST_WORKER"  # set by pytest-xdist in each worker: gw0, gw1, ...
# every test connection's bounds: far above any test's own waits, far below a hung suite
TIMEOUTS = "-clock_timeout=30s -cstatement_timeout=60s"
_created: list[tuple[str, str, bool]] = []  # (server URL, schema, reusable) a test used


def binaries() -> Path | None:
    """The directory holding initdb and pg_ctl, if PostgreSQL is installed here."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for directory in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(directory, "initdb").exists():
            return Path(directory)
    return None


def start_cluster(bin_dir: Path) -> str:
    """initdb into a temporary directory, start it on a unix socket there, stop it at exit.
    initdb refuses root: as root the cluster runs as the `postgres` user. (bench/pg_load.py
    starts its server with this too.)"""
    home = Path(tempfile.mkdtemp(prefix="bpmn-pg-"))
    run_as: list[str] = []
    if os.geteuid() == 0:
        run_as = ["runuser", "-u", "postgres", "--"]
        shutil.chown(home, "postgres")
    data, log = home / "data", home / "log"
    subprocess.run(
        [
            *run_as,
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
        ],
        check=True,
        capture_output=True,
    )
    options = f"-k {home} -c listen_addresses='' -c fsync=off -c synchronous_commit=off"
    options += " -c max_connections=200"  # engines a test leaves open hold theirs till GC
    subprocess.run(
        [
            *run_as,
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(log),
            "-w",
            "start",
        ],
        check=True,
        capture_output=True,
    )

    def stop() -> None:
        subprocess.run(
            [*run_as, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(home, ignore_errors=True)

    atexit.register(stop)
    return f"postgresql://postgres@/postgres?host={quote(str(home), safe='')}"


@cache
def _server() -> tuple[str | None, str]:
    """(URL of a reachable server, or None; why not)."""
    import psycopg

    url = os.environ.get(ENV)
    if not url:
        if os.environ.get("CI"):
            return None, f"CI expects PostgreSQL: set {ENV} (.ci/run starts a server)"
        found = binaries()
        if found is None:
            return None, f"no PostgreSQL here: install it, or set {ENV} to a server's URL"
        try:
            url = start_cluster(found)
        except (OSError, subprocess.CalledProcessError) as error:
            return None, f"could not start a throwaway PostgreSQL cluster: {error}"
    try:
        psycopg.connect(url, connect_timeout=10).close()
    except psycopg.Error as error:
        return None, f"PostgreSQL at {ENV} is not reachable: {str(error).strip()}"
    try:
        return _own_database(url), ""
    except psycopg.Error as error:
        return None, f"could not make the tests' database on PostgreSQL: {str(error).strip()}"


_databases: list[tuple[str, str]] = []  # (server URL, database) this process made


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _own_database(url: str) -> str:
    """A database of this process's own on the server at `url` (dropped at the end by
    `drop_pool`); the database `url` names when the role may not create one (the schemas
    are still a test's own, only advisory locks are then shared with other workers)."""
    import psycopg

    worker = os.environ.get(WORKER_ENV, "main")
    name = f"bpmn_test_{worker}_{uuid.uuid4().hex[:8]}".lower()
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.errors.InsufficientPrivilege:
        return url
    _databases.append((url, name))
    return _with_database(url, name)


def expected() -> bool:
    """Whether a missing server is a failure (CI, or a server was named), not a skip."""
    return bool(os.environ.get("CI") or os.environ.get(ENV))


def server_url() -> str:
    """The server's URL; fails (CI, or a server named) or skips the test when there is none."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        reason = "psycopg is not installed: pip install -e '.[test]'"
        if expected():
            pytest.fail(reason)
        pytest.skip(reason)
    url, why = _server()
    if url is None:
        if expected():
            pytest.fail(why)
        pytest.skip(why)
    return url


def _admin(url: str) -> Any:
    """One autocommit connection per server for making and cleaning schemas."""
    import psycopg

    conn = _admins.get(url)
    if conn is None or conn.closed:
        conn = _admins[url] = psycopg.connect(url, autocommit=True, options=TIMEOUTS)
    return conn


_admins: dict[str, Any] = {}
_pool: list[tuple[str, str]] = []  # (server URL, schema): emptied behaviour-test schemas


def _schema_url(url: str, schema: str) -> str:
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options={quote(f'-csearch_path={schema} {TIMEOUTS}', safe='')}"


def fresh_url(*, reuse: bool = False) -> str:
    """A URL whose tables live in a schema of its own (search_path): a test sees only its
    own rows. A new, empty schema; with `reuse`, possibly one an earlier behaviour test used
    and that was emptied since (every row deleted, ids restarted): making the tables is what
    costs, not the test."""
    url = server_url()
    if reuse and _pool:
        url, schema = _pool.pop()
    else:
        schema = f"t_{uuid.uuid4().hex[:16]}"
        _admin(url).execute(f'CREATE SCHEMA "{schema}"')
    _created.append((url, schema, reuse))
    return _schema_url(url, schema)


def _emptied(url: str, schema: str) -> bool:
    """Delete every row of a schema the store made (nothing else changed in it); False when
    it is not as the store makes it (then it is dropped instead)."""
    import psycopg

    from bpmn_engine.store.postgresql.schema import schema as described
    from bpmn_engine.store.schema import SCHEMA_VERSION

    tables = described().tables
    conn = _admin(url)
    found = {
        r[0]
        for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
        )
    }
    if found != set(tables):
        return False
    script = [f'SET LOCAL search_path TO "{schema}"']
    script += [f'DELETE FROM "{name}"' for name in tables if name != "meta"]
    script += [
        f'ALTER TABLE "{t.name}" ALTER COLUMN "{t.key[0]}" RESTART'
        for t in tables.values()
        if t.identity
    ]
    try:
        with conn.transaction():
            row = conn.execute(
                f"SELECT value FROM \"{schema}\".meta WHERE key = 'schema_version'"
            ).fetchone()
            if row is None or int(row[0]) != SCHEMA_VERSION:
                return False
            conn.execute(";\n".join(script))
    except psycopg.Error:
        return False
    return True


def drop_schemas() -> None:
    """Drop the schemas the tests made, or empty behaviour tests' schemas for the next one
    (a server named by the user keeps nothing of ours when the tests end)."""
    import psycopg

    while _created:
        url, schema, reuse = _created.pop()
        try:
            if reuse and _emptied(url, schema):
                _pool.append((url, schema))
            else:
                _admin(url).execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        except psycopg.Error:
            pass  # the server went away: nothing left to clean
    _shared.clear()


def drop_pool() -> None:
    """At the end of the tests: drop the emptied schemas kept for reuse, and the database
    this process made (closing what engines a test left open still hold in it)."""
    while _pool:
        _created.append((*_pool.pop(), False))
    drop_schemas()
    while _admins:
        _admins.popitem()[1].close()
    while _databases:
        import psycopg

        server, name = _databases.pop()
        try:
            with psycopg.connect(server, autocommit=True, connect_timeout=10) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except psycopg.Error:
            pass  # the server went away: nothing left to clean


STORE_ENV = "BPMN_TEST_STORE"  # `sqlite` or `postgresql`: the behaviour suites on that one only
STORES = ("sqlite", "postgresql")
_current: list[str] = []  # the store of the behaviour test running now (`each_store`)


def stores() -> list[str]:
    """The stores the behaviour suites (tests/runtime, tests/worker) run on: both, or the
    one `BPMN_TEST_STORE` names (a quicker local run)."""
    chosen = os.environ.get(STORE_ENV)
    if chosen and chosen not in STORES:
        raise pytest.UsageError(f"{STORE_ENV}={chosen!r}: expected one of {', '.join(STORES)}")
    return [chosen] if chosen else list(STORES)


def on_postgresql() -> bool:
    """Whether the behaviour test running now runs on PostgreSQL."""
    return (_current[-1] if _current else os.environ.get(STORE_ENV, "sqlite")) == "postgresql"


@pytest.fixture(autouse=True, params=stores())
def each_store(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every behaviour test runs once per store (its id says which): its engines open
    `scratch_db()` / `shared_db()`, SQLite or a fresh PostgreSQL schema. The PostgreSQL half
    skips, saying why, when there is no server here, and fails in CI (`server_url`)."""
    if request.param == "postgresql":
        server_url()
    _current.append(request.param)
    try:
        yield request.param
    finally:
        _current.pop()


def scratch_db() -> str:
    """The database a behaviour test's engine starts on: `:memory:`, or in the PostgreSQL
    pass a fresh schema (dropped when the test ends)."""
    return fresh_url(reuse=True) if on_postgresql() else ":memory:"


_shared: dict[str, str] = {}  # a test's database file -> its PostgreSQL schema in that pass


def shared_db(path: Path) -> Path | str:
    """The database a test names by a file (several engines and processes share it): that
    file, or in the PostgreSQL pass one fresh schema per file."""
    if not on_postgresql():
        return path
    if str(path) not in _shared:
        _shared[str(path)] = fresh_url(reuse=True)
    return _shared[str(path)]
