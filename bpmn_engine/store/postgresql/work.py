"""Finding work on PostgreSQL: the SQLite queries, claimed in batches, and LISTEN/NOTIFY.

Workers skip each other's instances: of the instances that can run, a worker claims at most
`CLAIM_BATCH` with `pg_try_advisory_lock` (session locks keyed by instance id; ones another
worker holds are skipped, not waited for) and keeps them for its turn; its next look for
work, or its wait, gives them back, and a worker that dies gives them back with its
connection. Row locks cannot be held across the turn's own transactions (a row locked
`FOR UPDATE` on a second connection would block the worker's own updates of it), so these
are the session-long claims; every step still commits with compare-and-set, so a claim only
saves work, it guarantees nothing (a process that is not a worker takes no claims).

A step that leaves work for others (a ready track, unless this process goes on driving the
instance itself; a waiting timer; an outbox row: see `checkpoints.py`), a deploy and a
reaper's released lease `NOTIFY` the channel `bpmn_work` in their transaction: PostgreSQL
delivers it when they commit, never for one rolled back. A worker's drive announces the
ready work it leaves when it lets go of the instance. A waiting worker `LISTEN`s on a
connection of its own and wakes at once instead of sleeping out its poll interval; the
interval stays as the bound for what no commit announces (a lease running out on a dead
host).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import datetime

import psycopg

from bpmn_engine.store.dialect import Sql
from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.sqlite.work import WAIT_SLICE, WorkQueries

CHANNEL = "bpmn_work"
CLAIM_SPACE = 0x62706D69  # the first key of the instance claims' advisory locks
CLAIM_BATCH = 16  # instances a worker claims per turn: a backlog is shared among workers


def announce(conn: Sql) -> None:
    """Tell waiting workers, when this transaction commits, that it left work."""
    conn.execute(f"NOTIFY {CHANNEL}")


class PgWorkQueries(PostgresConnection, WorkQueries):
    """`bpmn worker` finds work by querying rows: nothing of an instance stays in memory."""

    _listener: psycopg.Connection | None = None

    def runnable_instances(
        self, now: datetime, *, joins: bool = False, also: Iterable[str] = ()
    ) -> list[str]:
        """As on SQLite, but only those this worker could claim (at most `CLAIM_BATCH`):
        the instances another worker claimed for its turn are left to it. What was
        announced until now is read off the listening connection first (this look sees
        it), so that a worker busy for hours leaves no notifications unread: PostgreSQL
        keeps its queue until every listener has read them."""
        if self._listener is not None:
            for _ in self._listener.notifies(timeout=0):
                pass
        found = super().runnable_instances(now, joins=joins, also=also)
        self.release_claims()
        if not found:
            return []
        rows = self.conn.execute(
            "SELECT id FROM unnest(?::text[]) AS id "
            "WHERE pg_try_advisory_lock(?, hashtext(id)) LIMIT ?",
            (found, CLAIM_SPACE, CLAIM_BATCH),
        )
        return [r[0] for r in rows]

    def release_claims(self) -> None:
        """Give back the instances claimed for the last turn."""
        self.conn.execute("SELECT pg_advisory_unlock_all()")

    def wait_for_work(self, seconds: float, stopping: Callable[[], bool]) -> bool:
        """Wait for a notification from another connection's commit, at most `seconds`.

        The worker listens from its first call on (which returns at once: what was committed
        before it is in no queue), so what is committed while it works is queued for its next
        wait: that wait returns at once, and the worker looks again. Its own commits are
        ignored. True when a notification ended the wait.
        """
        self.release_claims()  # what this worker could not do, another may
        if self._listener is None:
            listener = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)
            listener.execute(f"LISTEN {CHANNEL}")  # kept only once it listens
            self._listener = listener
            return False  # what was committed before LISTEN is in no queue: look once more
        own = self.conn.pg.info.backend_pid
        deadline = time.monotonic() + seconds
        woken = False
        while not woken and not stopping() and (left := deadline - time.monotonic()) > 0:
            for notify in self._listener.notifies(timeout=min(WAIT_SLICE, left), stop_after=1):
                woken = woken or notify.pid != own
        if woken:  # the rest queued so far is the same news
            for _ in self._listener.notifies(timeout=0):
                pass
        return woken

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        super().close()
