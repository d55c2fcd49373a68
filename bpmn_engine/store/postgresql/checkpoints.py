"""Checkpoints on PostgreSQL: the shared concern's statements, with PostgreSQL's errors.

A step is one transaction; every instance, track and scope update is a compare-and-set on its
`version` (an `UPDATE ... WHERE version = ?` that touches no row when someone else moved it
first). A concurrent step that inserts the same rows fails on their primary key: both roll
back to `ConcurrentModification`, as on SQLite.

A step that claims a job (a track becomes `executing`) first takes its instance's row with
`SELECT ... FOR UPDATE SKIP LOCKED`: two workers claiming ready work of one instance at once
do not queue behind each other's transaction to lose the compare-and-set afterwards; the one
that finds the row locked skips the instance at once, and the lock's holder decides.

A step that claims a job gets its lease (and its `job.started` time) from the server's clock
(`lease_on_server_clock`), in the same transaction.

A step that leaves work others could do tells the waiting workers when it commits (NOTIFY,
see `work.py`), unless it is a step of the instance this process is driving (`driving`):
a worker goes on with that instance itself, and nobody else may take it meanwhile (its
claim), so waking them would only make each look and find nothing. When the drive lets go
of the instance with ready work left (its turn's step limit, a stop, an error), that is
announced then, once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors

from bpmn_engine.errors import ConcurrentModification
from bpmn_engine.records.data import InstanceData, InstanceHead, Step
from bpmn_engine.records.lifecycle import TimerState, TrackState
from bpmn_engine.store.dialect import Sql
from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.postgresql.leases import lease_on_server_clock
from bpmn_engine.store.postgresql.messages import lock_messages
from bpmn_engine.store.postgresql.schema import ROWID, schema
from bpmn_engine.store.postgresql.work import announce
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

    _claiming = False  # the step being committed claims a job (see `_write_head`)
    _driving: str | None = None  # the instance this process drives now (`driving`)
    _held_back = False  # a step of it left ready work and told nobody
    _driven: InstanceData | None = None  # its data, as last committed

    def commit(self, step: Step, *, new_instance: bool = False) -> None:
        self._claiming = not new_instance and claims_job(step)
        try:
            super().commit(step, new_instance=new_instance)
        except CONFLICTS as error:
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ConcurrentModification(f"instance {step.data.head.id}: {first}") from None
        if step.data.head.id == self._driving:
            self._driven = step.data

    @contextmanager
    def driving(self, instance_id: str) -> Iterator[None]:
        """This process runs the instance's steps until it waits: their ready tracks are
        announced only if it lets go of the instance with some left (or on an error, when
        what was committed is not known here)."""
        self._driving, self._held_back, self._driven = instance_id, False, None
        try:
            yield
        except BaseException:
            if self._held_back:
                self._announce_quietly()
            raise
        else:
            driven = self._driven
            if self._held_back and driven is not None and driven.next_ready() is not None:
                self._announce_quietly()
        finally:
            self._driving, self._driven = None, None

    def _announce_quietly(self) -> None:
        """NOTIFY on its own: a wake-up, not worth an error (a lost connection already
        raised one; the workers' poll finds the work all the same)."""
        try:
            with self.transaction() as conn:
                announce(conn)
        except psycopg.Error:
            pass

    def _write_head(
        self, conn: Sql, head: InstanceHead, before: InstanceHead, new: bool, now: str
    ) -> None:
        """A claim takes the instance's row first, skipping it if another transaction has
        it (a worker committing a step of this instance): no wait, no lost race later."""
        if self._claiming:
            row = conn.execute(
                f"SELECT version FROM instances WHERE id = ? {self.dialect.skip_locked}",
                (head.id,),
            ).fetchone()
            if row is None:
                raise ConcurrentModification(
                    f"instance {head.id} is being moved by another worker: skipped"
                )
            if row[0] != before.version:
                raise ConcurrentModification(f"instance {head.id} was changed by someone else")
        super()._write_head(conn, head, before, new, now)

    def _write_rest(self, conn: Sql, step: Step, now: str) -> list[int]:
        """A step that leaves work for others wakes the waiting workers when it commits
        (NOTIFY); the jobs it claims get their leases on the server's clock."""
        if self._announces(step):
            announce(conn)
        outbox = super()._write_rest(conn, step, now)
        data = step.data
        leased = [t for t in step.tracks if data.tracks[t].status is TrackState.EXECUTING]
        if leased:  # the tracks the SQLite code gave a lease (`claim`), from this host's clock
            started = [e[0] for e in step.events if e[1] == "job.started" and e[4] in leased]
            lease_on_server_clock(conn, data.head.id, leased, started, self.lease_seconds)
        return outbox

    def _announces(self, step: Step) -> bool:
        """Whether to NOTIFY for this step: it leaves work that this process will not go on
        with itself. Work is something sent (outbox rows, delivered by whoever gets to them),
        a timer to wait for (its due time may be sooner than a waiting worker's next look),
        or a track ready to run; those two are announced always, a ready track unless it is
        the instance being driven here (`driving`)."""
        data = step.data
        if step.sent or any(data.timers[t].status is TimerState.WAITING for t in step.timers):
            return True
        if not any(data.tracks[t].status is TrackState.READY for t in step.tracks):
            return False
        if data.head.id != self._driving:
            return True
        self._held_back = True
        return False

    def _write_tracks(self, conn: Sql, step: Step) -> None:
        """A step that subscribes waits for publishers (see `lock_messages`); the instance
        row is already locked by then, publishers hold no row lock: no deadlock."""
        if step.subscriptions:
            lock_messages(conn)
        super()._write_tracks(conn, step)


def claims_job(step: Step) -> bool:
    """Whether the step claims a job: a track becomes `executing`, or one a crash left
    `executing` is run again (its attempt goes up)."""
    tracks = step.data.tracks
    return any(
        (track := tracks[track_id]).status is TrackState.EXECUTING
        and (
            before is None
            or before.status is not TrackState.EXECUTING
            or before.attempt != track.attempt
        )
        for track_id, before in step.tracks.items()
    )
