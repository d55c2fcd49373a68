"""Leases on PostgreSQL: the reaper takes expired claims with `FOR UPDATE SKIP LOCKED`.

A claim is host + pid + lease deadline, as on SQLite (`bpmn_engine.store.sqlite.leases.holds`):
a holder on this host whose process is gone is released at once; a holder on another host
only when its lease ran out (a pid means nothing across hosts). Lease times are the workers'
clocks (UTC): hosts must keep their clocks in step (NTP) to within a small part of a lease.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.sqlite.connection import stamp
from bpmn_engine.store.sqlite.leases import LeaseRows, holds


class PgLeaseRows(PostgresConnection, LeaseRows):
    """Claims held by this process: renewed, checked, and released when their holder is gone."""

    def release_expired_leases(self) -> int:
        """The reaper, in one transaction: the claimed jobs are locked as they are read, and
        those another reaper or a committing step holds are skipped (it decides for them)."""
        now_stamp = stamp(datetime.now(UTC))
        released = 0
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT instance, id, claimed_by, lease_until FROM tracks "
                "WHERE status = 'executing' AND claimed_by IS NOT NULL "
                "FOR UPDATE SKIP LOCKED"
            ).fetchall()
            for instance, track, claimed_by, lease_until in rows:
                if claimed_by == self.worker or holds(
                    self.worker, claimed_by, lease_until, now_stamp
                ):
                    continue
                cursor = conn.execute(
                    "UPDATE tracks SET claimed_by = NULL, lease_until = NULL, heartbeat_at = NULL "
                    "WHERE instance = ? AND id = ?",
                    (instance, track),
                )
                released += cursor.rowcount
        return released
