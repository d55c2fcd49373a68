"""What a behaviour may do during a step: read variables, evaluate, wait, take flows, end.

Flow taking lives here (not in the gateways): the track continues on the first flow and a new
track starts on each other one (seed 001 4.4); a track with nowhere to go ends, and the last
track of a scope completes the scope (implicit end, spec 13.2.1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import (
    JavaScriptExpression,
    JavaScriptScript,
    compile_expression,
    compile_script,
)
from bpmn_engine.expressions.scripts import DELETED
from bpmn_engine.model import (
    Definitions,
    Expression,
    FlowNode,
    FlowScope,
    IoParameter,
    Listener,
    Process,
    Task,
)
from bpmn_engine.model import SequenceFlow as Flow
from bpmn_engine.model.retries import Backoff
from bpmn_engine.parse.folders import FoundFile
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.lifecycle import InstanceState, ScopeState, TrackState
from bpmn_engine.records.rows import SELF_COMPLETING, Track
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.clock import Clock
from bpmn_engine.runtime.handlers import Handler
from bpmn_engine.runtime.step.variables import copied, storable, storable_all
from bpmn_engine.runtime.storage import Store

NO_OUTPUT: Any = object()
"""`StepContext.output` before the node's work gave one."""


class Incident(Exception):
    """A behaviour cannot go on: the step is rolled back and the track fails with this."""

    def __init__(self, message: str, element: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.element = element


class Behaviour(Protocol):
    """How one BPMN element family runs (`behaviours/base.py` documents the hooks)."""

    def arrive(self, ctx: StepContext) -> None: ...
    def execute(self, ctx: StepContext) -> None: ...
    def complete(self, ctx: StepContext) -> None: ...
    def terminate(self, ctx: StepContext) -> None: ...
    def inner_left(self, ctx: StepContext, inner: StepContext) -> None: ...
    def may_complete(self, ctx: StepContext, scope_id: int) -> bool: ...


class Services(Protocol):
    """What a step may use of its engine. The engine provides it; the behaviours and events
    reach each other through `behaviour_for`, so that neither imports the other."""

    store: Store
    clock: Clock
    trust_scripts: bool
    simulate: bool  # a service task with no handler completes as a no-op, not waits
    backoff: Backoff  # a failing handler's default tries (runtime/instance/retries.py)

    def handler_for(self, node: Task | Listener) -> tuple[Handler | None, str | None]: ...
    def behaviour_for(self, node: FlowNode) -> Behaviour: ...
    def listen(self, ctx: StepContext, event: str, subject: FlowNode | Flow | Process) -> None:
        """Run the listeners of `subject` for `event` (`runtime/step/listeners.py`)."""

    def callable_definitions(
        self, process_id: str, caller: Definitions, binding: str = ..., version: int | None = ...
    ) -> Definitions: ...
    def announce(self, process_id: str, caller: Definitions) -> FoundFile | None:
        """The file of a folder a call took the process from, the first time only."""


class StepContext:
    """A track at a node, during one step."""

    def __init__(
        self,
        engine: Services,
        definitions: Definitions,
        data: InstanceData,
        step: Step,
        track: Track,
    ) -> None:
        self.engine = engine
        self.definitions = definitions
        self.data = data
        self.step = step
        self.track = track
        self.scope_model: FlowScope = definitions.node_scopes[track.element]
        self.node: FlowNode = self.scope_model.nodes[track.element]
        self.external: Callable[[], dict[str, Any] | None] | None = None
        # (node id, input-mapped locals) computed for its start listeners, reused by its work
        self.start_inputs: tuple[str, dict[str, Any]] | None = None
        # the node whose SpiffWorkflow post-scripts ran before its outputs (not again at its end)
        self.post_scripts_ran: str | None = None
        # what the work of the node gave back (bpmn-engine's `content.output`: a script's
        # `next(null, value)`, a handler's result, a user task's values), for its output
        # mappings and its outgoing conditions in this step
        self.output: Any = NO_OUTPUT

    def for_track(self, track: Track) -> StepContext:
        return StepContext(self.engine, self.definitions, self.data, self.step, track)

    def behaviour(self, node: FlowNode) -> Behaviour:
        return self.engine.behaviour_for(node)

    def body_of(self, track: Track) -> Track | None:
        """For an inner instance of a loop or multi-instance activity, the track that waits at
        the activity for the whole body (`behaviours/multi_instance.py`); else None.

        An inner instance is the one track at an element whose scope belongs to that element.
        """
        scope = self.data.scopes.get(track.scope)
        if scope is None or scope.element != track.element or scope.track is None:
            return None
        return self.data.tracks[scope.track]

    # --- events -----------------------------------------------------------------------------
    def emit(self, event: str, **data: Any) -> None:
        self.step.record(event, self.node.id, self.track.id, data)

    def activated(self) -> None:
        self.step.touch_track(self.track)
        self.track.move(TrackState.EXECUTING)
        self.emit("element.activated", type=self.node.kind, name=self.node.name)
        self.engine.listen(self, "start", self.node)

    def completed(self) -> None:
        self.engine.listen(self, "end", self.node)
        self.emit("element.completed", type=self.node.kind)

    def warn(self, message: str) -> None:
        self.emit("warning", message=message)

    # --- variables and expressions ----------------------------------------------------------
    def variables(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        values = self.data.variables.visible(self.track.scope)
        if extra:
            values.update(extra)
        return values

    def set_variables(self, values: Mapping[str, Any], scope: int | None = None) -> None:
        """Write variables where they are defined (or in the process scope); one event. A
        value `DELETED` (a trusted script's `del x`) deletes the variable where it is."""
        if not values:
            return
        target = self.track.scope if scope is None else scope
        deleted = [name for name, value in values.items() if value is DELETED]
        if deleted:
            values = {name: value for name, value in values.items() if value is not DELETED}
        try:
            values = storable_all(values)
        except ValueError as error:
            raise Incident(str(error), self.node.id) from None
        for name, value in values.items():
            self.step.set_value(self.data.variables.owner(target, name), name, value)
        unset = []
        for name in deleted:
            owner = self.data.variables.owner(target, name)
            if name in self.data.values.get(owner, {}):
                self.step.delete_value(owner, name)
                unset.append(name)
        if unset:
            self.emit("variables.updated", variables=copied(values), unset=unset)
        elif values:
            self.emit("variables.updated", variables=copied(values))

    def set_local(self, scope: int, values: Mapping[str, Any]) -> None:
        try:
            values = storable_all(values)
        except ValueError as error:
            raise Incident(str(error), self.node.id) from None
        for name, value in values.items():
            self.step.set_value(scope, name, value)

    # --- data stores (docs/data-stores.md) ----------------------------------------------------
    def read_store(self, name: str) -> Any:
        """A data store's value: this step's own write, else the last one committed; null,
        warned about, when it was never written (as a data object no one set is null)."""
        self.emit("data_store.read", store=name)
        if name in self.step.stores:
            return self.step.stores[name][0]
        found = self.engine.store.data_store(name)
        if found is None:
            self.warn(f"data store {name!r} was never written: it reads as null")
            return None
        return found.value

    def write_store(self, name: str, value: Any) -> None:
        """Write a data store with this step (in its transaction: rolled back with it)."""
        try:
            value = storable(name, value)
        except ValueError as error:
            message = f"data store {name!r} cannot hold the value: {error}"
            raise Incident(message, self.node.id) from None
        self.step.write_store(name, value, self.node.id)
        self.emit("data_store.written", store=name, value=copied({name: value})[name])

    def facts(
        self, inputs: Mapping[str, Any] | None = None, event: str | None = None
    ) -> dict[str, Any]:
        """What JavaScript's `execution` getters and bpmn-engine's `content` tell about this
        node (`inputs`: its input-mapped locals; `event`: a listener's)."""
        node, head, track = self.node, self.data.head, self.track
        kind = node.kind
        content: dict[str, Any] = {
            "id": node.id,
            "type": f"bpmn:{kind[:1].upper()}{kind[1:]}",
            "name": node.name,
            "executionId": f"{node.id}_{track.id}",
        }
        if inputs:
            content["input"] = dict(inputs)
        if self.output is not NO_OUTPUT:
            content["output"] = self.output
        return {
            "instance": head.id,
            "process": head.process,
            "definition": f"{head.process}:{head.definition}",
            "element": node.id,
            "name": node.name,
            "execution": str(track.id),
            "activityInstance": f"{node.id}:{track.id}",
            "event": event,
            "locals": sorted(inputs or ()),
            "content": content,
        }

    def _with_content(self, text: str, values: dict[str, Any]) -> dict[str, Any]:
        """bpmn-engine's `${content.*}` in a JUEL or Python expression: the node's content,
        unless a variable has that name."""
        if "content" in text and "content" not in values:
            values["content"] = self.facts()["content"]
        return values

    def evaluate(
        self, expression: Expression, extra: Mapping[str, Any] | None = None, what: str = ""
    ) -> Any:
        try:
            compiled = compile_expression(
                expression.text, expression.language, trusted=self.engine.trust_scripts
            )
            if isinstance(compiled, JavaScriptExpression):
                return compiled.evaluate(self.variables(extra), self.warn, self.facts())
            values = self._with_content(expression.text, self.variables(extra))
            return compiled.evaluate(values, self.warn)
        except ExpressionError as error:
            where = f" in {what}" if what else ""
            raise Incident(
                f"expression {expression.text!r}{where}: {error}", self.node.id
            ) from None

    def holds(self, expression: Expression, extra: Mapping[str, Any] | None, what: str) -> bool:
        """A condition that must be a boolean (null, warned about, is false); anything else
        is an incident naming it."""
        value = self.evaluate(expression, extra, what)
        if value is not None and not isinstance(value, bool):
            raise Incident(
                f"{what} {expression.text!r} must be a boolean, not {value!r}", self.node.id
            )
        return bool(value)

    def run_script(
        self,
        text: str,
        script_format: str | None,
        extra: Mapping[str, Any],
        result_variable: str | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the variables a script set, the locals it set with `setVariableLocal`); its
        value as `result_variable`, if named (only a JavaScript script has one: others with a
        result variable are expressions): what it gave bpmn-engine's `next(null, value)`,
        else its completion value. That `next` value is the node's output too."""
        try:
            script = compile_script(text, script_format, trusted=self.engine.trust_scripts)
            if not isinstance(script, JavaScriptScript):
                return script.run(self.variables(extra)), {}
            outcome = script.execute(
                self.variables(extra), self.facts(extra), result=bool(result_variable)
            )
        except ExpressionError as error:
            raise Incident(f"script failed: {error}", self.node.id) from None
        changes = {**outcome.changes, **dict.fromkeys(outcome.removed, DELETED)}
        if outcome.called_next:
            self.output = outcome.output
        if result_variable:
            value = outcome.output if outcome.called_next else outcome.result
            changes[result_variable] = value
        return changes, outcome.locals

    def mapped(self, parameters: tuple[IoParameter, ...], extra: Mapping[str, Any]) -> dict:
        """Evaluate I/O mapping parameters over the variables plus `extra`."""
        values: dict[str, Any] = {}
        for parameter in parameters:
            if parameter.expression is None:
                values[parameter.name] = parameter.value
            else:
                scope = {**extra, **values}
                values[parameter.name] = self.evaluate(
                    parameter.expression, scope, f"mapping {parameter.name!r}"
                )
        return values

    # --- moving on --------------------------------------------------------------------------
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

    def _self_completing(self, scope_id: int) -> StepContext | None:
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
            if keep is not None and track.id == keep.id:
                continue
            for child in [s for s in self.data.scopes.values() if s.track == track.id]:
                if child.status is ScopeState.ACTIVE:
                    self.terminate_scope(child.id)
                    self.step.touch_scope(child).move(ScopeState.TERMINATED)
            self.step.touch_track(track)
            if track.listening:
                pass  # no token: its waits are cancelled with it
            elif track.status is TrackState.READY:  # never entered its element: the token goes
                self.step.emit("track.terminated", track.element, track.id)
            else:
                other = self.for_track(track)
                other.behaviour(other.node).terminate(other)
            track.move(TrackState.TERMINATED)
