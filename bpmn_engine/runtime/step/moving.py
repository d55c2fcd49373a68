"""How a track moves on during a step: taking flows, waiting, ending tracks, completing or
terminating scopes and the instance (`StepContext`'s part).

Flow taking lives here (not in the gateways): the track continues on the first flow and a new
track starts on each other one (seed 001 4.4); a track with nowhere to go ends, and the last
track of a scope completes the scope (implicit end, spec 13.2.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import JavaScriptExpression, compile_expression
from bpmn_engine.model import SequenceFlow as Flow
from bpmn_engine.records.lifecycle import InstanceState, ScopeState, TrackState
from bpmn_engine.records.rows import SELF_COMPLETING, Track
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.step.parts import Incident, StepParts


class MovingOn(StepParts):
    """Flows taken, waits, tracks, scopes and the instance ended, from one track's step."""

    # --- flows --------------------------------------------------------------------------------
    def condition_holds(self, flow: Flow, extra: Mapping[str, Any] | None = None) -> bool:
        """`extra`: names the condition sees besides the variables (a complex gateway's
        `waitingForStart`)."""
        condition = flow.condition
        if condition is None:
            return True
        try:  # as `evaluate`, compiled (a cache hit) once: a loop's gateway asks on every turn
            compiled = compile_expression(
                condition.text, condition.language, trusted=self.engine.trust_scripts
            )
            if isinstance(compiled, JavaScriptExpression):
                value, truthy = compiled.decide(self.variables(extra), self.facts())
                if truthy:  # bpmn-engine's script: any truthy value takes the flow
                    return bool(value)
            else:
                values = self._with_content(condition.text, self.variables(extra))
                value = compiled.evaluate(values, self.warn)
        except ExpressionError as error:
            raise Incident(
                f"expression {condition.text!r} in the condition of flow {flow.id!r}: {error}",
                self.node.id,
            ) from None
        language = compiled.language
        if value is None and language != "javascript":  # FEEL's null (warned about) is false
            return False
        # as Zeebe and as Camunda 7's script conditions: a non-boolean is an incident
        if language in ("feel", "javascript") and not isinstance(value, bool):
            raise Incident(
                f"expression {condition.text!r} in the condition of flow {flow.id!r}: a "
                f"condition must be a boolean, not {value!r}",
                self.node.id,
            )
        return bool(value)

    def chosen_flows(self) -> list[Flow]:
        """Flows a person chose for this node's next decision (`bpmn step`'s `choose`)."""
        if not self.data.choices:  # nobody chose: every step but `bpmn step`'s `choose`
            return []
        chosen = self.data.choices.pop(self.node.id, ())
        if chosen:
            self.emit("flow.chosen", flows=list(chosen))
        return [self.scope_model.flows[f] for f in chosen]

    def leave(self, flows: list[Flow]) -> None:
        """Take the given outgoing flows: continue on the first, fork for the others; then
        an ad-hoc subprocess around hears that one of its elements left (`inner_left`)."""
        self._take(flows)
        container = self._self_completing(self.track.scope)
        if container is not None:
            container.behaviour(container.node).inner_left(container, self)

    def _self_completing(self, scope_id: int) -> Self | None:
        """The track at the element that decides itself when this scope completes (an
        ad-hoc subprocess), or None for a scope that completes with its last token."""
        holder = self.data.scopes[scope_id].track
        if holder is None or self.data.tracks[holder].wait not in SELF_COMPLETING:
            return None
        return self.for_track(self.data.tracks[holder])

    def _take(self, flows: list[Flow]) -> None:
        if not flows:
            self.end_track(TrackState.COMPLETED)
            return
        track = self.track
        fork_group = track.id if len(flows) > 1 else track.fork_group
        record = self.step.record
        for flow in flows:
            record("flow.taken", flow.source, track.id, {"flow": flow.id, "target": flow.target})
            self.engine.listen(self, "take", flow)
        self.step.touch_track(track)
        if track.status is not TrackState.EXECUTING:
            track.move(TrackState.EXECUTING)
        self.step.ready(track, flows[0].target, flows[0].id)
        track.fork_group = fork_group
        for flow in flows[1:]:
            child = self.step.new_track(
                element=flow.target,
                scope=track.scope,
                status=TrackState.READY,
                parent=track.id,
                fork_group=fork_group,
                via=flow.id,
            )
            self.step.emit("track.created", flow.target, child.id, parent=track.id, flow=flow.id)

    def wait(self, reason: str, **data: Any) -> None:
        self.step.touch_track(self.track)
        self.track.move(TrackState.WAITING)
        self.track.wait = reason
        if reason == "join":  # listed at once: a join arrival later in this step counts it
            self.data.reindex((self.track.id,))
        self.emit("element.waiting", reason=reason, **data)

    def end_track(self, status: TrackState) -> None:
        """End this track; if it was the last one of its scope, the scope completes."""
        self.step.touch_track(self.track)
        if self.track.status is TrackState.READY:
            self.track.move(TrackState.EXECUTING)
        self.track.move(status)
        if status is TrackState.COMPLETED:
            self.emit("track.completed")
        if not self.data.has_tokens(self.track.scope):
            self.scope_completed(self.track.scope)

    def scope_completed(self, scope_id: int) -> None:
        container = self._self_completing(scope_id)
        if container is not None and not container.behaviour(container.node).may_complete(
            container, scope_id
        ):
            return  # an ad-hoc subprocess with nothing running waits for activations
        scope = self.step.touch_scope(self.data.scopes[scope_id])
        if scope.status is not ScopeState.ACTIVE:
            return
        scope.move(ScopeState.COMPLETED)
        for listener in self.data.live_tracks(scope_id):  # its event subprocesses stop waiting
            if listener.listening:
                self.step.touch_track(listener).move(TrackState.TERMINATED)
        if scope.parent is None or scope.track is None:
            self.complete_instance()
            return
        parent = self.for_track(self.data.tracks[scope.track])
        parent.behaviour(parent.node).complete(parent)

    def complete_instance(self) -> None:
        head = self.data.head
        if head.state is not InstanceState.ACTIVE:
            return
        self.engine.listen(self, "end", self.definitions.processes[head.process])
        self.step.set_state(InstanceState.COMPLETED)
        head.end_event = self.node.id
        root = self.data.root_scope
        variables = dict(sorted(self.data.values.get(root, {}).items()))
        self.step.emit(
            "instance.completed", self.node.id, end_event=self.node.id, variables=variables
        )
        if head.parent_instance is not None:  # a called instance: its caller goes on
            interface = self.definitions.processes[head.process].interface
            outputs = interface.outputs if interface is not None and interface.outputs else None
            deleted = [n for n in calls.passed_names(self.data.values) if n not in variables]
            sent = calls.upward(head, calls.COMPLETION, head.process, variables, outputs=outputs,
                                deleted=deleted)  # fmt: skip
            self.step.sent.append(sent)

    def end_instance(self, event: str, **data: Any) -> None:
        """Terminate the whole instance from inside a step (its error went to its caller).

        As `bpmn cancel`: the elements' Camunda 7 end listeners run, then the process's (in
        Camunda 7 the catching call activity deletes the called instance, and a deletion runs
        them; Zeebe's end listeners do not run on termination)."""
        root = self.data.root_scope
        self.step.set_state(InstanceState.TERMINATING)
        self.terminate_scope(root)
        self.engine.listen(self, "cancel", self.definitions.processes[self.data.head.process])
        self.step.touch_scope(self.data.scopes[root]).move(ScopeState.TERMINATED)
        self.step.set_state(InstanceState.TERMINATED)
        variables = dict(sorted(self.data.values.get(root, {}).items()))
        self.step.emit(event, self.node.id, self.track.id, **data)
        self.step.emit("instance.terminated", variables=variables)

    def terminate_scope(self, scope_id: int, *, keep: Track | None = None) -> None:
        """End every live track of a scope and its subscopes (the cancellation cascade)."""
        for track in sorted(self.data.live_tracks(scope_id), key=lambda t: t.id):
            if keep is None or track.id != keep.id:
                self.terminate_track(track)

    def terminate_inner_scopes(self, track: Track) -> None:
        """End the running scopes a track holds (its subprocess, its multi-instance body)."""
        for child in [s for s in self.data.scopes.values() if s.track == track.id]:
            if child.status is ScopeState.ACTIVE:
                self.terminate_scope(child.id)
                self.step.touch_scope(child).move(ScopeState.TERMINATED)

    def terminate_track(self, track: Track) -> None:
        """End one live track with what it holds: its inner scopes, then its element's own
        ending (user task, waits, called instance)."""
        self.terminate_inner_scopes(track)
        self.step.touch_track(track)
        if track.listening:
            pass  # no token: its waits are cancelled with it
        elif track.status is TrackState.READY:  # never entered its element: the token goes
            self.step.emit("track.terminated", track.element, track.id)
        else:
            other = self.for_track(track)
            other.behaviour(other.node).terminate(other)
        track.move(TrackState.TERMINATED)
