"""Leases on jobs (seed 004): a claim with a deadline, a heartbeat, a reaper.

A job's claim is written with its track by the step that claims it (`claim`); the heartbeat
extends it; the reaper releases claims whose holder is presumed gone (`store/holders.py`):
a holder on this host whose process no longer exists, or a store of this process that was
closed, is gone at once; on another host, when its lease runs out.
Lease times here are this machine's clock (`LeaseClock`): one file, one host, one clock. The
PostgreSQL store writes and compares them on the server's clock instead.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.store.holders import holder_alive
from bpmn_engine.store.sqlite.connection import SqliteConnection, stamp


def claim(worker: str, lease_seconds: float) -> tuple[str, str, str]:
    """(claimed_by, lease_until, heartbeat_at) for a job this process claims now."""
    now = datetime.now(UTC)
    return worker, stamp(now + timedelta(seconds=lease_seconds)), stamp(now)


def holds(worker: str, claimed_by: str | None, lease_until: str | None, now: str) -> bool:
    """Whether a claim is held by someone alive other than `worker` (this store)."""
    if not claimed_by or claimed_by == worker or not lease_until or lease_until <= now:
        return False
    return holder_alive(claimed_by)


class LeaseClock(SqliteConnection):
    """The clock leases are written and compared on (finding work and the reaper share it)."""

    def lease_clock(self, offset: float = 0.0) -> str:
        """Now plus `offset` seconds, as lease (and history) times are written: this
        machine's clock, UTC (a store shared by hosts asks its server instead)."""
        return stamp(datetime.now(UTC) + timedelta(seconds=offset))


class LeaseRows(LeaseClock):
    """Claims held by this process: renewed, checked, and released when their holder is gone."""

    def live_claim(self, instance_id: str, track_id: int) -> bool:
        """Is this track a job that another worker, alive as far as we can tell, is running?

        Not when its lease ran out, nor when its holder is a process of this host that no
        longer exists (so `bpmn resume` right after a crash need not wait out the lease), nor
        when the holder is this very store (it runs one step at a time: the claim is an
        orphan of an earlier step) or a store of this process that was closed. Another open
        store of this process (a second engine) holds its claims as another process would.
        """
        row = self.conn.execute(
            "SELECT status, claimed_by, lease_until FROM tracks WHERE instance = ? AND id = ?",
            (instance_id, track_id),
        ).fetchone()
        return (
            row is not None
            and row[0] == str(TrackState.EXECUTING)
            and bool(row[1])
            and row[1] != self.worker  # (before asking the clock: a server's is a query)
            and holds(self.worker, row[1], row[2], self.lease_clock())
        )

    def heartbeat(self, instance_id: str, track_id: int, lease_seconds: float) -> bool:
        """Extend the lease of a job this process runs; False if the job is no longer ours."""
        _, lease_until, heartbeat_at = claim(self.worker, lease_seconds)  # a claim renewed
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE tracks SET lease_until = ?, heartbeat_at = ? WHERE instance = ? "
                "AND id = ? AND status = 'executing' AND claimed_by = ?",
                (lease_until, heartbeat_at, instance_id, track_id, self.worker),
            )
        return cursor.rowcount == 1

    def overdue_jobs(self, cap_seconds: float) -> list[tuple[str, int, str]]:
        """(instance, track, holder) of every claimed job whose handler call began more than
        `cap_seconds` ago, however fresh its lease (seed 004's absolute cap).

        The call began at the job's last `job.started` in the history (its claim's step):
        no heartbeat moves that, so a holder that is alive but wedged is found too. Its time
        is on the lease clock (`lease_clock`: the server's, on PostgreSQL).
        """
        rows = self.conn.execute(
            "SELECT t.instance, t.id, t.claimed_by, (SELECT h.at FROM history h "
            "WHERE h.instance = t.instance AND h.track = t.id AND h.event = 'job.started' "
            "ORDER BY h.seq DESC LIMIT 1) FROM tracks t "
            "JOIN instances i ON i.id = t.instance AND i.state = 'active' "
            "WHERE t.status = 'executing' AND t.claimed_by IS NOT NULL"
        ).fetchall()
        if not rows:
            return []
        began_before = self.lease_clock(-cap_seconds)  # history times: one format, as text
        return [(r[0], r[1], r[2]) for r in rows if r[3] is not None and r[3] < began_before]

    def release_expired_leases(self) -> int:
        """The reaper: give up the claims of jobs whose holder is presumed gone.

        The track stays `executing` with nobody holding it: the next worker that loads the
        instance runs the job again (at least once, with the same idempotency key). A claim
        renewed between our read and our write is left alone.
        """
        rows = self.conn.execute(
            "SELECT instance, id, claimed_by, lease_until FROM tracks "
            "WHERE status = 'executing' AND claimed_by IS NOT NULL"
        ).fetchall()
        now_stamp = self.lease_clock() if rows else ""
        gone = [
            r for r in rows if r[2] != self.worker and not holds(self.worker, r[2], r[3], now_stamp)
        ]
        if not gone:
            return 0
        released = 0
        with self.transaction() as conn:
            for instance, track, claimed_by, lease_until in gone:
                cursor = conn.execute(
                    "UPDATE tracks SET claimed_by = NULL, lease_until = NULL, heartbeat_at = NULL "
                    "WHERE instance = ? AND id = ? AND status = 'executing' AND claimed_by = ? "
                    f"AND lease_until {self.dialect.same_as} ?",
                    (instance, track, claimed_by, lease_until),
                )
                released += cursor.rowcount
        return released
