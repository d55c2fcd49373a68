"""One SQLite connection and the helpers every concern of the store shares.

WAL journal with `synchronous=NORMAL`: a killed process loses nothing that was committed (a
power cut may lose the last steps, never corrupt the file). Write transactions are
`BEGIN IMMEDIATE`: a writer takes the lock before it reads what it will compare-and-set.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bpmn_engine.errors import LoadError
from bpmn_engine.store.dialect import SQLITE, Dialect, Sql
from bpmn_engine.store.holders import close_holder, open_holder
from bpmn_engine.store.schema import SCHEMA_VERSION, migrate

if TYPE_CHECKING:
    import sqlite_utils

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


_UPSERTS: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str] = {}


def upsert_sql(table: str, columns: tuple[str, ...], key: tuple[str, ...]) -> str:
    """`INSERT` a row, or update the one with its `key` in place (the row keeps its place
    and its rowid; SQL both stores speak), built once per shape."""
    shape = (table, columns, key)
    sql = _UPSERTS.get(shape)
    if sql is None:
        rest = [c for c in columns if c not in key]
        sql = _UPSERTS[shape] = (
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            f" ON CONFLICT ({', '.join(key)}) "
            + (
                "DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in rest)
                if rest
                else "DO NOTHING"
            )
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


# a user task row's columns for who it is for and when it was created (schema v16)
TASK_PEOPLE = ("assignee", "candidate_users", "candidate_groups", "created_at")


def names_text(names: tuple[str, ...]) -> str | None:
    """A user task's candidates as their column holds them: a comma list (no name holds a
    comma: `runtime/data/assignments.py` splits at every one), NULL for none."""
    return ",".join(names) if names else None


def names_of(text: str | None) -> tuple[str, ...]:
    return tuple(text.split(",")) if text else ()


HEAD_FIELDS = (  # the instance row's columns a step may change
    "state",
    "next_track",
    "next_scope",
    "next_task",
    "next_seq",
    "next_event",
    "next_timer",
    "next_subscription",
    "end_event",
    "incident",
    "parent_instance",
    "parent_track",
    "call_depth",
)
TRACK_FIELDS = (  # a track row's columns a step may change (besides its version)
    "element",
    "scope",
    "status",
    "seq",
    "parent",
    "fork_group",
    "via",
    "wait",
    "attempt",
)


def _unusable(error: sqlite3.DatabaseError) -> str:
    """Why a database cannot be used, for a person: read-only, damaged, or not a database."""
    name = getattr(error, "sqlite_errorname", "")
    if name.startswith("SQLITE_READONLY"):
        return f"the database is read-only ({error}): bpmn show and bpmn instances can read it"
    if name.startswith("SQLITE_CORRUPT"):
        return f"the database is damaged ({error}): restore it from a copy"
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return f"the database is locked by another process ({error})"
    return f"not a bpmn-engine database: {error}"


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


_LAST_ISO: list[tuple[float, str]] = [(0.0, "")]


def iso(seconds: float) -> str:
    """`seconds` as ISO 8601 text (ms); the last one is kept: consecutive steps, committed
    within the same millisecond, share it, and formatting costs more than the rest of a row."""
    last = _LAST_ISO[0]
    if last[0] == seconds and last[1]:
        return last[1]
    text = datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")
    _LAST_ISO[0] = (seconds, text)
    return text


def stamp(moment: datetime) -> str:
    """A lease time: UTC, fixed width, so leases compare as text in SQL."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def instant(moment: datetime) -> str:
    """A due time: UTC, fixed width (microseconds), so it compares as text."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def write_variable(conn: Sql, instance: str, scope: int, name: str, value: Any, gone: bool) -> None:
    """One variable row as a step leaves it: written, or deleted when `gone`."""
    if gone:
        conn.execute(
            "DELETE FROM variables WHERE instance = ? AND scope = ? AND name = ?",
            (instance, scope, name),
        )
    else:
        conn.execute(  # an upsert, not OR REPLACE: the row and its key stay where they are,
            # so a loop's counter rewrites one page, not the table's and its key index's
            "INSERT INTO variables (instance, scope, name, value) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (instance, scope, name) DO UPDATE SET value = excluded.value",
            (instance, scope, name, dumps(value)),
        )


class _Transaction:
    """`BEGIN IMMEDIATE` on entry; `COMMIT` on leaving, or `ROLLBACK` if the block raised."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")


def _refused_name(path: str) -> str | None:
    """What is wrong with a database name SQLite would read as something else than meant:
    an empty name is a throwaway database (its run could never be resumed), and a `file:` URI
    or a `?mode=ro` query is a file of that literal name unless opened as a URI."""
    if not path.strip():
        return "an empty database name: give a file, or ':memory:' for a throwaway run"
    if path.startswith("file:"):
        return "a file: URI is not read as one: give the path of the database file"
    if re.search(r"\?\w+=", path):
        return (
            "query parameters (?mode=...) are not read: give the plain path (commands that "
            "only look, such as show and instances, open it read-only themselves)"
        )
    return None


class SqliteConnection:
    """The connection, its transactions, and who this process is (for claims on jobs)."""

    lease_seconds: float = 300.0  # how long a claim is presumed alive without a heartbeat
    owns_holder = True  # False for a second connection that renews this one's claims
    dialect: Dialect = SQLITE  # the SQL that differs between stores (`store/dialect.py`)

    def __init__(self, path: str | Path = ":memory:", *, read_only: bool = False) -> None:
        """`read_only`: for commands that only look (show, instances): the file is opened
        with `mode=ro`, so a missing file is not created and a foreign one is not touched."""
        self.path = str(path)
        refused = _refused_name(self.path)
        if refused:
            raise LoadError(refused, file=self.path if self.path.strip() else repr(self.path))
        read_only = read_only and self.path != ":memory:"
        if read_only and not Path(self.path).is_file():
            raise LoadError("no such database: run a process first (bpmn run FILE)", file=self.path)
        self.conn = self._connect(read_only)
        try:
            found = self._schema_version()
            if read_only and found is None:
                raise LoadError("no bpmn-engine database yet: run a process first", file=self.path)
            if read_only and found is not None and found > SCHEMA_VERSION:
                raise RuntimeError(f"the database has schema version {found}: upgrade bpmn-engine")
            if read_only and found != SCHEMA_VERSION:  # older: upgraded, as by any command
                self.conn.close()
                self.conn, read_only = self._connect(False), False
            if not read_only:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            if not read_only and found != SCHEMA_VERSION:  # new, or older: only then
                migrate(self.db)
            elif not read_only:  # a file this process may not write: say so now, not later
                self.conn.execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(found),)
                )
        except sqlite3.DatabaseError as error:
            self.conn.close()
            raise LoadError(_unusable(error), file=self.path) from None
        except RuntimeError as error:  # a newer schema than this release knows
            self.conn.close()
            raise LoadError(str(error), file=self.path) from None
        except LoadError:
            self.conn.close()
            raise
        self.worker = open_holder(self)  # who claims jobs: this store (`store/holders.py`)

    @cached_property
    def db(self) -> sqlite_utils.Database:
        """sqlite-utils over the same connection, for migrations and tests: imported only
        when used (it imports numpy when installed), so opening a current database is cheap."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """Rows as dicts by column name."""
        cursor = self.conn.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def _connect(self, read_only: bool) -> sqlite3.Connection:
        target, uri = self.path, False
        if read_only:
            target, uri = f"{Path(self.path).absolute().as_uri()}?mode=ro", True
        try:
            return sqlite3.connect(target, uri=uri, isolation_level=None, timeout=30.0)
        except sqlite3.Error as error:
            raise LoadError(f"cannot open database: {error}", file=self.path) from None

    def _schema_version(self) -> int | None:
        """The bpmn-engine schema version of the file; refuses a foreign SQLite database
        (tables but no bpmn-engine `meta`) before anything is written to it."""
        tables = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master")}
        if not tables:
            return None  # a new file: every command may create it (read-only ones never do)
        if "meta" not in tables:
            raise LoadError(
                "not a bpmn-engine database (it holds other tables): give another --db",
                file=self.path,
            )
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            raise LoadError("not a bpmn-engine database (no schema version)", file=self.path)
        return int(row[0])

    def close(self) -> None:
        if self.owns_holder:  # its claims are orphans now, for the stores this process opens
            close_holder(self.worker)
        self.conn.close()

    def transaction(self) -> _Transaction:
        """`with store.transaction() as conn:` one write transaction, rolled back if the block
        raises (a class, not a generator: every step takes one)."""
        return _Transaction(self.conn)

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """Several SELECTs as one read transaction (inside a transaction: that one): one
        snapshot, and one WAL read lock instead of one per statement (a third of the time of
        loading a small instance)."""
        if self.conn.in_transaction:
            yield self.conn
            return
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            if self.conn.in_transaction:  # nothing was written: ending a read cannot fail
                self.conn.execute("COMMIT")

    def another(self) -> SqliteConnection:
        """A second connection to the same file (a heartbeat thread needs its own)."""
        other = type(self)(self.path)
        close_holder(other.worker)
        other.worker = self.worker  # a claim is this store's, whatever thread renews it
        other.owns_holder = False
        return other
