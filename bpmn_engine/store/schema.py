"""The store's schema, versioned from the first release: each migration runs once, in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite_utils

SCHEMA_VERSION = 16


def _v1(db: sqlite_utils.Database) -> None:
    db["definitions"].create(
        {"version": str, "path": str, "source": bytes, "created_at": str}, pk="version"
    )
    db["instances"].create(
        {
            "id": str,
            "definition": str,
            "process": str,
            "state": str,
            "next_track": int,
            "next_scope": int,
            "next_task": int,
            "next_seq": int,
            "next_event": int,
            "end_event": str,
            "incident": str,
            "version": int,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
        foreign_keys=[("definition", "definitions", "version")],
    )
    db["tracks"].create(
        {
            "instance": str,
            "id": int,
            "element": str,
            "scope": int,
            "status": str,
            "seq": int,
            "parent": int,
            "fork_group": int,
            "via": str,
            "wait": str,
            "attempt": int,
            "version": int,
            "claimed_by": str,
        },
        pk=("instance", "id"),
    )
    db["tracks"].create_index(["instance", "status"])
    db["scopes"].create(
        {
            "instance": str,
            "id": int,
            "element": str,
            "parent": int,
            "track": int,
            "status": str,
            "version": int,
        },
        pk=("instance", "id"),
    )
    db["variables"].create(
        {"instance": str, "scope": int, "name": str, "value": str}, pk=("instance", "scope", "name")
    )
    db["user_tasks"].create(
        {
            "instance": str,
            "id": int,
            "track": int,
            "element": str,
            "name": str,
            "status": str,
            "inputs": str,
        },
        pk=("instance", "id"),
    )
    db["joins"].create(
        {"instance": str, "scope": int, "gateway": str, "activation": int, "tracks": str},
        pk=("instance", "scope", "gateway", "activation"),
    )
    db["history"].create(
        {
            "instance": str,
            "seq": int,
            "event": str,
            "element": str,
            "track": int,
            "data": str,
            "at": str,
        },
        pk=("instance", "seq"),
    )


def _v2(db: sqlite_utils.Database) -> None:
    """Timers: due times as rows, so a waiting instance costs no thread and survives restarts."""
    db["instances"].add_column("next_timer", int, not_null_default=1)
    db["timers"].create(
        {
            "instance": str,
            "id": int,
            "track": int,
            "element": str,
            "host": str,
            "due": str,
            "repeat": int,
            "interval": float,
            "status": str,
        },
        pk=("instance", "id"),
    )
    db["timers"].create_index(["status", "due"])


def _v3(db: sqlite_utils.Database) -> None:
    """Message and signal subscriptions, and messages buffered until someone waits for them."""
    db["instances"].add_column("next_subscription", int, not_null_default=1)
    db["subscriptions"].create(
        {
            "instance": str,
            "id": int,
            "track": int,
            "element": str,
            "host": str,
            "kind": str,
            "name": str,
            "key": str,
            "status": str,
        },
        pk=("instance", "id"),
    )
    db["subscriptions"].create_index(["status", "kind", "name"])
    db["messages"].create(
        {
            "id": str,
            "name": str,
            "key": str,
            "variables": str,
            "published_at": str,
            "expires_at": str,
            "status": str,  # buffered, correlated, expired
            "instance": str,
        },
        pk="id",
    )
    db["messages"].create_index(["status", "name"])


# partial index -> its condition (SQLite's index lists say an index is partial, not on what):
# the PostgreSQL schema, derived from SQLite's, reads it here
PARTIAL_INDEXES = {
    "deployments_one_active": "active = 1",
    "tracks_waiting_jobs": "status = 'waiting' AND wait = 'job'",
}


def _v4(db: sqlite_utils.Database) -> None:
    """Deployments and their triggered starts, and leases on claimed jobs (`bpmn worker`).

    A deployment is one process of one definition version; at most one per process is active
    (a partial unique index, so two deploys racing cannot both win). Timer and message start
    events are rows, like every other wait. A job's lease (`lease_until`, renewed by the
    heartbeat) says until when its `claimed_by` worker must be presumed alive.
    """
    db["deployments"].create(
        {"id": int, "process": str, "definition": str, "deployed_at": str, "active": int},
        pk="id",
        foreign_keys=[("definition", "definitions", "version")],
    )
    db.execute(
        "CREATE UNIQUE INDEX deployments_one_active ON deployments (process) "
        f"WHERE {PARTIAL_INDEXES['deployments_one_active']}"
    )
    db["start_timers"].create(
        {
            "id": int,
            "deployment": int,
            "element": str,
            "due": str,  # UTC, ISO 8601 with microseconds: compares as text
            "repeat": int,  # firings left after the next one (-1: forever)
            "interval": float,
            "status": str,  # waiting, done, cancelled
        },
        pk="id",
        foreign_keys=[("deployment", "deployments", "id")],
    )
    db["start_timers"].create_index(["status", "due"])
    db["start_subscriptions"].create(
        {"id": int, "deployment": int, "element": str, "name": str},
        pk="id",
        foreign_keys=[("deployment", "deployments", "id")],
    )
    db["start_subscriptions"].create_index(["name"])
    db["tracks"].add_column("lease_until", str)
    db["tracks"].add_column("heartbeat_at", str)
    db["tracks"].create_index(["status", "instance"])


def _v5(db: sqlite_utils.Database) -> None:
    """Signal start events: a start subscription says whether it waits for a message or a signal."""
    db["start_subscriptions"].add_column("kind", str, not_null_default="message")


def _v6(db: sqlite_utils.Database) -> None:
    """The outbox: what a committed step sent (messages, signals), delivered after it.

    A row is written in the sender's step and stays `pending` until every receiver got it.
    A receiver's step writes (outbox, receiver) into `outbox_deliveries` (a message: the
    receiver `*`, since one receiver takes it), so a delivery repeated after a crash cannot
    commit twice.
    """
    db["outbox"].create(
        {
            "id": int,
            "source": str,  # the sending instance
            "event": int,  # the history seq of the step's first event (orders a source's sends)
            "kind": str,  # message, signal
            "name": str,
            "key": str,
            "variables": str,
            "status": str,  # pending, delivered, failed
            "created_at": str,
        },
        pk="id",
    )
    db["outbox"].create_index(["status", "id"])
    db["outbox_deliveries"].create(
        {"outbox": int, "receiver": str}, pk=("outbox", "receiver"), foreign_keys=[]
    )


def _v7(db: sqlite_utils.Database) -> None:
    """The undo log: before-images of steps (`bpmn step`'s `back`), chained by version; and
    why an outbox row could not be delivered (it is set aside, not retried for ever)."""
    db["outbox"].add_column("error", str)
    db["undo"].create(
        {
            "id": int,
            "instance": str,
            "version_before": int,
            "version_after": int,
            "record": str,
        },
        pk="id",
    )
    db["undo"].create_index(["instance", "version_after"])


def _v8(db: sqlite_utils.Database) -> None:
    """Call activities: a called instance names its caller (instance and waiting track) and
    its depth in the call tree; callers find their children by the index."""
    db["instances"].add_column("parent_instance", str)
    db["instances"].add_column("parent_track", int)
    db["instances"].add_column("call_depth", int, not_null_default=0)
    db["instances"].create_index(["parent_instance"])


def _v9(db: sqlite_utils.Database) -> None:
    """DMN decisions for business rule tasks: each set of DMN files given together (`bpmn run
    p.bpmn rules.dmn`) or deployed (`bpmn deploy rules.dmn`), by the hash of their contents;
    the files themselves are kept, so a later run or resume finds the decisions without them."""
    db["decision_sets"].create(
        {"version": str, "paths": str, "source": bytes, "saved_at": str, "deployed_at": str},
        pk="version",
    )


def _v10(db: sqlite_utils.Database) -> None:
    """The compiled-definitions cache: each definitions version's compiled form, stamped with
    the format of the engine that wrote it (`runtime/engine/compiled.py`), so a fresh engine reopens
    an instance without parsing; an engine of another format replaces the row."""
    db["compiled_definitions"].create(
        {"version": str, "format": str, "form": bytes, "saved_at": str},
        pk="version",
        not_null={"format", "form"},
        foreign_keys=[("version", "definitions", "version")],
    )


def _v11(db: sqlite_utils.Database) -> None:
    """History as a `WITHOUT ROWID` table: its rows live in the b-tree of its key (instance,
    seq), where a rowid table kept them in a second b-tree besides the key's index, and each
    step's rows dirtied a leaf of both (each page written costs a commit 8-14 us). Appending
    splits the last leaves of such a b-tree more often than a rowid table's, which takes back
    part of it: a seq step writes 4.15 pages where it wrote 4.55. The table is rebuilt with
    every row; its columns and key stay the same."""
    conn = db.conn
    conn.execute(
        'CREATE TABLE "history_v11" ("instance" TEXT, "seq" INTEGER, "event" TEXT, '
        '"element" TEXT, "track" INTEGER, "data" TEXT, "at" TEXT, '
        'PRIMARY KEY ("instance", "seq")) WITHOUT ROWID'
    )
    conn.execute(
        'INSERT INTO "history_v11" (instance, seq, event, element, track, data, at) '
        "SELECT instance, seq, event, element, track, data, at FROM history "
        "ORDER BY instance, seq"  # the key's order: the new b-tree is built left to right
    )
    conn.execute("DROP TABLE history")
    conn.execute('ALTER TABLE "history_v11" RENAME TO "history"')


ROOTS = (  # every instance's call tree root: its own id, else its caller's root
    "WITH RECURSIVE tree (id, root) AS ("
    "SELECT id, id FROM instances WHERE parent_instance IS NULL "
    "UNION ALL SELECT i.id, t.root FROM instances i JOIN tree t ON i.parent_instance = t.id) "
)


def _v12(db: sqlite_utils.Database) -> None:
    """Call trees: each instance names the root of its tree (itself, unless called), so the
    tree's size is one count on an index (the limit on instances per tree,
    runtime/calls/protocol.py).
    Existing rows get theirs from the parent links (an instance whose caller is gone roots a
    tree of its own); PostgreSQL does the same in `postgresql/schema.py`."""
    conn = db.conn
    db["instances"].add_column("root", str)
    conn.execute("CREATE TEMP TABLE roots (id TEXT PRIMARY KEY, root TEXT) WITHOUT ROWID")
    conn.execute("INSERT INTO roots (id, root) " + ROOTS + "SELECT id, root FROM tree")
    conn.execute(
        "UPDATE instances SET root = (SELECT root FROM roots WHERE roots.id = instances.id)"
    )
    conn.execute("UPDATE instances SET root = id WHERE root IS NULL")
    conn.execute("DROP TABLE temp.roots")
    db["instances"].create_index(["root"])


def _v13(db: sqlite_utils.Database) -> None:
    """Data stores (docs/data-stores.md): a named JSON value shared by every instance, with
    its last write (when, which instance, which element) and how many writes it has had
    (what a rewind checks). A step writes its stores in its own transaction."""
    db["data_stores"].create(
        {
            "name": str,
            "value": str,
            "writes": int,
            "instance": str,
            "element": str,
            "written_at": str,
        },
        pk="name",
        not_null={"value", "writes"},
    )


def _v14(db: sqlite_utils.Database) -> None:
    """Business keys: the key a user gives an instance at start (`bpmn run --business-key`),
    or its caller passes on; `bpmn instances --business-key` finds instances by it."""
    db["instances"].add_column("business_key", str)
    db["instances"].create_index(["business_key"])


def _v15(db: sqlite_utils.Database) -> None:
    """Service tasks waiting for a handler, indexed apart: a worker with handlers looks for
    them every turn (`waiting_jobs`), and that read every waiting track (user tasks, timers,
    messages...) of every instance. The partial index holds only the tracks waiting as a
    job, in the order the worker reads them. It leads with `wait` (the same in every row) so
    that SQLite's planner, which without statistics takes a partial index for half the
    table, sees an equality on it and prefers it to `(status, instance)`. The query repeats
    the index's condition as written (`sqlite/work.py`: not as parameters)."""
    db.execute(
        "CREATE INDEX tracks_waiting_jobs ON tracks (wait, instance, id) "
        f"WHERE {PARTIAL_INDEXES['tracks_waiting_jobs']}"
    )


def _v16(db: sqlite_utils.Database) -> None:
    """The task list (`bpmn tasks`): each user task's assignee and candidate users and groups
    (comma lists; a name never holds a comma) and when it was created; the open tasks of
    every instance are found by the index on (status, assignee), not by loading instances.
    Tasks created before have none of them."""
    for column in ("assignee", "candidate_users", "candidate_groups", "created_at"):
        db["user_tasks"].add_column(column, str)
    db["user_tasks"].create_index(["status", "assignee"])


MIGRATIONS: list[tuple[int, Callable[[sqlite_utils.Database], None]]] = [
    (1, _v1),
    (2, _v2),
    (3, _v3),
    (4, _v4),
    (5, _v5),
    (6, _v6),
    (7, _v7),
    (8, _v8),
    (9, _v9),
    (10, _v10),
    (11, _v11),
    (12, _v12),
    (13, _v13),
    (14, _v14),
    (15, _v15),
    (16, _v16),
]


def migrate(db: sqlite_utils.Database) -> int:
    """Bring the schema up to SCHEMA_VERSION; returns the version found before."""
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        if "meta" not in db.table_names():
            db["meta"].create({"key": str, "value": str}, pk="key")
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        found = int(row[0]) if row else 0
        if found > SCHEMA_VERSION:
            conn.execute("ROLLBACK")
            raise RuntimeError(
                f"the database has schema version {found}; this bpmn-engine knows up to "
                f"{SCHEMA_VERSION}: upgrade bpmn-engine"
            )
        for version, step in MIGRATIONS:
            if version > found:
                step(db)
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
        conn.execute("COMMIT")
        return found
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
