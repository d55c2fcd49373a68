"""One SQLite connection and the helpers every concern of the store shares.

WAL journal with `synchronous=NORMAL`: a killed process loses nothing that was committed (a
power cut may lose the last steps, never corrupt the file). Write transactions are
`BEGIN IMMEDIATE`: a writer takes the lock before it reads what it will compare-and-set.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from bpmn_engine.errors import LoadError
from bpmn_engine.store.schema import migrate

_UPDATES: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str] = {}


def update_sql(table: str, columns: tuple[str, ...], keys: tuple[str, ...]) -> str:
    """`UPDATE table SET columns WHERE keys`, built once per shape."""
    shape = (table, columns, keys)
    sql = _UPDATES.get(shape)
    if sql is None:
        sql = _UPDATES[shape] = (
            f"UPDATE {table} SET "
            + ", ".join(f"{c} = ?" for c in columns)
            + " WHERE "
            + " AND ".join(f"{k} = ?" for k in keys)
        )
    return sql


def _json_encoder() -> Callable[[Any], str]:
    """`json.dumps` with its output unchanged, without building a new C encoder per call
    (two thirds of a small dict's 1.7 µs); a step writes three or more. No cycle check: what
    is written was decoded from JSON or built by the engine, and cannot hold a cycle."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without the C accelerator
        return json.dumps
    encode = make(
        None,
        json.JSONEncoder().default,
        json.encoder.encode_basestring_ascii,
        None,
        ": ",
        ", ",
        False,
        False,
        True,
    )
    return lambda value: "".join(encode(value, 0))


dumps = _json_encoder()


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def stamp(moment: datetime) -> str:
    """A lease time: UTC, fixed width, so leases compare as text in SQL."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def instant(moment: datetime) -> str:
    """A due time: UTC, fixed width (microseconds), so it compares as text."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


class SqliteConnection:
    """The connection, its transactions, and who this process is (for claims on jobs)."""

    lease_seconds: float = 300.0  # how long a claim is presumed alive without a heartbeat

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        except sqlite3.Error as error:
            raise LoadError(f"cannot open database: {error}", file=self.path) from None
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.db = sqlite_utils.Database(self.conn)
            migrate(self.db)
        except sqlite3.DatabaseError as error:
            self.conn.close()
            raise LoadError(f"not a bpmn-engine database: {error}", file=self.path) from None
        except RuntimeError as error:  # a newer schema than this release knows
            self.conn.close()
            raise LoadError(str(error), file=self.path) from None
        self.worker = f"{socket.gethostname()}:{os.getpid()}"

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def another(self) -> SqliteConnection:
        """A second connection to the same file (a heartbeat thread needs its own)."""
        other = type(self)(self.path)
        other.worker = self.worker  # a claim is this process's, whatever thread renews it
        return other
