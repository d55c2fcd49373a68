"""One PostgreSQL connection, and the SQL the SQLite concerns write, spoken in PostgreSQL.

The concerns of the SQLite store (checkpoints, outbox, ...) are written against a DB-API
connection with `?` parameters. Most of their statements are standard SQL; `PgSql` turns the
few SQLite phrases they use into PostgreSQL (`?` parameters, `INSERT OR IGNORE`/`OR REPLACE`
as `ON CONFLICT`, `julianday()` as a cast to timestamptz, `IS ?` as `IS NOT DISTINCT FROM`),
once per statement. What cannot be translated (ids the database numbers, errors, locks) is
overridden by the concern modules of this package.

The connection is in autocommit; `transaction()` is one transaction (read committed: every
compare-and-set is an `UPDATE ... WHERE version = ?`, which waits for a concurrent writer of
the row and then sees its result).
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import psycopg
from psycopg.rows import dict_row

from bpmn_engine.dsn import redact, scrub
from bpmn_engine.errors import LoadError
from bpmn_engine.store.postgresql.schema import found_version, schema, upgrade
from bpmn_engine.store.schema import SCHEMA_VERSION

_OR_REPLACE = re.compile(r"INSERT OR REPLACE INTO (\w+) \(([^)]*)\)(.*)", re.S)


@cache
def translate(sql: str) -> str:
    """The SQLite statement `sql` in PostgreSQL."""
    sql = sql.replace("%", "%%")
    if sql.startswith("INSERT OR IGNORE INTO"):
        sql = sql.replace("INSERT OR IGNORE INTO", "INSERT INTO", 1) + " ON CONFLICT DO NOTHING"
    match = _OR_REPLACE.match(sql)
    if match:
        table, columns, rest = match.groups()
        key = schema().tables[table].key
        names = [c.strip() for c in columns.split(",")]
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in names if c not in key)
        sql = f"INSERT INTO {table} ({columns}){rest} ON CONFLICT ({', '.join(key)}) " + (
            f"DO UPDATE SET {updates}" if updates else "DO NOTHING"
        )
    sql = re.sub(r"julianday\(([^)]*)\)", r"(\1)::timestamptz", sql)
    sql = re.sub(r"\bIS \?", "IS NOT DISTINCT FROM ?", sql)
    sql = sql.replace("? IS NULL", "?::text IS NULL")
    return sql.replace("?", "%s")


class PgSql:
    """A psycopg connection that takes the SQLite concerns' statements (see `translate`)."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.pg = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor:
        return self.pg.execute(translate(sql), params)  # type: ignore[arg-type]

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        rows = list(rows)
        if rows:
            with self.pg.cursor() as cursor:
                cursor.executemany(translate(sql), rows)  # type: ignore[arg-type]

    def query(self, sql: str, params: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
        """Rows as dicts (what `sqlite_utils.Database.query` gives the SQLite store)."""
        with self.pg.cursor(row_factory=dict_row) as cursor:
            cursor.execute(translate(sql), params)  # type: ignore[arg-type]
            yield from cursor.fetchall()

    def close(self) -> None:
        self.pg.close()


class PostgresConnection:
    """The connection, its transactions, and who this process is (for claims on jobs)."""

    lease_seconds: float = 300.0  # how long a claim is presumed alive without a heartbeat

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
        self.worker = f"{socket.gethostname()}:{os.getpid()}"

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[PgSql]:
        with self.conn.pg.transaction():
            yield self.conn

    def another(self) -> PostgresConnection:
        """A second connection to the same database (a heartbeat thread needs its own)."""
        other = type(self)(self.dsn)
        other.worker = self.worker  # a claim is this process's, whatever thread renews it
        return other


def _first_line(error: BaseException, dsn: str) -> str:
    """A server's or libpq's message, first line, never with the password in it."""
    return scrub((str(error).strip().splitlines() or [type(error).__name__])[0], dsn)
