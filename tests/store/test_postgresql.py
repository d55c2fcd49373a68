"""The PostgreSQL store: its schema is SQLite's, migrated alike; bad URLs are bad input.

What it does with rows is the store contract (test_contract.py) and the behaviour suites, run
on each store; here is what only a server brings: connecting, the schema
shared with SQLite, migrations, and what a user sees when the server is not there.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.dsn import redact
from bpmn_engine.runtime.worker import Worker
from bpmn_engine.store import SCHEMA_VERSION, SqliteStore, open_store
from tests.cli.conftest import Bpmn
from tests.conftest import ROOT
from tests.postgresql_server import fresh_url
from tests.store.test_schema import ASSIGNED, JOB, REVIEW, STORE, TREE

LOOP = ROOT / "tests" / "fixtures" / "counter-loop.bpmn"
SECRET = "pa55-w0rd"


@pytest.fixture
def bpmn(tmp_path: Path) -> Bpmn:
    return Bpmn(tmp_path)


def connect(url: str) -> Any:
    """psycopg, imported here: without it `fresh_url` has already failed (CI) or skipped."""
    import psycopg

    return psycopg.connect(url, autocommit=True)


def pg_columns(url: str) -> dict[str, list[str]]:
    with connect(url) as conn:
        rows = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        ).fetchall()
    found: dict[str, list[str]] = {}
    for table, column in rows:
        if column != "rowid":  # stands in for SQLite's implicit row number
            found.setdefault(table, []).append(column)
    return found


def sqlite_columns(path: Path) -> dict[str, list[str]]:
    SqliteStore(path).close()
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: [r[1] for r in conn.execute(f'PRAGMA table_info("{t}")')] for t in tables}


def version_of(url: str) -> int:
    with connect(url) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert row is not None
    return int(row[0])


def test_both_stores_have_the_same_tables_and_columns(tmp_path: Path) -> None:
    url = fresh_url()
    open_store(url).close()
    assert pg_columns(url) == sqlite_columns(tmp_path / "same.db")
    assert version_of(url) == SCHEMA_VERSION


def pg_indexes(url: str) -> dict[str, tuple[str, tuple[str, ...], bool, str | None]]:
    """name -> (table, columns in order, unique, partial condition) of the indexes made by
    CREATE INDEX (not primary keys)."""
    with connect(url) as conn:
        rows = conn.execute(
            "SELECT c.relname, t.relname, array(SELECT a.attname FROM "
            "unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(n, o) JOIN pg_attribute a "
            "ON a.attrelid = ix.indrelid AND a.attnum = k.n ORDER BY k.o), ix.indisunique, "
            "pg_get_expr(ix.indpred, ix.indrelid) FROM pg_index ix "
            "JOIN pg_class c ON c.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid "
            "WHERE t.relnamespace = current_schema()::regnamespace AND NOT ix.indisprimary"
        ).fetchall()
    return {r[0]: (r[1], tuple(r[2]), r[3], r[4]) for r in rows}


def sqlite_indexes(path: Path) -> dict[str, tuple[str, tuple[str, ...], bool, bool]]:
    SqliteStore(path).close()
    found = {}
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for _, name, unique, origin, partial in conn.execute(f'PRAGMA index_list("{table}")'):
                if origin == "c":
                    columns = tuple(r[2] for r in conn.execute(f'PRAGMA index_info("{name}")'))
                    found[name] = (table, columns, bool(unique), bool(partial))
    return found


def test_both_stores_have_the_same_indexes(tmp_path: Path) -> None:
    """Built from SQLite's description of each index, and a partial one's condition."""
    url = fresh_url()
    open_store(url).close()
    pg, lite = pg_indexes(url), sqlite_indexes(tmp_path / "same.db")
    assert {n: (t, c, u, p is not None) for n, (t, c, u, p) in pg.items()} == lite
    assert pg["deployments_one_active"] == ("deployments", ("process",), True, "(active = 1)")
    table, columns, unique, condition = pg["tracks_waiting_jobs"]
    assert (table, columns, unique) == ("tracks", ("wait", "instance", "id"), False)
    assert condition is not None and "'waiting'" in condition and "'job'" in condition


def test_waiting_jobs_can_be_read_off_their_partial_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """The query repeats the index's condition, so PostgreSQL can prove its rows are there
    (a table this small is read whole unless sequential scans are off)."""
    store = open_store(fresh_url())
    statements: list[str] = []
    execute = store.conn.execute

    def recording(sql: str, params: Any = (), /) -> Any:
        statements.append(sql)
        return execute(sql, params)

    with monkeypatch.context() as patch:
        patch.setattr(store.conn, "execute", recording)
        store.waiting_jobs()
    [query] = statements
    try:
        store.conn.execute("SET enable_seqscan = off")
        plan = "\n".join(r[0] for r in store.conn.execute("EXPLAIN " + query))
    finally:
        store.close()
    assert "tracks_waiting_jobs" in plan, plan


def test_an_older_schema_is_migrated_and_its_instances_still_run() -> None:
    url = fresh_url()
    open_store(url).close()
    with connect(url) as conn:  # as release 7 left it: no call columns yet
        conn.execute("DROP INDEX idx_instances_parent_instance")
        conn.execute("ALTER TABLE instances DROP COLUMN parent_instance, DROP COLUMN call_depth")
        conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    assert "call_depth" not in pg_columns(url)["instances"]

    with Engine(url) as engine:
        outcome = engine.start(LOOP, variables={"n": 0, "total": 0, "limit": 3}).run()
        assert outcome.state == "completed"
    assert {"parent_instance", "call_depth"} <= set(pg_columns(url)["instances"])
    assert version_of(url) == SCHEMA_VERSION


def test_a_release_9_schema_gains_the_compiled_form_and_reopens_its_instances() -> None:
    url = fresh_url()
    with Engine(url) as engine:
        instance = engine.start(LOOP, variables={"n": 0, "total": 0, "limit": 3})
    with connect(url) as conn:  # as release 9 left it: no compiled forms
        conn.execute("DROP TABLE compiled_definitions")
        conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")

    with Engine(url) as engine:
        assert engine.instance(instance.id).run().state == "completed"
        kept = engine.store.compiled_format(engine.store.definition_of(instance.id))
    assert kept is not None
    assert "compiled_definitions" in pg_columns(url)
    assert version_of(url) == SCHEMA_VERSION


def test_a_release_11_schema_gains_call_tree_roots_from_the_parent_links(tmp_path: Path) -> None:
    model = tmp_path / "tree.bpmn"
    model.write_text(TREE, encoding="utf-8")
    url = fresh_url()
    with Engine(url) as engine:
        deep = engine.start(model, "top")
        deep.run()  # a tree of three, waiting at its leaf's user task
        tree = engine.family(deep.id)
        alone = engine.start(LOOP, variables={"n": 0, "total": 0, "limit": 3})
    with connect(url) as conn:  # as release 11 left it: no roots
        conn.execute("DROP INDEX idx_instances_root")
        conn.execute("ALTER TABLE instances DROP COLUMN root")
        conn.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")

    with Engine(url) as engine:
        with connect(url) as conn:
            roots = dict(conn.execute("SELECT id, root FROM instances").fetchall())
        size = engine.store.call_tree_size(deep.id)
        leaf = engine.instance(tree[-1])
        leaf.complete_task("Review")
        leaf.run()
        assert engine.instance(deep.id).state == "completed"
    assert roots == {deep.id: deep.id, tree[1]: deep.id, tree[2]: deep.id, alone.id: alone.id}
    assert size == 3
    assert version_of(url) == SCHEMA_VERSION


def test_a_release_12_schema_gains_data_stores_and_its_instances_write_them(
    tmp_path: Path,
) -> None:
    model = tmp_path / "store.bpmn"
    model.write_text(STORE, encoding="utf-8")
    url = fresh_url()
    with Engine(url) as engine:
        waiting = engine.start(model, variables={"n": 7})
        waiting.run()  # waits at the user task before the task that writes the store
    with connect(url) as conn:  # as release 12 left it: no data stores
        conn.execute("DROP TABLE data_stores")
        conn.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")

    with Engine(url) as engine:
        assert engine.data_stores() == []
        resumed = engine.instance(waiting.id)
        resumed.complete_task("Review")
        assert resumed.run().state == "completed"
        stored = engine.data_store("Seen")
    assert stored is not None and (stored.value, stored.instance) == (7, waiting.id)
    assert "data_stores" in pg_columns(url)
    assert version_of(url) == SCHEMA_VERSION


def test_a_release_14_schema_gains_the_waiting_jobs_index_and_a_worker_serves_its_job(
    tmp_path: Path,
) -> None:
    model = tmp_path / "job.bpmn"
    model.write_text(JOB, encoding="utf-8")
    url = fresh_url()
    with Engine(url) as engine:
        waiting = engine.start(model)
        waiting.run()  # a service task left waiting by a run without its handler
    with connect(url) as conn:  # as release 14 left it: no index of waiting jobs
        conn.execute("DROP INDEX tracks_waiting_jobs")
        conn.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")
    assert "tracks_waiting_jobs" not in pg_indexes(url)

    calls: list[str] = []
    with Engine(url, handlers={"Charge": lambda ctx: calls.append(ctx.element_id)}) as engine:
        found = engine.store.waiting_jobs()
        Worker(engine, once=True).run()
        state = engine.instance(waiting.id).state
    assert "tracks_waiting_jobs" in pg_indexes(url)
    assert [(i, e) for i, _, e in found] == [(waiting.id, "Charge")]
    assert calls == ["Charge"] and state == "completed"


def test_a_release_14_schema_gains_the_task_list_and_its_old_tasks_stay_on_it(
    tmp_path: Path,
) -> None:
    model, assigned = tmp_path / "review.bpmn", tmp_path / "assigned.bpmn"
    model.write_text(REVIEW, encoding="utf-8")
    assigned.write_text(ASSIGNED, encoding="utf-8")
    url = fresh_url()
    with Engine(url) as engine:
        waiting = engine.start(model)
        waiting.run()
    with connect(url) as conn:  # as release 14 left it: no task people nor creation times
        conn.execute("DROP INDEX idx_user_tasks_status_assignee")
        conn.execute(
            "ALTER TABLE user_tasks DROP COLUMN assignee, DROP COLUMN candidate_users, "
            "DROP COLUMN candidate_groups, DROP COLUMN created_at"
        )
        conn.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")

    with Engine(url) as engine:
        new = engine.start(assigned)
        new.run()
        listed = [(t.instance, t.assignee, t.created_at is None) for t in engine.tasks()]
        mine = [t.instance for t in engine.tasks(assignee="kim")]
        resumed = engine.instance(waiting.id)
        resumed.complete_task(1)
        assert resumed.run().state == "completed"
    assert listed == [(waiting.id, None, True), (new.id, "kim", False)]
    assert mine == [new.id]
    assert {"assignee", "created_at"} <= set(pg_columns(url)["user_tasks"])
    assert version_of(url) == SCHEMA_VERSION


def test_a_schema_from_a_newer_release_or_of_another_program_is_refused() -> None:
    newer, foreign = fresh_url(), fresh_url()
    open_store(newer).close()
    with connect(newer) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(LoadError, match="schema version 99"):
        open_store(newer)
    with connect(foreign) as conn:
        conn.execute("CREATE TABLE invoices (id int)")
    with pytest.raises(LoadError, match="not a bpmn-engine database"):
        open_store(foreign)
    assert pg_columns(foreign) == {"invoices": ["id"]}  # nothing was added


def test_read_only_does_not_create_the_tables() -> None:
    url = fresh_url()
    with pytest.raises(LoadError, match="no bpmn-engine database yet"):
        open_store(url, read_only=True)
    assert pg_columns(url) == {}


def test_a_password_is_never_shown() -> None:
    url = f"postgresql://bob:{SECRET}@db.example:5432/bpmn"
    assert redact(url) == "postgresql://bob:***@db.example:5432/bpmn"
    assert (
        redact(f"postgresql://bob:{SECRET}@db:notaport/x") == "postgresql://bob:***@db:notaport/x"
    )
    assert redact("orders.db") == "orders.db"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://bob:{SECRET}@127.0.0.1:1/bpmn",  # nobody listens on port 1
        f"postgresql://bob:{SECRET}@localhost:notaport/bpmn",
        f"postgresql://bob:{SECRET}@/bpmn?host=/nonexistent&sslmode=bogus",
    ],
)
def test_an_unreachable_server_or_a_malformed_url_is_bad_input(bpmn: Bpmn, url: str) -> None:
    with pytest.raises(LoadError) as raised:
        open_store(url)
    assert SECRET not in str(raised.value)
    assert "bob:***@" in str(raised.value)
    done = bpmn("instances", "--db", url)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert SECRET not in done.stderr + done.stdout
    assert done.stderr.startswith("error: postgresql://bob:***@")


@pytest.mark.parametrize(
    ("db", "shown"),
    [
        (f"postgresql://bob@127.0.0.1:1/bpmn?password={SECRET}", "password=***"),
        (
            f"postgresql://bob@127.0.0.1:1/bpmn?sslmode=disable&sslpassword={SECRET}",
            "sslpassword=***",
        ),
        ("postgresql://bob:pa55@w0rd@127.0.0.1:1/bpmn", "bob:***@127.0.0.1"),
        (f"host=127.0.0.1 port=1 user=bob password={SECRET} dbname=bpmn", "password=***"),
        (f"host=127.0.0.1 port=1 password='{SECRET} x' dbname=bpmn", "password=***"),
    ],
    ids=["query", "sslpassword", "unencoded-at", "keywords", "quoted-keyword"],
)
def test_no_way_of_writing_a_password_shows_it(bpmn: Bpmn, tmp_path: Path, db: str, shown: str):
    """A keyword string names PostgreSQL as a URL does (it was taken as a SQLite file name)."""
    with pytest.raises(LoadError) as raised:
        open_store(db)
    message = str(raised.value)
    assert shown in message
    assert "cannot connect" in message
    for secret in (SECRET, "w0rd"):
        assert secret not in message
    done = bpmn("instances", "--db", db)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert shown in done.stderr
    for secret in (SECRET, "w0rd"):
        assert secret not in done.stderr + done.stdout
    assert list(tmp_path.glob("host=*")) == []  # no SQLite file of that name


def test_every_command_takes_a_postgresql_url_by_option_or_environment(bpmn: Bpmn) -> None:
    url = fresh_url()
    done = bpmn(
        "run", str(LOOP), "--db", url, "--var", "n=0", "--var", "total=0", "--var", "limit=2"
    )
    assert done.returncode == 0, done.stderr
    listed = bpmn("instances", "--db", url, "--json")
    assert listed.returncode == 0, listed.stderr
    assert '"completed"' in listed.stdout
    with Engine(url, read_only=True) as engine:
        (instance,) = engine.instances()
    env_run = subprocess.run(
        [sys.executable, "-m", "cli", "show", instance["id"]],
        cwd=bpmn.cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "BPMN_DB": url},
        timeout=120,
    )
    assert env_run.returncode == 0, env_run.stderr
    assert "completed" in env_run.stdout
    assert not any(p.suffix == ".db" for p in bpmn.cwd.iterdir())  # no SQLite file was made


def test_a_read_only_store_cannot_write() -> None:
    import psycopg

    url = fresh_url()
    open_store(url).close()
    looking = open_store(url, read_only=True)
    try:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            looking.save_definition("v" * 64, "x.bpmn", b"<definitions/>")
        assert looking.definition_versions() == []
    finally:
        looking.close()


def test_a_tests_connection_has_a_database_of_its_process_and_bounded_waits() -> None:
    # a test stuck on a lock or a statement fails in seconds, naming itself, instead of
    # hanging the suite; advisory locks and NOTIFY are per database, so each pytest process
    # (each xdist worker) has one of its own (issue 27)
    with connect(fresh_url()) as conn:
        row = conn.execute(
            "SELECT current_database(), current_setting('lock_timeout'), "
            "current_setting('statement_timeout')"
        ).fetchone()
    assert row is not None
    assert row[0].startswith("bpmn_test_") and row[1:] == ("30s", "1min")
