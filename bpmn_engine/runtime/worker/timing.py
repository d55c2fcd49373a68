"""A worker's time (`Worker`'s part): waiting for work, and with a virtual clock jumping to
the next timer of any instance (which the instances may not do themselves)."""

from __future__ import annotations

from datetime import datetime

from bpmn_engine.model import BoundaryEvent
from bpmn_engine.runtime.clock import Clock
from bpmn_engine.runtime.worker.parts import WorkerParts


class HeldClock:
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


class Timing(WorkerParts):
    """Waiting between turns, and virtual time moved to the next timer ahead."""

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
