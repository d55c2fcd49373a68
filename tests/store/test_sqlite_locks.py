"""Writers on one SQLite file wait for each other's lock in short steps, up to the timeout."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from bpmn_engine.store import SqliteStore
from bpmn_engine.store.sqlite import connection


def holder(path: Path) -> sqlite3.Connection:
    """Another process's connection, as SQLite sees it: it takes the write lock."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=0, check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
    return conn


def busy_timeout(store: SqliteStore) -> int:
    return int(store.conn.execute("PRAGMA busy_timeout").fetchone()[0])


def test_a_writer_waits_for_the_lock_another_holds_and_then_writes(tmp_path: Path) -> None:
    # given: another connection holds the write lock and lets it go a little later
    store = SqliteStore(tmp_path / "locks.db")
    other = holder(tmp_path / "locks.db")
    released = threading.Timer(0.2, lambda: other.execute("COMMIT"))
    released.start()
    # when
    with store.transaction() as conn:
        conn.execute("INSERT INTO meta (key, value) VALUES ('mine', 'written')")
    released.join()
    # then: ours committed after theirs, and the connection waits as long as before
    assert store.conn.execute("SELECT value FROM meta WHERE key = 'mine'").fetchone() == (
        "written",
    )
    assert busy_timeout(store) == connection.BUSY_TIMEOUT * 1000
    other.close()
    store.close()


def test_a_lock_held_past_the_timeout_is_database_is_locked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given
    monkeypatch.setattr(connection, "BUSY_TIMEOUT", 0.05)
    store = SqliteStore(tmp_path / "locks.db")
    other = holder(tmp_path / "locks.db")
    # when / then: nothing written, and the connection is usable as before
    with (
        pytest.raises(sqlite3.OperationalError, match="database is locked"),
        store.transaction() as conn,
    ):
        conn.execute("INSERT INTO meta (key, value) VALUES ('mine', 'written')")
    assert not store.conn.in_transaction
    other.execute("COMMIT")
    with store.transaction() as conn:
        conn.execute("INSERT INTO meta (key, value) VALUES ('mine', 'later')")
    assert store.conn.execute("SELECT value FROM meta WHERE key = 'mine'").fetchone() == ("later",)
    other.close()
    store.close()


def test_an_error_that_is_not_a_lock_is_raised_at_once(tmp_path: Path) -> None:
    # given: a transaction already open on the connection
    store = SqliteStore(tmp_path / "locks.db")
    store.conn.execute("BEGIN")
    # when / then
    with pytest.raises(sqlite3.OperationalError, match="within a transaction"):
        connection.begin_immediate(store.conn)
    store.conn.execute("ROLLBACK")
    assert busy_timeout(store) == connection.BUSY_TIMEOUT * 1000
    store.close()
