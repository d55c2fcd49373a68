"""The schema is versioned from the first release: an old database is migrated in place."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils

from bpmn_engine import Engine, LoadError
from bpmn_engine.runtime.worker import Worker
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
    assert version_of(path) == SCHEMA_VERSION == 16
    assert {"timers", "subscriptions", "messages"} <= set(store.db.table_names())
    engine = Engine(store)
    outcome = engine.start(LOOP, variables={"n": 0, "total": 0, "limit": 3}).run()
    assert outcome.state == "completed"


def test_a_version_9_database_keeps_its_instances_and_gains_the_compiled_form(
    tmp_path: Path,
) -> None:
    # given: a database as release 9 left it, with an instance waiting (no compiled forms)
    path = tmp_path / "old.db"
    with Engine(path) as engine:
        instance = engine.start(LOOP, variables={"n": 0, "total": 0, "limit": 3})
        with engine.store.transaction() as conn:
            conn.execute("DROP TABLE compiled_definitions")
            conn.execute("DROP INDEX idx_instances_root")  # and no call tree roots (v12)
            conn.execute("ALTER TABLE instances DROP COLUMN root")
            conn.execute("DROP TABLE data_stores")  # and no data stores (v13)
            conn.execute("DROP INDEX idx_instances_business_key")  # nor business keys (v14)
            conn.execute("ALTER TABLE instances DROP COLUMN business_key")
            conn.execute("DROP INDEX tracks_waiting_jobs")  # nor its waiting jobs' index (v15)
            conn.execute("DROP INDEX idx_user_tasks_status_assignee")  # nor task people (v16)
            for column in ("assignee", "candidate_users", "candidate_groups", "created_at"):
                conn.execute(f"ALTER TABLE user_tasks DROP COLUMN {column}")
            conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    # when
    with Engine(path) as engine:
        outcome = engine.instance(instance.id).run()
        version = engine.store.definition_of(instance.id)
        kept = engine.store.compiled_format(version)
    # then
    assert version_of(path) == SCHEMA_VERSION
    assert outcome.state == "completed"
    assert kept is not None  # parsed once, then kept for the next engine


def old_copy(current: Path, path: Path, version: int) -> None:
    """A database exactly as release `version` created it, holding the rows of `current` (the
    columns that release had)."""
    conn = sqlite3.connect(path, isolation_level=None)
    db = sqlite_utils.Database(conn)
    db["meta"].create({"key": str, "value": str}, pk="key")
    for number, step in MIGRATIONS:
        if number <= version:
            step(db)
    db["meta"].insert({"key": "schema_version", "value": str(version)})
    conn.execute("ATTACH DATABASE ? AS current", (str(current),))
    for table in db.table_names():
        if table != "meta":
            columns = ", ".join(db[table].columns_dict)
            conn.execute(
                f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM current.{table}"
            )
    conn.execute("DETACH DATABASE current")
    conn.close()


REVIEW = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">'
    '<process id="p" isExecutable="true"><startEvent id="S"/>'
    '<userTask id="Review" name="Review"/><endEvent id="E"/>'
    '<sequenceFlow id="f1" sourceRef="S" targetRef="Review"/>'
    '<sequenceFlow id="f2" sourceRef="Review" targetRef="E"/></process></definitions>'
)


def test_a_version_10_database_keeps_every_history_row_in_a_table_without_rowid(
    tmp_path: Path,
) -> None:
    # given: a database exactly as release 10 created it, holding the rows of one finished
    # and one waiting instance (copied from a current database: the same columns)
    model = tmp_path / "review.bpmn"
    model.write_text(REVIEW, encoding="utf-8")
    current = tmp_path / "current.db"
    with Engine(current) as engine:
        finished = engine.start(model)
        finished.run()
        finished.complete_task("Review", {"ok": True})
        finished.run()
        waiting = engine.start(model, variables={"n": 1})
        waiting.run()
        before = {i.id: engine.store.snapshot(i.id) for i in (finished, waiting)}
        history = {i.id: engine.store.history(i.id) for i in (finished, waiting)}
    path = tmp_path / "old.db"
    old_copy(current, path, 10)
    # when
    with Engine(path) as engine:
        after = {i: engine.store.snapshot(i) for i in before}
        kept = {i: engine.store.history(i) for i in before}
        resumed = engine.instance(waiting.id)
        resumed.complete_task("Review", {"ok": False})
        resumed.run()
        events = [e.event for e in engine.store.history(waiting.id)]
    # then: every row is kept as it was, in a history table without rowid, and the waiting
    # instance goes on where it stopped
    assert version_of(path) == SCHEMA_VERSION == 16
    with sqlite3.connect(path) as check:
        (ddl,) = check.execute("SELECT sql FROM sqlite_master WHERE name = 'history'").fetchone()
        assert ddl.endswith("WITHOUT ROWID")
        assert [r[1] for r in check.execute("PRAGMA table_info(history)")] == [
            "instance",
            "seq",
            "event",
            "element",
            "track",
            "data",
            "at",
        ]
    # release 10 had no task people nor creation times (v16): those columns come back empty
    assert after == {
        i: {**rows, "user_tasks": [r[:7] + (None,) * 4 for r in rows["user_tasks"]]}
        for i, rows in before.items()
    }
    assert kept == history
    assert resumed.state == "completed"
    assert events[-1] == "instance.completed"


TREE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">'
    '<process id="top" isExecutable="true"><startEvent id="S1"/>'
    '<callActivity id="C1" calledElement="middle"/><endEvent id="E1"/>'
    '<sequenceFlow id="a1" sourceRef="S1" targetRef="C1"/>'
    '<sequenceFlow id="a2" sourceRef="C1" targetRef="E1"/></process>'
    '<process id="middle" isExecutable="true"><startEvent id="S2"/>'
    '<callActivity id="C2" calledElement="leaf"/><endEvent id="E2"/>'
    '<sequenceFlow id="b1" sourceRef="S2" targetRef="C2"/>'
    '<sequenceFlow id="b2" sourceRef="C2" targetRef="E2"/></process>'
    '<process id="leaf" isExecutable="true"><startEvent id="S3"/>'
    '<userTask id="Review"/><endEvent id="E3"/>'
    '<sequenceFlow id="c1" sourceRef="S3" targetRef="Review"/>'
    '<sequenceFlow id="c2" sourceRef="Review" targetRef="E3"/></process></definitions>'
)


def test_a_version_11_database_gains_call_tree_roots_and_its_trees_go_on(
    tmp_path: Path,
) -> None:
    # given: release 11's rows: a tree of three waiting at its leaf's user task, and a tree
    # whose call is still in the outbox as release 11 wrote it (naming no root)
    model = tmp_path / "tree.bpmn"
    model.write_text(TREE, encoding="utf-8")
    current = tmp_path / "current.db"
    with Engine(current) as engine:
        deep = engine.start(model, "top")
        deep.run()
        tree = engine.family(deep.id)
        engine.postman.flush = lambda *args, **kwargs: 0  # type: ignore[method-assign]
        pending = engine.start(model, "top")
        pending.run()
        with engine.store.transaction() as conn:
            conn.execute("UPDATE outbox SET variables = json_remove(variables, '$.root')")
    path = tmp_path / "old.db"
    old_copy(current, path, 11)
    # when
    with Engine(path) as engine:
        with sqlite3.connect(path) as check:
            roots = dict(check.execute("SELECT id, root FROM instances"))
        sizes = [engine.store.call_tree_size(i) for i in (deep.id, pending.id)]
        leaf = engine.instance(tree[-1])
        leaf.complete_task("Review")
        leaf.run()
        finished = engine.instance(deep.id).state
        engine.instance(pending.id).run()  # delivers the call row release 11 left
        second = engine.family(pending.id)
        second_roots = {engine.instance(i).data.head.root for i in second}
    # then: each instance names its tree's root; the trees are counted and go on
    assert version_of(path) == SCHEMA_VERSION
    assert roots == {deep.id: deep.id, tree[1]: deep.id, tree[2]: deep.id, pending.id: pending.id}
    assert sizes == [3, 2]  # the second: its root, and the child its pending call will start
    assert finished == "completed"
    assert len(second) == 3 and second_roots == {pending.id}


STORE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">'
    '<dataStore id="seen" name="Seen"/><process id="p" isExecutable="true">'
    '<dataStoreReference id="Ref" dataStoreRef="seen"/><startEvent id="S"/>'
    '<userTask id="Review"/><scriptTask id="Note" scriptFormat="python"><dataOutputAssociation '
    'id="W"><targetRef>Ref</targetRef></dataOutputAssociation><script>seen = n</script>'
    '</scriptTask><endEvent id="E"/>'
    '<sequenceFlow id="f1" sourceRef="S" targetRef="Review"/>'
    '<sequenceFlow id="f2" sourceRef="Review" targetRef="Note"/>'
    '<sequenceFlow id="f3" sourceRef="Note" targetRef="E"/></process></definitions>'
)


def test_a_version_12_database_gains_data_stores_and_its_instances_write_them(
    tmp_path: Path,
) -> None:
    # given: release 12's rows, an instance waiting before the task that writes a store
    model = tmp_path / "store.bpmn"
    model.write_text(STORE, encoding="utf-8")
    current = tmp_path / "current.db"
    with Engine(current) as engine:
        waiting = engine.start(model, variables={"n": 7})
        waiting.run()
    path = tmp_path / "old.db"
    old_copy(current, path, 12)
    with sqlite3.connect(path) as check:
        assert "data_stores" not in {r[0] for r in check.execute("SELECT name FROM sqlite_master")}
    # when
    with Engine(path) as engine:
        before = engine.data_stores()
        resumed = engine.instance(waiting.id)
        resumed.complete_task("Review")
        outcome = resumed.run()
        stored = engine.data_store("Seen")
    # then
    assert version_of(path) == SCHEMA_VERSION == 16
    assert before == []
    assert outcome.state == "completed"
    assert stored is not None and (stored.value, stored.instance) == (7, waiting.id)


def test_a_version_13_database_gains_business_keys_and_its_instances_go_on(
    tmp_path: Path,
) -> None:
    # given: release 13's rows, an instance waiting at a user task
    model = tmp_path / "review.bpmn"
    model.write_text(REVIEW, encoding="utf-8")
    current = tmp_path / "current.db"
    with Engine(current) as engine:
        waiting = engine.start(model)
        waiting.run()
    path = tmp_path / "old.db"
    old_copy(current, path, 13)
    # when
    with Engine(path) as engine:
        keyed = engine.start(model, business_key="ORDER-7")
        keyed.run()
        listed = {r["id"]: r["business_key"] for r in engine.instances()}
        resumed = engine.instance(waiting.id)
        resumed.complete_task("Review")
        outcome = resumed.run()
    # then
    assert version_of(path) == SCHEMA_VERSION == 16
    assert listed == {waiting.id: None, keyed.id: "ORDER-7"}
    assert outcome.state == "completed"


ASSIGNED = REVIEW.replace(
    'id="d"', 'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d"'
).replace('<userTask id="Review"', '<userTask id="Review" camunda:assignee="kim"')


def test_a_version_14_database_gains_the_task_list_and_its_old_tasks_stay_on_it(
    tmp_path: Path,
) -> None:
    # given: release 14's rows, an instance waiting at a user task
    model, assigned = tmp_path / "review.bpmn", tmp_path / "assigned.bpmn"
    model.write_text(REVIEW, encoding="utf-8")
    assigned.write_text(ASSIGNED, encoding="utf-8")
    current = tmp_path / "current.db"
    with Engine(current) as engine:
        waiting = engine.start(model)
        waiting.run()
    path = tmp_path / "old.db"
    old_copy(current, path, 14)
    # when
    with Engine(path) as engine:
        new = engine.start(assigned)
        new.run()
        listed = [(t.instance, t.assignee, t.created_at is None) for t in engine.tasks()]
        mine = [t.instance for t in engine.tasks(assignee="kim")]
        resumed = engine.instance(waiting.id)
        resumed.complete_task(1)  # the number the list shows
        outcome = resumed.run()
    # then: the old task is listed (nobody named, no creation time), first
    assert version_of(path) == SCHEMA_VERSION == 16
    assert listed == [(waiting.id, None, True), (new.id, "kim", False)]
    assert mine == [new.id]
    assert outcome.state == "completed"


def test_waiting_jobs_are_read_off_their_partial_index(tmp_path: Path) -> None:
    """A worker looks for waiting jobs every turn: the query reads the index that holds only
    them (schema v15), not every waiting track, and needs no sort of its own."""
    store = SqliteStore(tmp_path / "jobs.db")
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    store.waiting_jobs()
    store.conn.set_trace_callback(None)
    [query] = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    plan = [r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + query)]
    store.close()
    assert any("USING INDEX tracks_waiting_jobs" in step for step in plan), plan
    assert not any("TEMP B-TREE" in step for step in plan), plan


JOB = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">'
    '<process id="p" isExecutable="true"><startEvent id="S"/>'
    '<serviceTask id="Charge"/><endEvent id="E"/>'
    '<sequenceFlow id="f1" sourceRef="S" targetRef="Charge"/>'
    '<sequenceFlow id="f2" sourceRef="Charge" targetRef="E"/></process></definitions>'
)


def test_a_version_14_database_gains_the_waiting_jobs_index_and_a_worker_serves_its_job(
    tmp_path: Path,
) -> None:
    # given: release 14's rows, a service task left waiting by a run without its handler
    model = tmp_path / "job.bpmn"
    model.write_text(JOB, encoding="utf-8")
    current = tmp_path / "current.db"
    with Engine(current) as engine:
        waiting = engine.start(model)
        waiting.run()
    path = tmp_path / "old.db"
    old_copy(current, path, 14)
    with sqlite3.connect(path) as check:
        assert "tracks_waiting_jobs" not in {
            r[1] for r in check.execute("PRAGMA index_list(tracks)")
        }
    # when
    calls: list[str] = []
    with Engine(path, handlers={"Charge": lambda ctx: calls.append(ctx.element_id)}) as engine:
        found = engine.store.waiting_jobs()
        Worker(engine, once=True).run()
        state = engine.instance(waiting.id).state
    # then
    assert version_of(path) == SCHEMA_VERSION == 16
    with sqlite3.connect(path) as check:
        assert "tracks_waiting_jobs" in {r[1] for r in check.execute("PRAGMA index_list(tracks)")}
    assert [(i, e) for i, _, e in found] == [(waiting.id, "Charge")]
    assert calls == ["Charge"] and state == "completed"


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


def test_opening_a_current_database_neither_migrates_nor_imports_sqlite_utils(
    tmp_path: Path,
) -> None:
    """sqlite-utils (which imports numpy when installed) is for migrations: a command that
    opens an up-to-date file, as nearly every command does, does not pay for it."""
    path = tmp_path / "current.db"
    SqliteStore(path)  # created and migrated here
    probe = (
        "import sys\n"
        "from bpmn_engine.store import SqliteStore\n"
        f"store = SqliteStore({str(path)!r})\n"
        "store.list_instances(); store.deployments()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('sqlite_utils', 'numpy'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert version_of(path) == SCHEMA_VERSION


@pytest.mark.parametrize(
    "filters", [{}, {"assignee": "kim"}, {"group": "sales"}, {"process": "p"}], ids=repr
)
def test_the_task_list_is_one_query_on_the_task_index(
    filters: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Searched on (status, assignee), never a scan of the tasks or the instances."""
    store = SqliteStore(":memory:")
    asked: list[tuple[str, tuple[object, ...]]] = []
    query = store.query

    def recorded(sql: str, params: tuple[object, ...] = ()) -> list[dict[str, object]]:
        asked.append((sql, params))
        return query(sql, params)

    monkeypatch.setattr(store, "query", recorded)
    assert store.open_tasks(**filters) == []
    [(sql, params)] = asked
    plan = [r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
    assert any("USING INDEX idx_user_tasks_status_assignee" in step for step in plan), plan
    assert not any(step.startswith("SCAN") for step in plan), plan
