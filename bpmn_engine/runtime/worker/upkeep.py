"""What each turn of a worker does before it runs instances (`Worker`'s part): jobs past the
absolute cap given up, the outbox delivered, due start timers fired."""

from __future__ import annotations

from datetime import datetime

from bpmn_engine.errors import BpmnEngineError, ConcurrentModification
from bpmn_engine.runtime.events.start_timers import firing_id, next_firing, timer_text
from bpmn_engine.runtime.worker.parts import WorkerParts


class Upkeep(WorkerParts):
    """The chores of a turn: overdue jobs, the outbox, start timers."""

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
