"""Finding work: which instances can run now, and when the next timer is due."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from bpmn_engine.records.rows import CONSUMED, DELIVERED, JOB, RETRY
from bpmn_engine.store.sqlite.connection import instant
from bpmn_engine.store.sqlite.leases import LeaseClock, holds

# track waits that only a row above ends (a timer, a subscription, a user task, a called
# instance) or that only other tracks end (a join, an inner scope, a multi-instance body or
# loop, an event subprocess listening): a track waiting so is alive only through them
_ENDED_BY_ROWS = (
    "timer",
    RETRY,
    "message",
    "event",
    "user task",
    "call activity",
    "join",
    "subprocess",
    "multi-instance",
    "loop",
    "event subprocess",
)
WAIT_SLICE = 0.05  # how often a waiting worker looks at its stop flag (seconds)


class WorkQueries(LeaseClock):
    """`bpmn worker` finds work by querying rows: nothing of an instance stays in memory."""

    def runnable_instances(
        self, now: datetime, *, joins: bool = False, also: Iterable[str] = ()
    ) -> list[str]:
        """Active instances with something to do at `now`: a ready track, a due timer, a
        job nobody alive holds, or one of `also` (the caller knows they have work). An
        instance with a job another live worker holds is left alone (any step of ours would
        make its result fail to commit). `joins` adds those waiting at a join or at a
        complex gateway's reset, which only a step can re-check (for a worker that just
        started).
        """
        active = "JOIN instances i ON i.id = {0}.instance AND i.state = 'active'"
        found = set(also)
        found.update(
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT t.instance FROM tracks t "
                + active.format("t")
                + " WHERE t.status = 'ready'"
            )
        )
        # a due with a UTC offset compares wrongly as text: the text bound (+14 h, the widest
        # offset) keeps the index; the dialect's `instant` then decides exactly
        due, at = self.dialect.instant("m.due"), self.dialect.instant("?")
        found.update(
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT m.instance FROM timers m "
                + active.format("m")
                + f" WHERE m.status = 'waiting' AND m.due <= ? AND {due} <= {at}",
                (instant(now + timedelta(hours=14)), instant(now)),
            )
        )
        if joins:
            found.update(
                r[0]
                for r in self.conn.execute(
                    "SELECT DISTINCT t.instance FROM tracks t "
                    + active.format("t")
                    + " WHERE t.status = 'waiting' AND t.wait IN ('join', ?, ?)",
                    (DELIVERED, CONSUMED),  # a complex gateway's reset is re-checked too
                )
            )
        held: set[str] = set()
        executing = self.conn.execute(
            "SELECT t.instance, t.claimed_by, t.lease_until FROM tracks t "
            + active.format("t")
            + " WHERE t.status = 'executing'"
        ).fetchall()
        now_stamp = self.lease_clock() if executing else ""
        for instance, claimed_by, lease_until in executing:
            (held if holds(self.worker, claimed_by, lease_until, now_stamp) else found).add(
                instance
            )
        return sorted(found - held)

    def waiting_jobs(self) -> list[tuple[str, str, str]]:
        """(instance, definition, element) of each service task of an active instance that
        waits for a handler: a worker that has the handler serves it. Read off the partial
        index `tracks_waiting_jobs` (schema v15), whose condition the query repeats as
        written: PostgreSQL's generic plan of a prepared statement (psycopg prepares one after
        a few runs) cannot tell that a bound parameter's rows are in the index."""
        return [
            (r[0], r[1], r[2])
            for r in self.conn.execute(
                "SELECT t.instance, i.definition, t.element FROM tracks t "
                "JOIN instances i ON i.id = t.instance AND i.state = 'active' "
                f"WHERE t.status = 'waiting' AND t.wait = '{JOB}' ORDER BY t.instance, t.id"
            )
        ]

    def wait_for_work(self, seconds: float, stopping: Callable[[], bool]) -> bool:
        """SQLite cannot tell a waiting worker that another process committed: it sleeps,
        and the worker polls."""
        deadline = time.monotonic() + seconds
        while not stopping() and (left := deadline - time.monotonic()) > 0:
            time.sleep(min(WAIT_SLICE, left))
        return False

    @contextmanager
    def driving(self, instance_id: str) -> Iterator[None]:
        """This process runs the instance's steps until it lets go: a store that wakes
        waiting workers need not wake them for work only this process will do. SQLite
        wakes nobody (workers poll): nothing to hold back."""
        yield

    def stuck_instances(self, instance_id: str | None = None) -> list[str]:
        """Active instances with no track ready or executing, no waiting timer, subscription
        or user task, no active called instance, and no track waiting for anything else
        than those or a join or the end of what it contains (an inner scope, a
        multi-instance body, an event subprocess's listening): each of these waits ends
        only when something above moves, and nothing does. `instance_id`: that one only."""
        only = "AND i.id = ? " if instance_id is not None else ""
        rows = self.conn.execute(
            "SELECT i.id FROM instances i WHERE i.state = 'active' "
            + only
            + "AND NOT EXISTS (SELECT 1 FROM tracks t WHERE t.instance = i.id "
            "AND (t.status IN ('ready', 'executing') OR (t.status = 'waiting' "
            "AND coalesce(t.wait, '') NOT IN (" + ", ".join("?" * len(_ENDED_BY_ROWS)) + ")))) "
            "AND NOT EXISTS (SELECT 1 FROM timers m WHERE m.instance = i.id "
            "AND m.status = 'waiting') "
            "AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.instance = i.id "
            "AND s.status = 'waiting') "
            "AND NOT EXISTS (SELECT 1 FROM user_tasks u WHERE u.instance = i.id "
            "AND u.status = 'waiting') "
            "AND NOT EXISTS (SELECT 1 FROM instances c WHERE c.parent_instance = i.id "
            "AND c.state = 'active') "
            "ORDER BY i.created_at, i.id",
            (instance_id, *_ENDED_BY_ROWS) if instance_id is not None else _ENDED_BY_ROWS,
        )
        return [r[0] for r in rows]

    def overdue_work(self, now: datetime) -> list[tuple[str, int, str, str, str]]:
        """(instance, track, element, why, since) for each token of an active instance that
        should have moved on and did not, the oldest first: `retry`, its retry timer fell
        due at `since` (before `now`, the engine's clock: no worker is running); `lease`, a
        job whose claim ran out at `since` (on the store's clock: its holder is gone)."""
        due, at = self.dialect.instant("m.due"), self.dialect.instant("?")
        retries = self.conn.execute(
            "SELECT t.instance, t.id, t.element, m.due FROM tracks t "
            "JOIN instances i ON i.id = t.instance AND i.state = 'active' "
            "JOIN timers m ON m.instance = t.instance AND m.track = t.id "
            "AND m.element = t.element AND m.status = 'waiting' "
            f"WHERE t.status = 'waiting' AND t.wait = ? AND {due} <= {at}",
            (RETRY, instant(now)),
        ).fetchall()
        leases = self.conn.execute(
            "SELECT t.instance, t.id, t.element, t.lease_until FROM tracks t "
            "JOIN instances i ON i.id = t.instance AND i.state = 'active' "
            "WHERE t.status = 'executing' AND t.lease_until IS NOT NULL "
            "AND t.lease_until <= ?",
            (self.lease_clock(),),
        ).fetchall()
        found = [(r[0], r[1], r[2], "retry", r[3]) for r in retries]
        found += [(r[0], r[1], r[2], "lease", r[3]) for r in leases]
        return sorted(found, key=lambda r: (datetime.fromisoformat(r[4]), r[0], r[1]))

    def waiting_timers_by_due(self) -> Iterator[tuple[str, int, str, str]]:
        """(due, repeat, definition, element) of every waiting timer of an active instance,
        the earliest first (a virtual clock jumps to the first that matters)."""
        yield from self.conn.execute(
            "SELECT m.due, m.repeat, i.definition, m.element FROM timers m "
            "JOIN instances i ON i.id = m.instance AND i.state = 'active' "
            f"WHERE m.status = 'waiting' ORDER BY {self.dialect.instant('m.due')}, "
            "m.instance, m.id"
        )

    def start_timers_by_due(self) -> Iterator[tuple[str, int]]:
        """(due, repeat) of every waiting start timer of an active deployment, earliest first."""
        yield from self.conn.execute(
            "SELECT s.due, s.repeat FROM start_timers s "
            "JOIN deployments d ON d.id = s.deployment AND d.active = 1 "
            "WHERE s.status = 'waiting' ORDER BY s.due, s.id"
        )
