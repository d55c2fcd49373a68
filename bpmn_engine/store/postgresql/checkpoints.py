"""Checkpoints on PostgreSQL: the SQLite concern's statements, with PostgreSQL's errors.

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
