"""Checkpoints on PostgreSQL: the SQLite concern's statements, with PostgreSQL's ids and errors.

A step is one transaction; every instance, track and scope update is a compare-and-set on its
`version` (an `UPDATE ... WHERE version = ?` that touches no row when someone else moved it
first). A concurrent step that inserts the same rows fails on their primary key: both roll
back to `ConcurrentModification`, as on SQLite.
"""

from __future__ import annotations

from psycopg import errors

from bpmn_engine.errors import ConcurrentModification
from bpmn_engine.records.data import Step
from bpmn_engine.store.postgresql.connection import PgSql, PostgresConnection
from bpmn_engine.store.postgresql.messages import lock_messages
from bpmn_engine.store.postgresql.schema import ROWID, schema
from bpmn_engine.store.sqlite.checkpoints import CheckpointRows
from bpmn_engine.store.sqlite.connection import dumps

# what a concurrent writer of the same rows causes (read committed: no serialization errors
# in practice, but a deadlock between two steps is reported as one)
CONFLICTS = (errors.IntegrityError, errors.DeadlockDetected, errors.SerializationFailure)


class PgCheckpointRows(PostgresConnection, CheckpointRows):
    """Definitions by content hash; instances as rows; steps committed with compare-and-set."""

    def snapshot(self, instance_id: str, *, with_history: bool = True) -> dict[str, list[tuple]]:
        """As on SQLite: the rows as the SQLite schema has them (not the `rowid` column that
        stands in for SQLite's implicit one, which `SELECT *` does not show there)."""
        tables = self._INSTANCE_TABLES if with_history else self._INSTANCE_TABLES[:-1]
        described = schema().tables
        rows: dict[str, list[tuple]] = {}
        for table, key in (("instances", "id"), *((t, "instance") for t in tables)):
            columns = ", ".join(f'"{c.name}"' for c in described[table].columns if c.name != ROWID)
            rows[table] = self.conn.execute(
                f"SELECT {columns} FROM {table} WHERE {key} = ?", (instance_id,)
            ).fetchall()
        return rows

    def commit(self, step: Step, *, new_instance: bool = False) -> None:
        try:
            super().commit(step, new_instance=new_instance)
        except CONFLICTS as error:
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ConcurrentModification(f"instance {step.data.head.id}: {first}") from None

    def _write_tracks(self, conn: PgSql, step: Step) -> None:  # type: ignore[override]
        """A step that subscribes waits for publishers (see `lock_messages`); the instance
        row is already locked by then, publishers hold no row lock: no deadlock."""
        if step.subscriptions:
            lock_messages(conn)
        super()._write_tracks(conn, step)  # type: ignore[arg-type]

    def _write_outbox(self, conn: PgSql, step: Step, now: str) -> list[int]:  # type: ignore[override]
        """As on SQLite; the ids of the rows sent come back from `RETURNING`."""
        instance = step.data.head.id
        event = step.events[0].seq if step.events else 0
        ids = []
        for sent in step.sent:
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
