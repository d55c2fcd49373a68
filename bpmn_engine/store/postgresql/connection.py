"""One PostgreSQL connection, taking the statements the shared store code writes.

The concerns of the store (checkpoints, outbox, ...) are written once, in the SQL both
databases speak; what PostgreSQL says differently they ask its dialect for
(`dialect.py`: `%s` parameters, `timestamptz` instants, `IS NOT DISTINCT FROM`,
`SKIP LOCKED`). What it does differently (ids the database numbers, errors, locks, NOTIFY,
the server's clock) is overridden by the concern modules of this package.

The connection is in autocommit; `transaction()` is one transaction (read committed: every
compare-and-set is an `UPDATE ... WHERE version = ?`, which waits for a concurrent writer of
the row and then sees its result).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import psycopg
from psycopg.rows import dict_row

from bpmn_engine.dsn import redact, scrub
from bpmn_engine.errors import LoadError
from bpmn_engine.store.dialect import Dialect
from bpmn_engine.store.holders import close_holder, open_holder
from bpmn_engine.store.postgresql.dialect import POSTGRESQL
from bpmn_engine.store.postgresql.schema import found_version, upgrade
from bpmn_engine.store.schema import SCHEMA_VERSION


@cache
def _query(sql: str) -> bytes:
    """A shared statement as psycopg takes it (bytes: a query built at run time, which
    psycopg's `LiteralString` typing would refuse as text)."""
    return POSTGRESQL.bind(sql).encode()


class PgSql:
    """A psycopg connection that takes the shared statements (`?` parameters)."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.pg = conn

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> psycopg.Cursor:
        return self.pg.execute(_query(sql), params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> None:
        rows = list(rows)
        if rows:
            with self.pg.cursor() as cursor:
                cursor.executemany(_query(sql), rows)

    def query(self, sql: str, params: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
        """Rows as dicts (what `sqlite_utils.Database.query` gives the SQLite store)."""
        with self.pg.cursor(row_factory=dict_row) as cursor:
            cursor.execute(_query(sql), params)
            yield from cursor.fetchall()

    def close(self) -> None:
        self.pg.close()


class PostgresConnection:
    """The connection, its transactions, and who this process is (for claims on jobs)."""

    lease_seconds: float = 300.0  # how long a claim is presumed alive without a heartbeat
    owns_holder = True  # False for a second connection that renews this one's claims
    dialect: Dialect = POSTGRESQL

    def __init__(self, dsn: str, *, read_only: bool = False) -> None:
        """`read_only`: for commands that only look; an empty database is not created."""
        self.dsn = dsn
        self.path = redact(dsn)
        try:
            pg = psycopg.connect(dsn, autocommit=True, connect_timeout=10)
        except psycopg.Error as error:
            raise LoadError(f"cannot connect: {_first_line(error, dsn)}", file=self.path) from None
        except ValueError as error:  # psycopg's own checks of the URL (before it connects)
            raise LoadError(f"not a usable URL: {error}", file=self.path) from None
        try:
            pg.execute("SET TIME ZONE 'UTC'")
            found = found_version(pg)
            if read_only and found is None:
                raise LoadError("no bpmn-engine database yet: run a process first", file=self.path)
            if found is None or found < SCHEMA_VERSION:
                upgrade(pg)
            elif found > SCHEMA_VERSION:
                raise RuntimeError(f"the database has schema version {found}: upgrade bpmn-engine")
        except (psycopg.Error, LookupError, RuntimeError) as error:
            pg.close()
            raise LoadError(_first_line(error, dsn), file=self.path) from None
        except LoadError:
            pg.close()
            raise
        if read_only:  # a command that only looks cannot write, even by mistake
            pg.execute("SET default_transaction_read_only = on")
        self.conn = self.db = PgSql(pg)
        self.worker = open_holder(self)  # who claims jobs: this store (`store/holders.py`)

    def close(self) -> None:
        if self.owns_holder:  # its claims are orphans now, for the stores this process opens
            close_holder(self.worker)
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[PgSql]:
        with self.conn.pg.transaction():
            yield self.conn

    def another(self) -> PostgresConnection:
        """A second connection to the same database (a heartbeat thread needs its own)."""
        other = type(self)(self.dsn)
        close_holder(other.worker)
        other.worker = self.worker  # a claim is this store's, whatever thread renews it
        other.owns_holder = False
        return other


def _first_line(error: BaseException, dsn: str) -> str:
    """A server's or libpq's message, first line, never with the password in it."""
    return scrub((str(error).strip().splitlines() or [type(error).__name__])[0], dsn)
