"""An operator's commands on a whole instance: set variables, throw a signal, retry after an
incident, give up a job past its cap, cancel."""

from __future__ import annotations

from typing import Any

from bpmn_engine.errors import BpmnError, UsageError
from bpmn_engine.model import Task
from bpmn_engine.records.data import Step
from bpmn_engine.records.lifecycle import InstanceState, ScopeState, TrackState
from bpmn_engine.records.rows import Receipt, Sent, Track
from bpmn_engine.runtime.behaviours.call_activities import CHILD_FAILED
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.instance.parts import InstanceParts, Listener, checked_variables
from bpmn_engine.runtime.instance.reading import Outcome
from bpmn_engine.runtime.step.context import Incident, StepContext


class Operations(InstanceParts):
    """Changing an instance from outside its diagram, each change one step."""

    def set_variables(
        self,
        values: dict[str, Any],
        unset: tuple[str, ...] = (),
        on_event: Listener | None = None,
        track: int | None = None,
    ) -> None:
        """Change variables from outside (a person stepping, an operator fixing): process
        variables, or with `track` those a live token sees, written as the token itself would
        (where its scope chain defines the name, else in the process scope), so a value set
        for an inner instance of a multi-instance stays that instance's."""
        scope = self.data.root_scope if track is None else self._live_track(track).scope
        values = checked_variables(values)
        owners = {name: self.data.variables.owner(scope, name) for name in unset}
        for name, owner in owners.items():
            if name not in self.data.values.get(owner, {}):
                where = "the process scope" if track is None else f"the scope of track {track}"
                raise UsageError(f"no variable {name!r} in {where}")
        step = Step(self.data)
        for name, value in values.items():
            step.set_value(self.data.variables.owner(scope, name), name, value)
        for name, owner in owners.items():
            step.delete_value(owner, name)
        element = self.process_id if track is None else self.data.tracks[track].element
        step.emit("variables.updated", element, track, variables=dict(values), unset=list(unset))
        self._commit(step, on_event)

    def _live_track(self, track_id: int) -> Track:
        track = self.data.tracks.get(track_id)
        if track is None or not track.live or track.listening:
            raise UsageError(f"no live token with track {track_id}")
        return track

    def throw_signal(
        self,
        name: str,
        variables: dict[str, Any] | None = None,
        on_event: Listener | None = None,
    ) -> None:
        """Broadcast a signal from this instance, as a signal throw event would: one step of
        this instance writes it to the outbox, and it is delivered after that step (to this
        instance too, and to every other instance and deployment waiting for it)."""
        if not name:
            raise UsageError("a signal needs a name")
        values = checked_variables(variables or {})
        step = Step(self.data)
        step.sent.append(Sent("signal", name, None, values))
        step.emit("signal.thrown", None, None, name=name)
        self._commit(step, on_event)

    def retry(
        self, on_event: Listener | None = None, variables: dict[str, Any] | None = None
    ) -> int:
        """Make a failed instance active again: its failed tracks re-enter their element.

        `variables` (the fix for a missing or wrong value, like `zbctl set variables`) are set
        in the process scope in the same step, so the retry never runs without them.
        """
        values = checked_variables(variables or {})
        failed = [t for t in self.data.tracks.values() if t.status is TrackState.FAILED]
        head = self.data.head
        if head.state is not InstanceState.FAILED and not (
            head.state is InstanceState.ACTIVE and failed
        ):
            if values:
                self.set_variables(values, on_event=on_event)
            return 0
        waiting = [t for t in failed if t.wait == CHILD_FAILED]
        if waiting:  # re-entering would call a second child next to the failed one
            track = waiting[0]
            child = calls.child_id(self.id, track)
            raise UsageError(
                f"instance {self.id} failed because instance {child}, called by its call "
                f"activity {track.element!r}, failed: fix and resume {self.incident_origin}, "
                "where the incident is (this instance goes on when it completes)"
            )
        step = Step(self.data)
        if values:
            root = self.data.root_scope
            for name, value in values.items():
                step.set_value(self.data.variables.owner(root, name), name, value)
            step.emit("variables.updated", self.process_id, variables=dict(values), unset=[])
        for track in sorted(failed, key=lambda t: t.id):
            node = self.definitions.node_scopes[track.element].nodes[track.element]
            step.requeue(track, tries_afresh=isinstance(node, Task))
            step.emit("incident.retried", track.element, track.id)
        self._incidents_over(step)
        self._commit(step, on_event)
        return len(failed)

    def give_up_job(self, track_id: int, reason: str, on_event: Listener | None = None) -> bool:
        """Fail a job that ran past the absolute cap: an incident at its task, not a retry.

        Its holder may be alive and wedged (its heartbeat thread keeps the lease fresh):
        re-running the job would likely wedge another worker the same way, over and over,
        while the first call may still have its effect. A person looks, and `retry` (`bpmn
        resume`) runs it again. The step is a compare-and-set on the track, so a result the
        holder returns later fails to commit. False if the job is no longer running.
        """
        track = self.data.tracks.get(track_id)
        if (
            track is None
            or track.status is not TrackState.EXECUTING
            or self.state is not InstanceState.ACTIVE
        ):
            return False
        self._fail(track_id, track.element, reason, on_event)
        return True

    def cancel(
        self, on_event: Listener | None = None, *, receipt: Receipt | None = None
    ) -> Outcome:
        """Terminate every live track (the cancellation cascade, down to the instances its
        call activities started) and end the instance. `receipt`: the cancel its caller sent."""
        if self.data.head.state in (InstanceState.COMPLETED, InstanceState.TERMINATED):
            return self.outcome()
        if self.parent is not None and receipt is None:  # as Zeebe: its caller would wait on
            raise UsageError(
                f"instance {self.id} was started by a call activity of instance "
                f"{self.parent}: cancel that one (the cancellation reaches this one)"
            )
        step = Step(self.data)
        step.receive(receipt)
        step.set_state(InstanceState.TERMINATING)
        root = self.data.root_scope
        anchor = StepContext(self.engine, self.definitions, self.data, step, self._any_track())
        try:
            anchor.terminate_scope(root)
            anchor.engine.listen(anchor, "cancel", self.definitions.processes[self.process_id])
        except (Incident, BpmnError) as failure:  # a delete listener failed: nothing changes
            step.rollback()
            where = f"{failure.element}: " if isinstance(failure, Incident) else ""
            raise UsageError(
                f"instance {self.id} was not cancelled: {where}{failure.message}"
            ) from None
        step.touch_scope(self.data.scopes[root]).move(ScopeState.TERMINATED)
        step.set_state(InstanceState.TERMINATED)
        step.emit("instance.terminated", variables=self.variables)
        self._commit(step, on_event)
        return self.outcome()
