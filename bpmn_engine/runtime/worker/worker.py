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

`Worker` is one class made of parts (over `parts.py`, with `WorkerReport` and the engine as
`WorkerServices`): here the turn loop, finding instances and driving each; `upkeep.py` the
chores of a turn (overdue jobs, the outbox, start timers); `timing.py` waiting and virtual
time.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from bpmn_engine.errors import BpmnEngineError, ConcurrentModification, UsageError
from bpmn_engine.records.lifecycle import InstanceState, TrackState
from bpmn_engine.runtime.instance.ghosts import GhostResult
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.instance.parts import Listener
from bpmn_engine.runtime.worker.parts import WorkerReport, WorkerServices
from bpmn_engine.runtime.worker.timing import HeldClock, Timing
from bpmn_engine.runtime.worker.upkeep import Upkeep

__all__ = ["STEPS_PER_TURN", "Worker", "WorkerReport", "WorkerServices", "stop_on_signals"]

STEPS_PER_TURN = 1000  # then the next instance: a busy loop in one diagram starves no other


class Worker(Upkeep, Timing):
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

    # --- control ------------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop after the step in progress (safe from a signal handler: only sets a flag)."""
        self._stopping = True

    @property
    def stopping(self) -> bool:
        return self._stopping

    def run(self) -> WorkerReport:
        """Turn until stopped; with `once`, until nothing can happen (virtual: ever)."""
        self.engine.clock = HeldClock(self.clock) if self.clock.virtual else self.clock
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
                        budget = STEPS_PER_TURN - steps  # a chain's nodes count
                        if not instance.step_once(self._listen, chain=budget):
                            break
                        steps += instance.nodes_stepped
        except GhostResult as ghost:  # refused, never applied: said, and counted
            self.report.ghosts += 1
            if self.on_error is not None:
                self.on_error(str(ghost))
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
