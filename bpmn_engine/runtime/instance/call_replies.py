"""A caller's side of the parent/child protocol (`runtime/calls/protocol.py`): what a called
instance answers (completion, error, escalation, incident, resolved) becomes a step of the
call activity still waiting for exactly that child."""

from __future__ import annotations

from bpmn_engine.records.data import Step
from bpmn_engine.records.lifecycle import InstanceState, TrackState
from bpmn_engine.records.rows import Receipt, Track
from bpmn_engine.runtime.behaviours import behaviour_for
from bpmn_engine.runtime.behaviours.call_activities import CHILD_FAILED, CallActivityBehaviour
from bpmn_engine.runtime.behaviours.call_activities import WAIT as CALL_WAIT
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.calls.protocol import CallRow
from bpmn_engine.runtime.events.errors import throw_error, throw_escalation
from bpmn_engine.runtime.instance.parts import InstanceParts, Listener
from bpmn_engine.runtime.step.context import StepContext


class CallReplies(InstanceParts):
    """Receiving what called instances reply."""

    def receive_call(self, row: CallRow, receipt: Receipt, on_event: Listener | None) -> bool:
        """A called instance's completion, error or escalation: one step of this instance at
        the call activity still waiting for exactly that child; False if none waits (it was
        interrupted meanwhile: the reply changes nothing)."""
        if row.kind == calls.RESOLVED:
            return self._child_resumed(row, receipt, on_event)
        track = self._caller_track(row)
        if track is None:
            return False
        if row.kind == calls.INCIDENT:  # the token at the call activity fails with it
            self._child_failed(track, row, receipt, on_event)
            return False
        node = self.definitions.node_scopes[track.element].nodes[track.element]
        behaviour = behaviour_for(node)
        assert isinstance(behaviour, CallActivityBehaviour)

        def received(ctx: StepContext) -> None:
            ctx.step.receive(receipt)
            if row.kind == calls.COMPLETION:
                ctx.emit("call.completed", child=row.child)
                behaviour.finish(ctx, row.variables, row.outputs, row.deleted)
            elif row.kind == calls.ERROR:
                ctx.emit("call.error", child=row.child, code=row.name)
                message = row.message or f"thrown in called instance {row.child}"
                throw_error(ctx, row.name, message, row.variables)
            else:
                ctx.emit("call.escalation", child=row.child, code=row.name)
                throw_escalation(ctx, row.name, row.variables)

        self._step(track, received, on_event)
        return True

    def call_failed(self, row: CallRow, message: str, on_event: Listener | None) -> None:
        """The called process could not start: an incident at the call activity."""
        track = self._caller_track(row)
        if track is not None:
            self._fail(track.id, track.element, message, on_event)

    def _child_failed(
        self, track: Track, row: CallRow, receipt: Receipt, on_event: Listener | None
    ) -> None:
        """The incident names the child and its failing element, and, when the incident is
        deeper still, the instance that has it (the one to fix and resume)."""
        child = f"instance {row.child} (process {row.name!r})"
        if row.origin:
            message = f"called {child} failed at {row.element}, because {row.origin}"
            origin = row.origin
        else:
            message = f"called {child} failed at {row.element}: {row.message}"
            origin = f"{child} failed at {row.element}: {row.message}"
        self._fail(track.id, track.element, message, on_event, receipt, CHILD_FAILED, origin)

    def _child_resumed(self, row: CallRow, receipt: Receipt, on_event: Listener | None) -> bool:
        """The failed child was resumed: the call activity's token waits for it again, and
        this instance, if nothing else of it failed, is active again (and tells its caller)."""
        track = self._caller_track(row, TrackState.FAILED, CHILD_FAILED)
        if track is None:
            return False
        step = Step(self.data)
        step.receive(receipt)
        waiting = step.touch_track(track)
        waiting.move(TrackState.WAITING)
        waiting.wait = CALL_WAIT
        step.emit("incident.resolved", track.element, track.id, child=row.child)
        self._incidents_over(step)
        self._commit(step, on_event)
        return True

    def _caller_track(
        self,
        row: CallRow,
        status: TrackState = TrackState.WAITING,
        wait: str = CALL_WAIT,
    ) -> Track | None:
        track = self.data.tracks.get(row.track)
        if (  # a failed parent takes it too: its resume goes on from there
            self.state not in (InstanceState.ACTIVE, InstanceState.FAILED)
            or track is None
            or track.status is not status
            or track.wait != wait
            or calls.child_id(self.id, track) != row.child
        ):
            return None
        return track
