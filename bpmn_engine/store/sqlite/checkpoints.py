"""Checkpoints: definitions and instances; one step is one transaction.

An instance is rebuilt from its rows alone. Every instance, track and scope update is a
compare-and-set on its `version`: if someone else moved it first, the whole step rolls back
with `ConcurrentModification` (seed 000, claim algorithm).
"""

from __future__ import annotations

import json
import sqlite3
from operator import attrgetter
from typing import Any

from bpmn_engine.errors import ConcurrentModification, NotFound, UsageError
from bpmn_engine.records.data import InstanceData, InstanceHead, Step, is_missing
from bpmn_engine.records.lifecycle import (
    InstanceState,
    ScopeState,
    SubscriptionState,
    TaskState,
    TimerState,
    TrackState,
)
from bpmn_engine.records.rows import Event, Scope, Subscription, Timer, Track, UserTask
from bpmn_engine.store.dialect import Dialect, Sql
from bpmn_engine.store.sqlite.connection import (
    HEAD_FIELDS,
    TASK_PEOPLE,
    TRACK_FIELDS,
    SqliteConnection,
    dumps,
    iso,
    names_of,
    names_text,
    now_text,
    update_sql,
    upsert_sql,
    write_variable,
)
from bpmn_engine.store.sqlite.data_stores import write_stores
from bpmn_engine.store.sqlite.leases import claim
from bpmn_engine.store.sqlite.undo import undo_record

_TRACK_COLUMNS = ", ".join((*TRACK_FIELDS, "version", "claimed_by"))  # a track row, read
# the changeable fields of a head and of a track as one tuple each (compared field by field on
# every step: one C call instead of a getattr per field)
_HEAD_VALUES = attrgetter(*HEAD_FIELDS)
_TRACK_VALUES = attrgetter(*TRACK_FIELDS)
_INSERT_TRACK = (
    f"INSERT INTO tracks (instance, id, {_TRACK_COLUMNS}, lease_until, heartbeat_at) "
    "VALUES (?, ?" + ", ?" * (len(TRACK_FIELDS) + 4) + ")"
)

_TASK_COLUMNS = ("track", "element", "name", "status", "inputs", *TASK_PEOPLE)
_UPSERT_TASK = upsert_sql("user_tasks", ("instance", "id", *_TASK_COLUMNS), ("instance", "id"))


def _task_row(instance: str, u: UserTask) -> tuple[Any, ...]:
    return (
        instance,
        u.id,
        u.track,
        u.element,
        u.name,
        str(u.status),
        dumps(u.inputs),
        u.assignee,
        names_text(u.candidate_users),
        names_text(u.candidate_groups),
        u.created_at,
    )


def _updated(conn: Sql, sql: str, rows: list[tuple[Any, ...]], dialect: Dialect) -> int:
    """Run a compare-and-set `UPDATE` for each row; how many rows it changed in all. SQLite
    counts an `executemany`; a driver that does not (psycopg) is asked row by row, so each
    row's count is its own."""
    if len(rows) == 1:  # nearly every step: one track moved
        return conn.execute(sql, rows[0]).rowcount
    if dialect.counts_executemany:
        return int(conn.executemany(sql, rows).rowcount)
    return sum(conn.execute(sql, row).rowcount for row in rows)


class CheckpointRows(SqliteConnection):
    """Definitions by content hash; instances as rows; steps committed with compare-and-set."""

    # --- definitions ----------------------------------------------------------------------
    def save_definition(self, version: str, path: str, source: bytes) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO definitions (version, path, source, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (version, path, source, now_text()),
            )

    def definition_source(self, version: str) -> tuple[str, bytes]:
        row = self.conn.execute(
            "SELECT path, source FROM definitions WHERE version = ?", (version,)
        ).fetchone()
        if row is None:
            raise UsageError(f"definition version {version[:12]} is not in {self.path}")
        return row[0], row[1]

    def compiled_definition(self, version: str) -> tuple[str, bytes] | None:
        """(format, compiled form) kept for a definitions version, if any."""
        row = self.conn.execute(
            "SELECT format, form FROM compiled_definitions WHERE version = ?", (version,)
        ).fetchone()
        return None if row is None else (row[0], bytes(row[1]))

    def compiled_format(self, version: str) -> str | None:
        """The format of the compiled form kept for a version (without reading the form)."""
        row = self.conn.execute(
            "SELECT format FROM compiled_definitions WHERE version = ?", (version,)
        ).fetchone()
        return None if row is None else row[0]

    def save_compiled_definition(self, version: str, format: str, form: bytes) -> None:
        """Keep (or replace) the compiled form of a saved definitions version."""
        with self.transaction() as conn:
            conn.execute(
                upsert_sql(
                    "compiled_definitions", ("version", "format", "form", "saved_at"), ("version",)
                ),
                (version, format, form, now_text()),
            )

    def definition_versions(self) -> list[str]:
        """Every definitions version saved, newest first (where a called process is looked
        for last)."""
        rows = self.conn.execute(
            "SELECT version FROM definitions ORDER BY created_at DESC, rowid DESC"
        )
        return [r[0] for r in rows]

    # --- instances ------------------------------------------------------------------------
    def child_instances(self, instance_id: str) -> list[str]:
        """The instances this one called (call activities), oldest first."""
        rows = self.conn.execute(
            "SELECT id FROM instances WHERE parent_instance = ? ORDER BY created_at, rowid",
            (instance_id,),
        )
        return [r[0] for r in rows]

    def call_tree_size(self, root: str) -> int:
        """The instances whose tree's root is `root` (the index on `root`), and the children
        the tree's pending call rows will start (a row whose child exists already, delivered
        but not yet marked so, counts once)."""
        row = self.conn.execute(
            "SELECT (SELECT count(*) FROM instances WHERE root = ?) + ("
            "SELECT count(*) FROM outbox o JOIN instances s ON s.id = o.source "
            "WHERE o.status = 'pending' AND o.kind = 'call' AND s.root = ? "
            "AND NOT EXISTS (SELECT 1 FROM instances c WHERE c.id = o.key))",
            (root, root),
        ).fetchone()
        return int(row[0])

    def definition_of(self, instance_id: str) -> str:
        row = self.conn.execute(
            "SELECT definition FROM instances WHERE id = ?", (instance_id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no instance {instance_id!r} in {self.path}")
        return row[0]

    def instance_exists(self, instance_id: str) -> bool:
        row = self.conn.execute("SELECT 1 FROM instances WHERE id = ?", (instance_id,))
        return row.fetchone() is not None

    def resolve(self, prefix: str) -> str:
        """The full id of the instance whose id is or starts with `prefix`.

        The exact id is looked up by key; a prefix is a range on the key (not a LIKE, which
        scans the table), so resuming one of many instances stays cheap.
        """
        if self.instance_exists(prefix):
            return prefix
        rows = self.conn.execute(
            "SELECT id FROM instances WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
            (prefix, prefix + "\U0010ffff"),
        ).fetchall()
        ids = [r[0] for r in rows]
        if len(ids) == 1:
            return ids[0]
        if not ids:
            raise NotFound(f"no instance {prefix!r} in {self.path}")
        raise UsageError(f"instance id {prefix!r} is ambiguous in {self.path}")

    def list_instances(self) -> list[dict[str, Any]]:
        return self.query(
            "SELECT id, process, state, end_event, incident, created_at, updated_at, "
            "parent_instance, parent_track, business_key, definition, "
            "(SELECT count(*) FROM user_tasks u WHERE u.instance = i.id "
            "AND u.status = 'waiting') AS waiting_tasks, "
            "(SELECT count(*) FROM tracks t WHERE t.instance = i.id "
            "AND t.status IN ('ready', 'executing')) AS moving_tracks "
            "FROM instances i ORDER BY created_at, rowid"
        )

    def open_tasks(
        self, process: str | None = None, assignee: str | None = None, group: str | None = None
    ) -> list[dict[str, Any]]:
        """The waiting user tasks of every active instance, oldest first, in one query on
        the index of tasks by status and assignee (`group`: a name among the candidate
        groups, which the column holds as a comma list)."""
        if group is not None and "," in group:
            return []  # no name holds a comma (`names_text`)
        sql = (
            "SELECT u.instance, u.id AS task, u.element, u.name, u.assignee, u.candidate_users, "
            "u.candidate_groups, u.created_at, i.process, i.business_key, i.definition "
            "FROM user_tasks u JOIN instances i ON i.id = u.instance "
            "WHERE u.status = 'waiting' AND i.state = 'active'"
        )
        params: list[Any] = []
        if assignee is not None:
            sql += " AND u.assignee = ?"
            params.append(assignee)
        if process is not None:
            sql += " AND i.process = ?"
            params.append(process)
        if group is not None:
            sql += f" AND {self.dialect.position}(',' || u.candidate_groups || ',', ?) > 0"
            params.append(f",{group},")
        rows = self.query(
            sql + " ORDER BY COALESCE(u.created_at, ''), i.rowid, u.id", tuple(params)
        )
        for row in rows:
            row["candidate_users"] = names_of(row["candidate_users"])
            row["candidate_groups"] = names_of(row["candidate_groups"])
        return rows

    def load(self, instance_id: str) -> InstanceData:
        """Rebuild an instance from its rows alone."""
        conn = self.conn
        row = conn.execute(
            "SELECT id, definition, process, version, root, business_key, "
            + ", ".join(HEAD_FIELDS)
            + " FROM instances WHERE id = ?",
            (instance_id,),
        ).fetchone()
        if row is None:
            raise NotFound(f"no instance {instance_id!r} in {self.path}")
        head = InstanceHead(row[0], row[1], row[2], version=row[3], root=row[4] or row[0])
        head.business_key = row[5]
        for name, value in zip(HEAD_FIELDS, row[6:], strict=True):
            setattr(head, name, value)
        head.state = InstanceState(head.state)
        data = InstanceData(head)
        for r in conn.execute(
            f"SELECT id, {_TRACK_COLUMNS} FROM tracks WHERE instance = ?", (instance_id,)
        ):
            data.tracks[r[0]] = Track(
                id=r[0],
                element=r[1],
                scope=r[2],
                status=TrackState(r[3]),
                seq=r[4],
                parent=r[5],
                fork_group=r[6],
                via=r[7],
                wait=r[8],
                attempt=r[9],
                version=r[10],
            )
        for r in conn.execute(
            "SELECT id, element, parent, track, status, version FROM scopes WHERE instance = ?",
            (instance_id,),
        ):
            data.scopes[r[0]] = Scope(r[0], r[1], r[2], r[3], ScopeState(r[4]), r[5])
        for scope, name, value in conn.execute(
            "SELECT scope, name, value FROM variables WHERE instance = ?", (instance_id,)
        ):
            data.values.setdefault(scope, {})[name] = json.loads(value)
        for r in conn.execute(
            "SELECT id, track, element, name, status, inputs, assignee, candidate_users, "
            "candidate_groups, created_at FROM user_tasks WHERE instance = ?",
            (instance_id,),
        ):
            inputs = json.loads(r[5] or "{}")
            users, groups = names_of(r[7]), names_of(r[8])
            task = UserTask(r[0], r[1], r[2], r[3], TaskState(r[4]), inputs, r[6], users, groups)
            task.created_at = r[9]
            data.tasks[r[0]] = task
        for r in conn.execute(
            "SELECT id, track, element, host, due, repeat, interval, status FROM timers "
            "WHERE instance = ?",
            (instance_id,),
        ):
            data.timers[r[0]] = Timer(*r[:7], TimerState(r[7]))
        for r in conn.execute(
            "SELECT id, track, element, host, kind, name, key, status FROM subscriptions "
            "WHERE instance = ?",
            (instance_id,),
        ):
            data.subscriptions[r[0]] = Subscription(*r[:7], SubscriptionState(r[7]))
        for scope, gateway, activations in conn.execute(
            "SELECT scope, gateway, max(activation) FROM joins WHERE instance = ? "
            "GROUP BY scope, gateway",
            (instance_id,),
        ):
            data.joins[(scope, gateway)] = activations
        data.rebuild_indexes()
        return data

    def commit(self, step: Step, *, new_instance: bool = False) -> None:
        """Write everything one step touched, atomically, or nothing at all."""
        data = step.data
        head = data.head
        now = iso(step.at) if step.at else now_text()
        try:
            with self.transaction() as conn:
                self._write_head(conn, head, step.head_before, new_instance, now)
                self._write_tracks(conn, step)
                self._write_scopes(conn, step)
                outbox = self._write_rest(conn, step, now)
                stores = write_stores(conn, step, now) if step.stores else []
                if step.undoable and not new_instance:
                    conn.execute(
                        "INSERT INTO undo (instance, version_before, version_after, record) "
                        "VALUES (?, ?, ?, ?)",
                        (
                            head.id,
                            step.head_before.version,
                            head.version,
                            undo_record(step, outbox, stores),
                        ),
                    )
        except sqlite3.IntegrityError as error:
            raise ConcurrentModification(f"instance {head.id}: {error}") from None

    def _write_head(
        self,
        conn: Sql,
        head: InstanceHead,
        before: InstanceHead,
        new: bool,
        now: str,
    ) -> None:
        if new:
            values = [getattr(head, name) for name in HEAD_FIELDS]
            values[0] = str(values[0])
            conn.execute(
                "INSERT INTO instances (id, definition, process, version, root, business_key, "
                "created_at, updated_at, "
                + ", ".join(HEAD_FIELDS)
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?"
                + ", ?" * len(HEAD_FIELDS)
                + ")",
                (
                    head.id,
                    head.definition,
                    head.process,
                    head.version,
                    head.root,
                    head.business_key,
                    now,
                    now,
                    *values,
                ),
            )
            return
        changed: list[str] = []
        values = []
        pairs = zip(HEAD_FIELDS, _HEAD_VALUES(head), _HEAD_VALUES(before), strict=True)
        for name, value, old in pairs:
            if value != old:
                changed.append(name)
                values.append(str(value) if name == "state" else value)
        if head.definition != before.definition:  # a migration moved it to another version
            changed.append("definition")
            values.append(head.definition)
        head.version = before.version + 1
        cursor = conn.execute(
            update_sql("instances", (*changed, "version", "updated_at"), ("id", "version")),
            (*values, head.version, now, head.id, before.version),
        )
        if cursor.rowcount != 1:
            head.version = before.version
            raise ConcurrentModification(f"instance {head.id} was changed by someone else")

    def _write_tracks(self, conn: Sql, step: Step) -> None:
        """New tracks are inserted whole; a changed one updates only the columns that changed
        (an index on a column left out is not rewritten: fewer pages for each commit). A job
        claimed in this step gets its claim and lease in the same statement; a job that ended
        gives both back. Rows of one shape go in one statement (a merged step that moved a
        thousand branches to their join: one `executemany`, each row still compare-and-set)."""
        data = step.data
        instance = data.head.id
        inserts: list[tuple[Any, ...]] = []
        updates: dict[str, list[tuple[Any, ...]]] = {}
        for track_id, before in step.tracks.items():
            t = data.tracks[track_id]
            lease = None
            if t.status is TrackState.EXECUTING:
                lease = claim(self.worker, self.lease_seconds)
            elif before is not None and before.status is TrackState.EXECUTING:
                lease = (None, None, None)
            if before is None:
                inserts.append(
                    (
                        instance,
                        t.id,
                        t.element,
                        t.scope,
                        str(t.status),
                        t.seq,
                        t.parent,
                        t.fork_group,
                        t.via,
                        t.wait,
                        t.attempt,
                        t.version,
                        *(lease or (None, None, None)),
                    )
                )
                continue
            changed: list[str] = []
            values: list[Any] = []
            pairs = zip(TRACK_FIELDS, _TRACK_VALUES(t), _TRACK_VALUES(before), strict=True)
            for name, value, old in pairs:
                if value != old:
                    changed.append(name)
                    values.append(str(value) if name == "status" else value)
            if lease is not None:
                changed += ("claimed_by", "lease_until", "heartbeat_at")
                values += lease
            sql = update_sql("tracks", (*changed, "version"), ("instance", "id", "version"))
            updates.setdefault(sql, []).append((*values, t.version, instance, t.id, before.version))
        if inserts:
            conn.executemany(_INSERT_TRACK, inserts)
        for sql, rows in updates.items():
            if _updated(conn, sql, rows, self.dialect) != len(rows):
                ids = ", ".join(str(row[-2]) for row in rows)
                raise ConcurrentModification(
                    f"track {ids} was moved by someone else"
                    if len(rows) == 1
                    else f"one of tracks {ids} was moved by someone else"
                )

    def _write_scopes(self, conn: Sql, step: Step) -> None:
        data = step.data
        for scope_id, before in step.scopes.items():
            s = data.scopes[scope_id]
            if before is None:
                conn.execute(
                    "INSERT INTO scopes (instance, id, element, parent, track, status, version) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (data.head.id, s.id, s.element, s.parent, s.track, str(s.status), s.version),
                )
                continue
            cursor = conn.execute(  # the element too: a migration may move a scope
                "UPDATE scopes SET status = ?, element = ?, version = ? "
                "WHERE instance = ? AND id = ? AND version = ?",
                (str(s.status), s.element, s.version, data.head.id, s.id, before.version),
            )
            if cursor.rowcount != 1:
                raise ConcurrentModification(f"scope {s.id} was changed by someone else")

    def _write_rest(self, conn: Sql, step: Step, now: str) -> list[int]:
        """Variables, tasks, timers, subscriptions, messages, joins, history; the ids of the
        outbox rows written."""
        instance = step.data.head.id
        for scope, name, value in step.changed_values():
            write_variable(conn, instance, scope, name, value, is_missing(value))
        for task_id in step.tasks:
            u = step.data.tasks[task_id]
            conn.execute(_UPSERT_TASK, _task_row(instance, u))
        for timer_id in step.timers:
            t = step.data.timers[timer_id]
            status = str(t.status)
            conn.execute(
                "INSERT INTO timers "
                "(instance, id, track, element, host, due, repeat, interval, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (instance, id) DO UPDATE SET "
                "track = excluded.track, element = excluded.element, host = excluded.host, "
                "due = excluded.due, repeat = excluded.repeat, interval = excluded.interval, "
                "status = excluded.status",
                (instance, t.id, t.track, t.element, t.host, t.due, t.repeat, t.interval, status),
            )
        for subscription_id in step.subscriptions:
            u = step.data.subscriptions[subscription_id]
            conn.execute(
                "INSERT INTO subscriptions "
                "(instance, id, track, element, host, kind, name, key, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (instance, id) DO UPDATE SET "
                "track = excluded.track, element = excluded.element, host = excluded.host, "
                "kind = excluded.kind, name = excluded.name, key = excluded.key, "
                "status = excluded.status",
                (instance, u.id, u.track, u.element, u.host, u.kind, u.name, u.key, str(u.status)),
            )
        for message_id in step.claimed_messages:
            cursor = conn.execute(
                "UPDATE messages SET status = 'correlated', instance = ? "
                "WHERE id = ? AND status = 'buffered'",
                (instance, message_id),
            )
            if cursor.rowcount != 1:
                raise ConcurrentModification(f"message {message_id} was correlated elsewhere")
        outbox = (
            self._write_outbox(conn, step, now)
            if step.sent or step.deliveries or step.correlated
            else []
        )
        if step.joins:  # most steps fire no join: skip the statement (bench/profile_run.py)
            conn.executemany(
                "INSERT INTO joins (instance, scope, gateway, activation, tracks) "
                "VALUES (?, ?, ?, ?, ?)",
                [(instance, j.scope, j.gateway, j.activation, dumps(j.tracks)) for j in step.joins],
            )
        times = step.merged_times()
        if times is None:  # one step: every event has its time
            rows = [
                (instance, seq, event, element, track, dumps(data), now)
                for seq, event, _, element, track, data in step.events
            ]
        else:  # a merged step: each event has its own step's time, formatted once per step
            stamps: dict[float, str] = {step.at: now}
            rows = [
                (
                    instance,
                    seq,
                    event,
                    element,
                    track,
                    dumps(data),
                    stamps.get(at) or stamps.setdefault(at, iso(at)),
                )
                for (seq, event, _, element, track, data), at in zip(
                    step.events, times, strict=True
                )
            ]
        conn.executemany(
            "INSERT INTO history (instance, seq, event, element, track, data, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return outbox

    # --- snapshots (`bpmn step`'s `back`) ----------------------------------------------------
    _INSTANCE_TABLES = (
        "tracks",
        "scopes",
        "variables",
        "user_tasks",
        "timers",
        "subscriptions",
        "joins",
        "history",
    )

    def snapshot(self, instance_id: str, *, with_history: bool = True) -> dict[str, list[tuple]]:
        """Every row of one instance, exactly as stored (for tests and diagnostics; `back`
        rewinds from the undo log instead)."""
        tables = self._INSTANCE_TABLES if with_history else self._INSTANCE_TABLES[:-1]
        rows = {
            "instances": self.conn.execute(
                "SELECT * FROM instances WHERE id = ?", (instance_id,)
            ).fetchall()
        }
        for table in tables:
            rows[table] = self.conn.execute(
                f"SELECT * FROM {table} WHERE instance = ?", (instance_id,)
            ).fetchall()
        return rows

    # --- reading history --------------------------------------------------------------------
    def history(self, instance_id: str) -> list[Event]:
        return [
            Event(seq, event, instance_id, element, track, json.loads(data))
            for seq, event, element, track, data in self.conn.execute(
                "SELECT seq, event, element, track, data FROM history "
                "WHERE instance = ? ORDER BY seq",
                (instance_id,),
            )
        ]

    def history_times(self, instance_id: str) -> dict[int, str]:
        """When each history event was committed (ISO 8601, by its `seq`)."""
        return {
            seq: at
            for seq, at in self.conn.execute(
                "SELECT seq, at FROM history WHERE instance = ?", (instance_id,)
            )
        }

    def _write_outbox(self, conn: Sql, step: Step, now: str) -> list[int]:
        """What the step sent (pending outbox rows) and what it received (unique deliveries
        and message ids: a second delivery of one outbox row or message id fails the step)."""
        instance = step.data.head.id
        event = step.events[0].seq if step.events else 0
        ids = []
        for sent in step.sent:  # RETURNING: the one way to the new id on every store
            row = conn.execute(
                "INSERT INTO outbox (source, event, kind, name, key, variables, status, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?) RETURNING id",
                (instance, event, sent.kind, sent.name, sent.key, dumps(sent.variables), now),
            ).fetchone()
            ids.append(int(row[0]) if row else 0)
        conn.executemany(
            "INSERT INTO outbox_deliveries (outbox, receiver) VALUES (?, ?)", step.deliveries
        )
        conn.executemany(
            "INSERT INTO messages (id, name, key, variables, published_at, expires_at, status, "
            "instance) VALUES (?, ?, ?, ?, ?, ?, 'correlated', ?)",
            [
                (message_id, name, key, dumps(variables), now, now, instance)
                for message_id, name, key, variables in step.correlated
            ],
        )
        return ids
