"""`bpmn worker`: one loop that keeps every instance in the store moving.

Each turn, the reaper releases expired leases, due start timers start instances, and every
instance with something to do *now* (found by querying rows: ready tracks, due timers, jobs
nobody alive holds) runs until it waits. Nothing of an instance stays in memory between
turns: a waiting instance costs rows, not a thread.

Two workers on one database never run the same track: every commit is a compare-and-set on
versions, so the loser of a race gets `ConcurrentModification`, drops the instance and
reloads it on a later turn. A job (a service handler call) holds a lease that the engine's
heartbeat renews (runtime/worker/leases.py); an instance with a job another live worker holds is
left alone until it finishes.

Stopping (Ctrl-C, SIGTERM) only sets a flag: the step in progress, handler call included,
commits first, and the loop ends between steps.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from bpmn_engine.errors import BpmnEngineError, ConcurrentModification, UsageError
from bpmn_engine.model import BoundaryEvent, Definitions
from bpmn_engine.records.lifecycle import InstanceState, TrackState
from bpmn_engine.records.rows import Event
from bpmn_engine.runtime.clock import Clock
from bpmn_engine.runtime.events.start_timers import firing_id, next_firing, timer_text
from bpmn_engine.runtime.handlers import Handler
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.instance.parts import InstanceServices, Listener


class WorkerServices(InstanceServices[Instance], Protocol):
    """What a worker uses of its engine (`Engine` is one), besides what its instances use:
    the definitions by version, its handlers and job cap, the outbox, starting at a start
    event. The engine sits above the worker (it keeps the worker's heartbeat), so the worker
    knows it by this protocol."""

    handlers: Mapping[str, Handler]
    job_timeout: float | None

    def definitions(self, version: str) -> Definitions: ...
    def deliver_outbox(self, on_event: Listener | None = None) -> int: ...
    def start_at(
        self,
        definitions: Definitions,
        process_id: str | None,
        start_event_id: str,
        variables: Mapping[str, Any] | None = None,
        on_event: Listener | None = None,
        *,
        instance_id: str | None = None,
        trigger: tuple[str, dict[str, Any]] | None = None,
    ) -> Instance: ...


STEPS_PER_TURN = 1000  # then the next instance: a busy loop in one diagram starves no other
QUARANTINE_SECONDS = 60.0  # an instance whose step raised is left alone this long


@dataclass
class WorkerReport:
    """What a worker did, for its last line of output."""

    steps: int = 0
    instances: set[str] = field(default_factory=set)
    started: int = 0  # instances started by start timers
    conflicts: int = 0  # steps another writer won (the instance was reloaded later)
    leases_released: int = 0
    jobs_given_up: int = 0  # jobs past the absolute cap (`--job-timeout`), failed
    woken: int = 0  # waits a commit elsewhere ended early (PostgreSQL's NOTIFY)
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "worker.stopped",
            "steps": self.steps,
            "instances": len(self.instances),
            "started": self.started,
            "conflicts": self.conflicts,
            "leases_released": self.leases_released,
            "jobs_given_up": self.jobs_given_up,
            "woken": self.woken,
            "errors": len(self.errors),
        }


class _HeldClock:
    """What instances see of a virtual clock while the worker runs: time that never jumps.

    `Instance` jumps a virtual clock to its own next timer when it has nothing else to do; in
    a worker many instances share the clock, so only the worker moves it (to the next timer
    of any instance), and each instance fires only the timers that are due.
    """

    virtual = False

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    def now(self) -> datetime:
        return self.clock.now()


class Worker:
    """Runs everything in one store that can run, until stopped (or, `once`, until idle).

    `poll` is the pause between turns when there is nothing to do. `lease` is how long a job
    claim is presumed alive; the heartbeat renews it every third of that while a handler
    runs. With a virtual clock the worker jumps time to the next due timer whenever nothing
    else can happen; `horizon` bounds how far (without it, timers that repeat forever are
    not jumped to, so `once` ends when only those are left).
    """

    def __init__(
        self,
        engine: WorkerServices,
        *,
        poll: float = 1.0,
        lease: float = 60.0,
        once: bool = False,
        horizon: timedelta | None = None,
        on_event: Listener | None = None,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        if poll < 0 or lease <= 0:
            raise UsageError("the poll interval must be >= 0 and the lease > 0 seconds")
        self.engine = engine
        self.store = engine.store
        self.clock = engine.clock
        self.poll = poll
        self.lease = lease
        self.once = once
        self.horizon = horizon
        self.on_event = on_event
        self.on_error = on_error
        self.report = WorkerReport()
        self.store.lease_seconds = lease
        self._stopping = False
        self._quarantine: dict[str, float] = {}
        self._random = random.Random(os.getpid())
        self._until: datetime | None = None
        self._serves: dict[tuple[str, str], bool] = {}  # (version, element): handler known

    # --- control --------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop after the step in progress (safe from a signal handler: only sets a flag)."""
        self._stopping = True

    @property
    def stopping(self) -> bool:
        return self._stopping

    def run(self) -> WorkerReport:
        """Turn until stopped; with `once`, until nothing can happen (virtual: ever)."""
        self.engine.clock = _HeldClock(self.clock) if self.clock.virtual else self.clock
        self._until = self.clock.now() + self.horizon if self.horizon is not None else None
        try:
            first = True
            while not self._stopping:
                try:
                    worked = self.turn(sweep=first)
                except sqlite3.OperationalError as error:  # locked past the busy timeout
                    self._trouble(None, f"database: {error}")
                    worked = False
                first = False
                if worked or self._stopping:
                    continue
                if self._jump():
                    continue
                if self.once:
                    break
                self._wait()
        finally:
            self.engine.clock = self.clock
        return self.report

    # --- one turn -----------------------------------------------------------------------------
    def turn(self, *, sweep: bool = False) -> bool:
        """Reap, fire start timers, run every runnable instance; False if nothing happened.

        `sweep` also looks at instances waiting at joins (a crash between two steps may have
        left an inclusive join that could fire with nothing else to wake it). `run()` turns;
        called alone with a virtual clock, each instance would jump the clock itself.
        """
        self.report.leases_released += self.store.release_expired_leases()
        self.give_up_overdue_jobs()
        delivered = self.deliver_outbox()
        started = self.fire_start_timers()
        steps = 0
        candidates = self.store.runnable_instances(
            self.clock.now(), joins=sweep, also=self.servable_jobs()
        )
        self._random.shuffle(candidates)  # two workers rarely start on the same instance
        for instance_id in candidates:
            if self._stopping:
                break
            if self._quarantine.get(instance_id, 0.0) > time.monotonic():
                continue
            steps += self.drive(instance_id)
        return started > 0 or steps > 0 or delivered > 0

    def servable_jobs(self) -> list[str]:
        """Instances with a service task waiting for a handler that this worker has (one
        reached by a run without it): the worker serves them. A worker with no handlers
        serves none: it does not look (a query, on an index of the waiting jobs)."""
        if not self.engine.handlers:
            return []
        found = []
        for instance_id, version, element in self.store.waiting_jobs():
            served = self._serves.get((version, element))
            if served is None:
                served = self.engine.has_handler(self.engine.definitions(version).node(element))
                self._serves[(version, element)] = served
            if served:
                found.append(instance_id)
        return found

    def give_up_overdue_jobs(self) -> int:
        """Seed 004's absolute cap: a job whose handler call began more than the engine's
        `job_timeout` ago is given up (an incident at its task), whoever holds it and however
        fresh its lease: a wedged holder's heartbeat keeps renewing it forever."""
        cap = self.engine.job_timeout
        if cap is None:
            return 0
        given_up = 0
        for instance_id, track_id, holder in self.store.overdue_jobs(cap):
            reason = (
                f"LEASE_ABSOLUTE_CAP: the job ran longer than the job timeout ({cap:g} s), "
                f"held by {holder}; given up (bpmn resume runs it again)"
            )
            try:
                if self.engine.instance(instance_id).give_up_job(track_id, reason, self._listen):
                    given_up += 1
            except ConcurrentModification:
                self.report.conflicts += 1  # its result committed meanwhile, or another reaper
        self.report.jobs_given_up += given_up
        return given_up

    def deliver_outbox(self) -> int:
        """Deliver what steps sent and a crashed process left undelivered."""
        try:
            return self.engine.deliver_outbox(self._listen)
        except ConcurrentModification:
            self.report.conflicts += 1  # another worker delivers it: exactly once all the same
        except BpmnEngineError as error:
            self._trouble(None, f"outbox: {error}")
        return 0

    def fire_start_timers(self) -> int:
        """Start an instance for each due start timer of a deployed process, exactly once."""
        started = 0
        now = self.clock.now()
        for row in self.store.due_start_timers(now):
            if self._stopping:
                break
            timer_id, deployment, process, version, element, due, repeat, interval = row
            try:
                self.engine.start_at(
                    self.engine.definitions(version),
                    process,
                    element,
                    None,
                    self._listen,
                    instance_id=firing_id(deployment, element, due),
                    trigger=("timer.fired", {"due": datetime.fromisoformat(due).isoformat()}),
                )
                started += 1
            except ConcurrentModification:
                pass  # another worker started this firing: only the timer moves on
            except BpmnEngineError as error:  # cannot start it: say so, do not retry forever
                self._trouble(None, f"start timer {element} of {process}: {error}")
            cron = None if interval else self._cron_of(version, element)
            following = next_firing(datetime.fromisoformat(due), repeat, interval, now, cron)
            if following is None:
                self.store.advance_start_timer(timer_id, due, None, 0)
            else:
                self.store.advance_start_timer(timer_id, due, *following)
        self.report.started += started
        return started

    def _cron_of(self, version: str, element: str) -> str | None:
        """The timeCycle of a start timer with no fixed interval (cron, or calendar months
        and years): its next time is read from the text."""
        definitions = self.engine.definitions(version)
        node = definitions.node_scopes[element].nodes[element]
        for definition in getattr(node, "definitions", ()):
            if definition.timer and definition.timer[0] == "timeCycle":
                return timer_text(definition.timer[1], definition.timer_language)
        return None

    def drive(self, instance_id: str) -> int:
        """Load one instance from its rows and run it until it waits; the steps it took."""
        steps = 0
        try:
            # the store need not wake other workers for the steps this worker goes on with
            # (PostgreSQL's NOTIFY): only for what it leaves when it lets go
            with self.store.driving(instance_id):
                data = self.store.load(instance_id)  # a whole id: nothing to resolve
                definitions = self.engine.definitions(data.head.definition)
                instance = Instance(self.engine, data, definitions)
                if self._held_elsewhere(instance):
                    return 0
                with instance.checkpoints.batch():  # the engine's checkpoint policy
                    while (
                        steps < STEPS_PER_TURN
                        and not self._stopping
                        and instance.state is InstanceState.ACTIVE
                    ):
                        if not instance.step_once(self._listen):
                            break
                        steps += 1
        except ConcurrentModification:
            self.report.conflicts += 1  # someone else moved it: drop it, reload it later
        except sqlite3.OperationalError as error:  # e.g. locked past the busy timeout
            self._trouble(instance_id, f"instance {instance_id}: database: {error}")
        except BpmnEngineError as error:
            self._trouble(instance_id, f"instance {instance_id}: {error}")
        except Exception as error:  # a bug must not stop every other instance
            self._trouble(instance_id, f"instance {instance_id}: {type(error).__name__}: {error}")
        if steps:
            self.report.steps += steps
            self.report.instances.add(instance_id)
        return steps

    def _held_elsewhere(self, instance: Instance) -> bool:
        """Is a job of this instance being run by another live worker? Then leave it: any
        step we took would make that worker's result fail to commit, and its handler run
        twice. (Read after loading: a claim committed before our load is seen here; one
        committed after it makes our first commit fail.)"""
        return any(
            self.store.live_claim(instance.id, track.id)
            for track in instance.data.tracks.values()
            if track.status is TrackState.EXECUTING
        )

    def _listen(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _trouble(self, instance_id: str | None, message: str) -> None:
        self.report.errors.append(message)
        if instance_id is not None:
            self._quarantine[instance_id] = time.monotonic() + QUARANTINE_SECONDS
        if self.on_error is not None:
            self.on_error(message)

    # --- time ---------------------------------------------------------------------------------
    def _jump(self) -> bool:
        """With a virtual clock and nothing to do: move time to the next timer ahead."""
        if not self.clock.virtual:
            return False
        due = self._next_due(self.clock.now())
        if due is None:
            return False
        self.clock.advance_to(due)  # type: ignore[attr-defined]
        return True

    def _next_due(self, now: datetime) -> datetime | None:
        """The earliest timer after `now` worth jumping to (an endless cycle only within the
        horizon: without one, jumping from firing to firing would never end)."""
        bounded = self._until is not None
        found: list[datetime] = []
        for due, repeat, version, element in self.store.waiting_timers_by_due():
            moment = datetime.fromisoformat(due)
            if moment > now and (bounded or repeat != -1 or not self._endless(version, element)):
                found.append(moment)
                break
        for due, repeat in self.store.start_timers_by_due():
            moment = datetime.fromisoformat(due)
            if moment > now and (bounded or repeat != -1):
                found.append(moment)
                break
        if not found:
            return None
        earliest = min(found)
        return None if self._until is not None and earliest > self._until else earliest

    def _endless(self, version: str, element: str) -> bool:
        """A timer that re-arms forever: a non-interrupting boundary cycle `R/...`."""
        node = self.engine.definitions(version).node_scopes[element].nodes[element]
        return isinstance(node, BoundaryEvent) and not node.cancel_activity

    def _wait(self) -> None:
        """Nothing to do now: wait the poll interval, or less when a timer falls due sooner.
        On PostgreSQL a commit that leaves work ends the wait at once (LISTEN/NOTIFY); on
        SQLite the worker polls."""
        seconds = self.poll
        now = self.clock.now()
        due = self._next_timer(now)
        if due is not None:
            seconds = min(seconds, (due - now).total_seconds())
        if self.store.wait_for_work(seconds, lambda: self._stopping):
            self.report.woken += 1

    def _next_timer(self, now: datetime) -> datetime | None:
        """The earliest timer or start timer due after `now` (one due already is either
        being run or held by another worker: the poll interval bounds those)."""
        found: list[datetime] = []
        for rows in (self.store.waiting_timers_by_due(), self.store.start_timers_by_due()):
            for row in rows:
                moment = datetime.fromisoformat(row[0])
                if moment > now:
                    found.append(moment)
                    break
        return min(found, default=None)


@contextmanager
def stop_on_signals(worker: Worker) -> Iterator[None]:
    """Ctrl-C or SIGTERM: finish the step in progress, then stop. A second Ctrl-C stops now."""

    def polite(signum: int, frame: object) -> None:
        if worker.stopping and signum == signal.SIGINT:
            raise KeyboardInterrupt
        worker.stop()

    watched = [signal.SIGINT, signal.SIGTERM]
    previous = {sig: signal.signal(sig, polite) for sig in watched}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
