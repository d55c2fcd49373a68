"""The schema is versioned from the first release: an old database is migrated in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from bpmn_engine import Engine, LoadError
from bpmn_engine.store import SCHEMA_VERSION, SqliteStore
from bpmn_engine.store.schema import MIGRATIONS
from tests.conftest import ROOT

LOOP = ROOT / "tests" / "fixtures" / "counter-loop.bpmn"


def version_of(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0])


def test_a_version_1_database_is_migrated_and_its_instances_still_run(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    db = sqlite_utils.Database(conn)
    db["meta"].create({"key": str, "value": str}, pk="key")
    MIGRATIONS[0][1](db)  # exactly what the first release created
    db["meta"].insert({"key": "schema_version", "value": "1"})
    conn.close()

    store = SqliteStore(path)
    assert version_of(path) == SCHEMA_VERSION == 9
    assert {"timers", "subscriptions", "messages"} <= set(store.db.table_names())
    engine = Engine(store)
    outcome = engine.start(LOOP, variables={"n": 0, "total": 0, "limit": 3}).run()
    assert outcome.state == "completed"


def test_a_database_from_a_newer_release_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SqliteStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(Exception, match="schema version 99"):
        SqliteStore(path)


def test_a_file_that_is_not_a_database_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are not the rows you are looking for\n" * 100)
    with pytest.raises(LoadError, match="not a bpmn-engine database"):
        SqliteStore(path)


def test_read_only_opens_neither_create_nor_upgrade_nor_touch(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="no such database"):
        SqliteStore(tmp_path / "missing.db", read_only=True)
    assert not (tmp_path / "missing.db").exists()
    path = tmp_path / "run.db"
    SqliteStore(path).close()
    store = SqliteStore(path, read_only=True)
    assert store.conn.execute("SELECT value FROM meta").fetchone() == (str(SCHEMA_VERSION),)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        store.conn.execute("DELETE FROM meta")
    store.close()


def test_a_newer_schema_is_refused_by_a_read_only_open_too(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SqliteStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.close()
    with pytest.raises(LoadError, match="schema version 99"):
        SqliteStore(path, read_only=True)
