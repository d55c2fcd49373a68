"""Leases on PostgreSQL: on the server's clock; the reaper takes expired claims with
`FOR UPDATE SKIP LOCKED`.

A claim is host + pid + lease deadline, as on SQLite (`bpmn_engine.store.sqlite.leases.holds`):
a holder on this host whose process is gone is released at once; a holder on another host
only when its lease ran out (a pid means nothing across hosts). Workers on many hosts share
the claims, so no host's clock may decide: every lease deadline (claim, heartbeat) is written
from the server's `clock_timestamp()` in the statement that writes it, and the reaper, a
worker looking for work and the absolute cap compare with the server's clock too. A host
whose clock runs ahead then takes over no live job, and one that lags keeps no dead one.
The times stay text in the SQLite format (`stamp`: UTC, milliseconds), so both stores
compare them alike.
"""

from __future__ import annotations

from bpmn_engine.store.dialect import Sql
from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.postgresql.dialect import POSTGRESQL
from bpmn_engine.store.postgresql.work import announce
from bpmn_engine.store.sqlite.leases import LeaseRows, holds

SERVER_NOW = POSTGRESQL.stamp()  # the server's clock now, as a lease time
_LATER = POSTGRESQL.stamp("clock_timestamp() + make_interval(secs => ?)")


def lease_on_server_clock(
    conn: Sql, instance: str, tracks: list[int], seqs: list[int], seconds: float
) -> None:
    """Set the lease of the jobs a step just claimed, and the time of their `job.started`
    events (where the absolute cap counts from), on the server's clock: one statement, in
    the step's transaction, over what the SQLite code wrote from this host's clock."""
    until, now = POSTGRESQL.stamp("clock.t + make_interval(secs => ?)"), POSTGRESQL.stamp("clock.t")
    conn.execute(
        "WITH clock AS (SELECT clock_timestamp() AS t), leased AS ("
        f"UPDATE tracks SET lease_until = {until}, heartbeat_at = {now} FROM clock "
        "WHERE tracks.instance = ? AND tracks.id = ANY(?::bigint[])) "
        f"UPDATE history SET at = {now} FROM clock "
        "WHERE history.instance = ? AND history.seq = ANY(?::bigint[])",
        (seconds, instance, tracks, instance, seqs),
    )


class PgLeaseRows(PostgresConnection, LeaseRows):
    """Claims held by this process: renewed, checked, and released when their holder is gone."""

    def lease_clock(self, offset: float = 0.0) -> str:
        """The server's clock plus `offset` seconds (one query: callers ask only when a
        claim is there to compare)."""
        return self.conn.execute(f"SELECT {_LATER}", (offset,)).fetchone()[0]

    def heartbeat(self, instance_id: str, track_id: int, lease_seconds: float) -> bool:
        """As on SQLite, the new deadline on the server's clock."""
        with self.transaction() as conn:
            cursor = conn.execute(
                f"UPDATE tracks SET lease_until = {_LATER}, heartbeat_at = {SERVER_NOW} "
                "WHERE instance = ? AND id = ? AND status = 'executing' AND claimed_by = ?",
                (lease_seconds, instance_id, track_id, self.worker),
            )
        return cursor.rowcount == 1

    def release_expired_leases(self) -> int:
        """The reaper, in one transaction: the claimed jobs are locked as they are read, and
        those another reaper or a committing step holds are skipped (it decides for them).
        A lease runs out by the server's clock, read in the same statement. A release
        wakes the waiting workers (NOTIFY): the job is anyone's again."""
        released = 0
        with self.transaction() as conn:
            rows = conn.execute(
                f"SELECT instance, id, claimed_by, lease_until, {SERVER_NOW} FROM tracks "
                "WHERE status = 'executing' AND claimed_by IS NOT NULL " + POSTGRESQL.skip_locked
            ).fetchall()
            for instance, track, claimed_by, lease_until, now_stamp in rows:
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
            if released:
                announce(conn)
        return released
