"""SQLite checkpoints: one step is one transaction; an instance is rebuilt from its rows alone.

WAL journal with `synchronous=NORMAL`: a killed process loses nothing that was committed (a
power cut may lose the last steps, never corrupt the file). Every track update is a
compare-and-set on its `version`: if someone else moved the track first, the whole step rolls
back with `ConcurrentModification` (seed 000, claim algorithm).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlite_utils

from bpmn_engine.errors import ConcurrentModification, LoadError, UsageError
from bpmn_engine.runtime.data import InstanceData, InstanceHead, Step, is_missing
from bpmn_engine.runtime.lifecycle import InstanceState, TrackState
from bpmn_engine.runtime.state import Event, Scope, Subscription, Timer, Track, UserTask
from bpmn_engine.store.schema import SCHEMA_VERSION, migrate

_TRACK_COLUMNS = (
    "element, scope, status, seq, parent, fork_group, via, wait, attempt, version, claimed_by"
)
_HEAD_FIELDS = (
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
)


_TRACK_FIELDS = (
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
_UPDATES: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str] = {}


def _update_sql(table: str, columns: tuple[str, ...], keys: tuple[str, ...]) -> str:
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


_dumps = _json_encoder()


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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


class SqliteStore:
    """The embedded store: one SQLite file (or `:memory:`) holding every instance."""

    def __init__(self, path: str | Path = ":memory:", *, read_only: bool = False) -> None:
        """`read_only`: for commands that only look (show, instances): the file is opened
        with `mode=ro`, so a missing file is not created and a foreign one is not touched."""
        self.path = str(path)
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
            self.db = sqlite_utils.Database(self.conn)
            if not read_only:
                migrate(self.db)
        except sqlite3.DatabaseError as error:
            self.conn.close()
            raise LoadError(_unusable(error), file=self.path) from None
        except RuntimeError as error:  # a newer schema than this release knows
            self.conn.close()
            raise LoadError(str(error), file=self.path) from None
        except LoadError:
            self.conn.close()
            raise
        self.worker = f"{socket.gethostname()}:{os.getpid()}"

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

    # --- definitions ----------------------------------------------------------------------
    def save_definition(self, version: str, path: str, source: bytes) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO definitions (version, path, source, created_at) "
                "VALUES (?, ?, ?, ?)",
                (version, path, source, _now()),
            )

    def definition_source(self, version: str) -> tuple[str, bytes]:
        row = self.conn.execute(
            "SELECT path, source FROM definitions WHERE version = ?", (version,)
        ).fetchone()
        if row is None:
            raise UsageError(f"definition version {version[:12]} is not in {self.path}")
        return row[0], row[1]

    # --- instances ------------------------------------------------------------------------
    def definition_of(self, instance_id: str) -> str:
        row = self.conn.execute(
            "SELECT definition FROM instances WHERE id = ?", (instance_id,)
        ).fetchone()
        if row is None:
            raise UsageError(f"no instance {instance_id!r} in {self.path}")
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
            raise UsageError(f"no instance {prefix!r} in {self.path}")
        raise UsageError(f"instance id {prefix!r} is ambiguous in {self.path}")

    def list_instances(self) -> list[dict[str, Any]]:
        return list(
            self.db.query(
                "SELECT id, process, state, end_event, incident, created_at, updated_at, "
                "(SELECT count(*) FROM user_tasks u WHERE u.instance = i.id "
                "AND u.status = 'waiting') AS waiting_tasks "
                "FROM instances i ORDER BY created_at, id"
            )
        )

    def load(self, instance_id: str) -> InstanceData:
        """Rebuild an instance from its rows alone."""
        conn = self.conn
        row = conn.execute(
            "SELECT id, definition, process, version, " + ", ".join(_HEAD_FIELDS) + " "
            "FROM instances WHERE id = ?",
            (instance_id,),
        ).fetchone()
        if row is None:
            raise UsageError(f"no instance {instance_id!r} in {self.path}")
        head = InstanceHead(id=row[0], definition=row[1], process=row[2], version=row[3])
        for name, value in zip(_HEAD_FIELDS, row[4:], strict=True):
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
            data.scopes[r[0]] = Scope(*r)
        for scope, name, value in conn.execute(
            "SELECT scope, name, value FROM variables WHERE instance = ?", (instance_id,)
        ):
            data.values.setdefault(scope, {})[name] = json.loads(value)
        for r in conn.execute(
            "SELECT id, track, element, name, status, inputs FROM user_tasks WHERE instance = ?",
            (instance_id,),
        ):
            data.tasks[r[0]] = UserTask(*r[:5], inputs=json.loads(r[5] or "{}"))
        for r in conn.execute(
            "SELECT id, track, element, host, due, repeat, interval, status FROM timers "
            "WHERE instance = ?",
            (instance_id,),
        ):
            data.timers[r[0]] = Timer(*r)
        for r in conn.execute(
            "SELECT id, track, element, host, kind, name, key, status FROM subscriptions "
            "WHERE instance = ?",
            (instance_id,),
        ):
            data.subscriptions[r[0]] = Subscription(*r)
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
        now = _iso(step.at) if step.at else _now()
        try:
            with self.transaction() as conn:
                self._write_head(conn, head, step.head_before, new_instance, now)
                self._write_tracks(conn, step)
                self._write_scopes(conn, step)
                self._write_rest(conn, step, now)
        except sqlite3.IntegrityError as error:
            raise ConcurrentModification(f"instance {head.id}: {error}") from None

    def _write_head(
        self,
        conn: sqlite3.Connection,
        head: InstanceHead,
        before: InstanceHead,
        new: bool,
        now: str,
    ) -> None:
        if new:
            values = [getattr(head, name) for name in _HEAD_FIELDS]
            values[0] = str(values[0])
            conn.execute(
                "INSERT INTO instances (id, definition, process, version, created_at, "
                "updated_at, "
                + ", ".join(_HEAD_FIELDS)
                + ") VALUES (?, ?, ?, ?, ?, ?"
                + ", ?" * len(_HEAD_FIELDS)
                + ")",
                (head.id, head.definition, head.process, head.version, now, now, *values),
            )
            return
        changed = [name for name in _HEAD_FIELDS if getattr(head, name) != getattr(before, name)]
        values = [str(head.state) if n == "state" else getattr(head, n) for n in changed]
        head.version = before.version + 1
        cursor = conn.execute(
            _update_sql("instances", (*changed, "version", "updated_at"), ("id", "version")),
            (*values, head.version, now, head.id, before.version),
        )
        if cursor.rowcount != 1:
            head.version = before.version
            raise ConcurrentModification(f"instance {head.id} was changed by someone else")

    def _write_tracks(self, conn: sqlite3.Connection, step: Step) -> None:
        """New tracks are inserted whole; a changed one updates only the columns that changed
        (an index on a column left out is not rewritten: fewer pages for each commit). A job
        claimed in this step gets its claim and lease in the same statement; a job that ended
        gives both back."""
        data = step.data
        for track_id, before in step.tracks.items():
            t = data.tracks[track_id]
            lease = None
            if t.status is TrackState.EXECUTING:
                lease = self._lease()
            elif before is not None and before.status is TrackState.EXECUTING:
                lease = (None, None, None)
            if before is None:
                row = (
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
                conn.execute(
                    f"INSERT INTO tracks (instance, id, {_TRACK_COLUMNS}, lease_until, "
                    "heartbeat_at) VALUES (?, ?" + ", ?" * len(row) + ")",
                    (data.head.id, t.id, *row),
                )
                continue
            changed = [n for n in _TRACK_FIELDS if getattr(t, n) != getattr(before, n)]
            values = [str(t.status) if n == "status" else getattr(t, n) for n in changed]
            if lease is not None:
                changed += ("claimed_by", "lease_until", "heartbeat_at")
                values += lease
            cursor = conn.execute(
                _update_sql("tracks", (*changed, "version"), ("instance", "id", "version")),
                (*values, t.version, data.head.id, t.id, before.version),
            )
            if cursor.rowcount != 1:
                raise ConcurrentModification(f"track {t.id} was moved by someone else")

    def _lease(self) -> tuple[str, str, str]:
        """(claimed_by, lease_until, heartbeat_at) for a job this process claims now."""
        now = datetime.now(UTC)
        return self.worker, _stamp(now + timedelta(seconds=self.lease_seconds)), _stamp(now)

    def _write_scopes(self, conn: sqlite3.Connection, step: Step) -> None:
        data = step.data
        for scope_id, before in step.scopes.items():
            s = data.scopes[scope_id]
            if before is None:
                conn.execute(
                    "INSERT INTO scopes (instance, id, element, parent, track, status, version) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (data.head.id, s.id, s.element, s.parent, s.track, s.status, s.version),
                )
                continue
            cursor = conn.execute(
                "UPDATE scopes SET status = ?, version = ? "
                "WHERE instance = ? AND id = ? AND version = ?",
                (s.status, s.version, data.head.id, s.id, before.version),
            )
            if cursor.rowcount != 1:
                raise ConcurrentModification(f"scope {s.id} was changed by someone else")

    def _write_rest(self, conn: sqlite3.Connection, step: Step, now: str) -> None:
        instance = step.data.head.id
        for scope, name, value in step.changed_values():
            if is_missing(value):
                conn.execute(
                    "DELETE FROM variables WHERE instance = ? AND scope = ? AND name = ?",
                    (instance, scope, name),
                )
            else:
                conn.execute(
                    "INSERT OR REPLACE INTO variables (instance, scope, name, value) "
                    "VALUES (?, ?, ?, ?)",
                    (instance, scope, name, _dumps(value)),
                )
        for task_id in step.tasks:
            u = step.data.tasks[task_id]
            conn.execute(
                "INSERT OR REPLACE INTO user_tasks "
                "(instance, id, track, element, name, status, inputs) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (instance, u.id, u.track, u.element, u.name, u.status, _dumps(u.inputs)),
            )
        for timer_id in step.timers:
            t = step.data.timers[timer_id]
            conn.execute(
                "INSERT OR REPLACE INTO timers "
                "(instance, id, track, element, host, due, repeat, interval, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (instance, t.id, t.track, t.element, t.host, t.due, t.repeat, t.interval, t.status),
            )
        for subscription_id in step.subscriptions:
            u = step.data.subscriptions[subscription_id]
            conn.execute(
                "INSERT OR REPLACE INTO subscriptions "
                "(instance, id, track, element, host, kind, name, key, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (instance, u.id, u.track, u.element, u.host, u.kind, u.name, u.key, u.status),
            )
        for message_id in step.claimed_messages:
            cursor = conn.execute(
                "UPDATE messages SET status = 'correlated', instance = ? "
                "WHERE id = ? AND status = 'buffered'",
                (instance, message_id),
            )
            if cursor.rowcount != 1:
                raise ConcurrentModification(f"message {message_id} was correlated elsewhere")
        if step.joins:  # most steps fire no join: skip the statement (bench/profile_run.py)
            conn.executemany(
                "INSERT INTO joins (instance, scope, gateway, activation, tracks) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (instance, j.scope, j.gateway, j.activation, _dumps(j.tracks))
                    for j in step.joins
                ],
            )
        stamps: dict[float, str] = {step.at: now}  # a merged step: one time per step
        conn.executemany(
            "INSERT INTO history (instance, seq, event, element, track, data, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    instance,
                    e.seq,
                    e.event,
                    e.element,
                    e.track,
                    _dumps(e.data),
                    stamps.get(at) or stamps.setdefault(at, _iso(at)),
                )
                for e, at in zip(step.events, step.event_times(), strict=True)
            ],
        )

    # --- messages and signals ---------------------------------------------------------------
    def waiting_subscriptions(
        self, kind: str, name: str, key: str | None = None
    ) -> list[tuple[str, int]]:
        """(instance, subscription) pairs waiting for this message or signal, oldest first.

        A subscription without a correlation key takes any key; one with a key only its own.
        """
        rows = self.conn.execute(
            "SELECT s.instance, s.id, s.key FROM subscriptions s "
            "JOIN instances i ON i.id = s.instance "
            "WHERE s.status = 'waiting' AND s.kind = ? AND s.name = ? AND i.state = 'active' "
            "ORDER BY i.created_at, s.instance, s.id",
            (kind, name),
        ).fetchall()
        return [(r[0], r[1]) for r in rows if r[2] is None or r[2] == key]

    def message_seen(self, message_id: str) -> bool:
        row = self.conn.execute("SELECT 1 FROM messages WHERE id = ?", (message_id,)).fetchone()
        return row is not None

    def record_message(
        self,
        message_id: str,
        name: str,
        key: str | None,
        variables: dict[str, Any],
        expires_at: str,
        status: str,
        instance: str | None = None,
    ) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO messages (id, name, key, variables, published_at, expires_at, "
                "status, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    message_id,
                    name,
                    key,
                    json.dumps(variables),
                    _now(),
                    expires_at,
                    status,
                    instance,
                ),
            )

    def buffer_unless_awaited(
        self,
        message_id: str,
        name: str,
        key: str | None,
        variables: dict[str, Any],
        expires_at: str,
    ) -> list[tuple[str, int]]:
        """Atomically: the subscriptions waiting for this message, or (none) buffer it.

        One write transaction, so a subscription committed at the same moment by another
        process is either seen here or finds the buffered message when it re-checks after
        its own commit: no message is lost between the two.
        """
        with self.transaction() as conn:
            waiting = self.waiting_subscriptions("message", name, key)
            if not waiting:
                conn.execute(
                    "INSERT INTO messages (id, name, key, variables, published_at, expires_at, "
                    "status, instance) VALUES (?, ?, ?, ?, ?, ?, 'buffered', NULL)",
                    (message_id, name, key, json.dumps(variables), _now(), expires_at),
                )
            return waiting

    def buffered_message(
        self, name: str, key: str | None, now: str
    ) -> tuple[str, dict[str, Any]] | None:
        """The oldest buffered message for this name and key that has not expired."""
        row = self.conn.execute(
            "SELECT id, variables FROM messages WHERE status = 'buffered' AND name = ? "
            "AND (key IS ? OR ? IS NULL) AND expires_at > ? ORDER BY published_at, id LIMIT 1",
            (name, key, key, now),
        ).fetchone()
        return (row[0], json.loads(row[1])) if row else None

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
        """Every row of one instance, exactly as stored (history is append-only: a caller
        that restores with `keep_history_below` need not copy it)."""
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

    def restore(
        self,
        instance_id: str,
        snapshot: dict[str, list[tuple]],
        *,
        keep_history_below: int | None = None,
    ) -> None:
        """Put an instance's rows back exactly as a snapshot took them, in one transaction."""
        with self.transaction() as conn:
            for table in snapshot:
                key = "id" if table == "instances" else "instance"
                conn.execute(f"DELETE FROM {table} WHERE {key} = ?", (instance_id,))
            if keep_history_below is not None:
                conn.execute(
                    "DELETE FROM history WHERE instance = ? AND seq >= ?",
                    (instance_id, keep_history_below),
                )
            for table, rows in snapshot.items():
                for row in rows:
                    marks = ", ".join("?" * len(row))
                    conn.execute(f"INSERT INTO {table} VALUES ({marks})", row)

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

    # --- deployments and triggered starts (`bpmn deploy`, `bpmn worker`) ---------------------
    def record_deployment(
        self,
        process: str,
        definition: str,
        deployed_at: datetime,
        timers: list[tuple[str, datetime, int, float | None]],
        messages: list[tuple[str, str]],
        signals: list[tuple[str, str]] = (),  # type: ignore[assignment]
    ) -> tuple[int, int | None, bool]:
        """Make this definition version the process's active deployment, in one transaction.

        `timers` are (start event, first due, firings left after it, interval seconds) and
        `messages` are (start event, message name). The previous active deployment of the
        process stops (its start timers are cancelled); deploying the version that is already
        active changes nothing, so a deploy script may run as often as it likes.
        Returns (deployment id, the previous active one, whether anything changed).
        """
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT id, definition FROM deployments WHERE process = ? AND active = 1",
                (process,),
            ).fetchone()
            if row is not None and row[1] == definition:
                return row[0], row[0], False
            if row is not None:
                conn.execute("UPDATE deployments SET active = 0 WHERE id = ?", (row[0],))
                conn.execute(
                    "UPDATE start_timers SET status = 'cancelled' "
                    "WHERE deployment = ? AND status = 'waiting'",
                    (row[0],),
                )
            cursor = conn.execute(
                "INSERT INTO deployments (process, definition, deployed_at, active) "
                "VALUES (?, ?, ?, 1)",
                (process, definition, _instant(deployed_at)),
            )
            deployment = int(cursor.lastrowid or 0)
            conn.executemany(
                "INSERT INTO start_timers (deployment, element, due, repeat, interval, status) "
                "VALUES (?, ?, ?, ?, ?, 'waiting')",
                [(deployment, e, _instant(due), r, i) for e, due, r, i in timers],
            )
            conn.executemany(
                "INSERT INTO start_subscriptions (deployment, element, name, kind) "
                "VALUES (?, ?, ?, ?)",
                [(deployment, element, name, "message") for element, name in messages]
                + [(deployment, element, name, "signal") for element, name in signals],
            )
        return deployment, row[0] if row else None, True

    def deployments(self, *, active_only: bool = True) -> list[dict[str, Any]]:
        return list(
            self.db.query(
                "SELECT id, process, definition, deployed_at, active FROM deployments "
                + ("WHERE active = 1 " if active_only else "")
                + "ORDER BY id"
            )
        )

    def start_timers(self, deployment: int) -> list[dict[str, Any]]:
        return list(
            self.db.query(
                "SELECT id, element, due, repeat, interval, status FROM start_timers "
                "WHERE deployment = ? ORDER BY id",
                (deployment,),
            )
        )

    def due_start_timers(self, now: datetime) -> list[tuple[Any, ...]]:
        """(timer, deployment, process, definition, start event, due, repeat, interval) of
        each waiting start timer of an active deployment that is due at `now`."""
        return self.conn.execute(
            "SELECT s.id, s.deployment, d.process, d.definition, s.element, s.due, s.repeat, "
            "s.interval FROM start_timers s JOIN deployments d ON d.id = s.deployment "
            "WHERE s.status = 'waiting' AND d.active = 1 AND s.due <= ? ORDER BY s.due, s.id",
            (_instant(now),),
        ).fetchall()

    def advance_start_timer(
        self, timer_id: int, due_before: str, due_after: datetime | None, repeat: int
    ) -> bool:
        """Move a start timer to its next firing (None: it is done), if nobody else did yet."""
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE start_timers SET due = ?, repeat = ?, status = ? "
                "WHERE id = ? AND due = ? AND status = 'waiting'",
                (
                    due_before if due_after is None else _instant(due_after),
                    repeat,
                    "done" if due_after is None else "waiting",
                    timer_id,
                    due_before,
                ),
            )
        return cursor.rowcount == 1

    def message_start(self, name: str) -> tuple[str, str, str] | None:
        """(process, definition, start event) of the oldest active deployment whose message
        start event waits for `name`."""
        row = self.conn.execute(
            "SELECT d.process, d.definition, m.element FROM start_subscriptions m "
            "JOIN deployments d ON d.id = m.deployment WHERE m.name = ? AND d.active = 1 "
            "AND m.kind = 'message' ORDER BY d.id, m.id LIMIT 1",
            (name,),
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def signal_starts(self, name: str) -> list[tuple[str, str, str]]:
        """(process, definition, start event) of every active deployment whose signal start
        event waits for `name`: a signal starts them all."""
        rows = self.conn.execute(
            "SELECT d.process, d.definition, m.element FROM start_subscriptions m "
            "JOIN deployments d ON d.id = m.deployment WHERE m.name = ? AND d.active = 1 "
            "AND m.kind = 'signal' ORDER BY d.id, m.id",
            (name,),
        ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    # --- finding work (`bpmn worker`) --------------------------------------------------------
    def runnable_instances(self, now: datetime, *, joins: bool = False) -> list[str]:
        """Active instances with something to do at `now`: a ready track, a due timer, or a
        job nobody alive holds. An instance with a job another live worker holds is left
        alone (any step of ours would make its result fail to commit). `joins` adds those
        waiting at a join, which only a step can re-check (for a worker that just started).
        """
        active = "JOIN instances i ON i.id = {0}.instance AND i.state = 'active'"
        found = {
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT t.instance FROM tracks t "
                + active.format("t")
                + " WHERE t.status = 'ready'"
            )
        }
        # a due with a UTC offset compares wrongly as text: the text bound (+14 h, the widest
        # offset) keeps the index; julianday() then decides exactly
        found.update(
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT m.instance FROM timers m "
                + active.format("m")
                + " WHERE m.status = 'waiting' AND m.due <= ? AND julianday(m.due) <= julianday(?)",
                (_instant(now + timedelta(hours=14)), _instant(now)),
            )
        )
        if joins:
            found.update(
                r[0]
                for r in self.conn.execute(
                    "SELECT DISTINCT t.instance FROM tracks t "
                    + active.format("t")
                    + " WHERE t.status = 'waiting' AND t.wait = 'join'"
                )
            )
        held: set[str] = set()
        stamp = _stamp(datetime.now(UTC))
        for instance, claimed_by, lease_until in self.conn.execute(
            "SELECT t.instance, t.claimed_by, t.lease_until FROM tracks t "
            + active.format("t")
            + " WHERE t.status = 'executing'"
        ):
            (held if self._holds(claimed_by, lease_until, stamp) else found).add(instance)
        return sorted(found - held)

    def waiting_timers_by_due(self) -> Iterator[tuple[str, int, str, str]]:
        """(due, repeat, definition, element) of every waiting timer of an active instance,
        the earliest first (a virtual clock jumps to the first that matters)."""
        yield from self.conn.execute(
            "SELECT m.due, m.repeat, i.definition, m.element FROM timers m "
            "JOIN instances i ON i.id = m.instance AND i.state = 'active' "
            "WHERE m.status = 'waiting' ORDER BY julianday(m.due), m.instance, m.id"
        )

    def start_timers_by_due(self) -> Iterator[tuple[str, int]]:
        """(due, repeat) of every waiting start timer of an active deployment, earliest first."""
        yield from self.conn.execute(
            "SELECT s.due, s.repeat FROM start_timers s "
            "JOIN deployments d ON d.id = s.deployment AND d.active = 1 "
            "WHERE s.status = 'waiting' ORDER BY s.due, s.id"
        )

    # --- leases on jobs (seed 004) -----------------------------------------------------------
    lease_seconds: float = 300.0  # how long a claim is presumed alive without a heartbeat

    def live_claim(self, instance_id: str, track_id: int) -> bool:
        """Is this track a job that another worker, alive as far as we can tell, is running?

        Not when its lease ran out, nor when its holder is a process of this host that no
        longer exists (so `bpmn resume` right after a crash need not wait out the lease), nor
        when the holder is this very process (it runs one step at a time: the claim is an
        orphan of an earlier step).
        """
        row = self.conn.execute(
            "SELECT status, claimed_by, lease_until FROM tracks WHERE instance = ? AND id = ?",
            (instance_id, track_id),
        ).fetchone()
        return (
            row is not None
            and row[0] == str(TrackState.EXECUTING)
            and self._holds(row[1], row[2], _stamp(datetime.now(UTC)))
        )

    def _holds(self, claimed_by: str | None, lease_until: str | None, now: str) -> bool:
        if not claimed_by or claimed_by == self.worker or not lease_until or lease_until <= now:
            return False
        host, _, pid = claimed_by.rpartition(":")
        return host != socket.gethostname() or _pid_alive(pid)

    def heartbeat(self, instance_id: str, track_id: int, lease_seconds: float) -> bool:
        """Extend the lease of a job this process runs; False if the job is no longer ours."""
        now = datetime.now(UTC)
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE tracks SET lease_until = ?, heartbeat_at = ? WHERE instance = ? "
                "AND id = ? AND status = 'executing' AND claimed_by = ?",
                (
                    _stamp(now + timedelta(seconds=lease_seconds)),
                    _stamp(now),
                    instance_id,
                    track_id,
                    self.worker,
                ),
            )
        return cursor.rowcount == 1

    def release_expired_leases(self) -> int:
        """The reaper: give up the claims of jobs whose holder is presumed gone.

        The track stays `executing` with nobody holding it: the next worker that loads the
        instance runs the job again (at least once, with the same idempotency key). A claim
        renewed between our read and our write is left alone.
        """
        stamp = _stamp(datetime.now(UTC))
        rows = self.conn.execute(
            "SELECT instance, id, claimed_by, lease_until FROM tracks "
            "WHERE status = 'executing' AND claimed_by IS NOT NULL"
        ).fetchall()
        gone = [r for r in rows if r[2] != self.worker and not self._holds(r[2], r[3], stamp)]
        if not gone:
            return 0
        released = 0
        with self.transaction() as conn:
            for instance, track, claimed_by, lease_until in gone:
                cursor = conn.execute(
                    "UPDATE tracks SET claimed_by = NULL, lease_until = NULL, heartbeat_at = NULL "
                    "WHERE instance = ? AND id = ? AND status = 'executing' AND claimed_by = ? "
                    "AND lease_until IS ?",
                    (instance, track, claimed_by, lease_until),
                )
                released += cursor.rowcount
        return released


def _stamp(moment: datetime) -> str:
    """A lease time: UTC, fixed width, so leases compare as text in SQL."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def _instant(moment: datetime) -> str:
    """A start timer's due time: UTC, fixed width (microseconds), so it compares as text."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _pid_alive(pid: str) -> bool:
    """Whether a process of this host exists; when in doubt, alive (then the lease decides)."""
    if sys.platform == "win32" or not pid.isdigit() or int(pid) <= 0:
        return True  # on Windows os.kill(pid, 0) would not probe but kill
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, owned by someone else
        return True
    return True
