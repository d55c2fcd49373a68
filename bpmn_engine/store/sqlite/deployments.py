"""Deployments: the active version of each process and its triggered start events."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from bpmn_engine.records.lifecycle import StartTimerState
from bpmn_engine.store.dialect import Sql
from bpmn_engine.store.sqlite.connection import SqliteConnection, instant, now_text


class DeploymentRows(SqliteConnection):
    """`bpmn deploy`: start timers, message and signal start subscriptions per deployment."""

    def _serialise_deploys(self, conn: Sql) -> None:
        """Two deploys of one process must not both see no active deployment: SQLite's write
        transaction already runs them one after the other (PostgreSQL adds a lock)."""

    def record_deployment(
        self,
        process: str,
        definition: str,
        deployed_at: datetime,
        timers: list[tuple[str, datetime, int, float | None]],
        messages: list[tuple[str, str]],
        signals: Sequence[tuple[str, str]] = (),
    ) -> tuple[int, int | None, bool]:
        """Make this definition version the process's active deployment, in one transaction.

        `timers` are (start event, first due, firings left after it, interval seconds) and
        `messages` are (start event, message name). The previous active deployment of the
        process stops (its start timers are cancelled); deploying the version that is already
        active changes nothing, so a deploy script may run as often as it likes.
        Returns (deployment id, the previous active one, whether anything changed).
        """
        with self.transaction() as conn:
            self._serialise_deploys(conn)
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
            created = conn.execute(
                "INSERT INTO deployments (process, definition, deployed_at, active) "
                "VALUES (?, ?, ?, 1) RETURNING id",
                (process, definition, instant(deployed_at)),
            ).fetchone()
            deployment = int(created[0]) if created else 0
            conn.executemany(
                "INSERT INTO start_timers (deployment, element, due, repeat, interval, status) "
                "VALUES (?, ?, ?, ?, ?, 'waiting')",
                [(deployment, e, instant(due), r, i) for e, due, r, i in timers],
            )
            conn.executemany(
                "INSERT INTO start_subscriptions (deployment, element, name, kind) "
                "VALUES (?, ?, ?, ?)",
                [(deployment, element, name, "message") for element, name in messages]
                + [(deployment, element, name, "signal") for element, name in signals],
            )
        return deployment, row[0] if row else None, True

    def deployments(self, *, active_only: bool = True) -> list[dict[str, Any]]:
        return self.query(
            "SELECT id, process, definition, deployed_at, active FROM deployments "
            + ("WHERE active = 1 " if active_only else "")
            + "ORDER BY id"
        )

    def start_timers(self, deployment: int) -> list[dict[str, Any]]:
        return self.query(
            "SELECT id, element, due, repeat, interval, status FROM start_timers "
            "WHERE deployment = ? ORDER BY id",
            (deployment,),
        )

    def due_start_timers(self, now: datetime) -> list[tuple[Any, ...]]:
        """(timer, deployment, process, definition, start event, due, repeat, interval) of
        each waiting start timer of an active deployment that is due at `now`."""
        return self.conn.execute(
            "SELECT s.id, s.deployment, d.process, d.definition, s.element, s.due, s.repeat, "
            "s.interval FROM start_timers s JOIN deployments d ON d.id = s.deployment "
            "WHERE s.status = 'waiting' AND d.active = 1 AND s.due <= ? ORDER BY s.due, s.id",
            (instant(now),),
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
                    due_before if due_after is None else instant(due_after),
                    repeat,
                    str(StartTimerState.DONE if due_after is None else StartTimerState.WAITING),
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

    # --- DMN decisions (business rule tasks) ----------------------------------------------
    def save_decision_set(
        self, version: str, paths: list[str], source: bytes, *, deployed: bool
    ) -> bool:
        """Keep a set of DMN files (by the hash of their contents); `deployed` marks it
        deployed now. True when it is new, or newly deployed."""
        now = now_text()
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT deployed_at FROM decision_sets WHERE version = ?", (version,)
            ).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO decision_sets (version, paths, source, saved_at, deployed_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (version, json.dumps(paths), source, now, now if deployed else None),
                )
                return True
            if deployed and row[0] is None:
                conn.execute(
                    "UPDATE decision_sets SET deployed_at = ? WHERE version = ?", (now, version)
                )
                return True
        return False

    def decision_sets(self) -> list[tuple[str, bytes]]:
        """(version, source) of every set kept: the deployed ones first, newest first, then
        the others, newest first (where a business rule task looks for its decision)."""
        rows = self.conn.execute(
            "SELECT version, source FROM decision_sets "
            "ORDER BY deployed_at IS NULL, deployed_at DESC, saved_at DESC, rowid DESC"
        ).fetchall()
        return [(row[0], bytes(row[1])) for row in rows]
