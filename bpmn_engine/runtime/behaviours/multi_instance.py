"""The body of a multi-instance or standard-loop activity: its inner instances and counters.

Camunda and Zeebe both run such an activity as a *body* around its inner activity instances;
so does this engine, with rows it already has:

- the track that reaches the activity is the body's: it waits there (`wait = "multi-instance"`
  or "loop") for the whole body, and holds the activity's boundary events, armed once;
- the body's scope (element: the activity; parent: the track's scope; track: the body track)
  holds the counters, under Camunda 7's names (`nrOfInstances`...) and Zeebe's
  (`numberOfInstances`...) alike;
- each inner instance is a scope of its own under the body's scope (its `track` is the body
  track too, so the cancellation cascade from the body track reaches every inner instance)
  holding its locals (the element variable, `loopCounter`, the output element, and when it
  completes its entry of the output collection, under the collection's name), and one
  track at the activity in that scope, which runs the activity's own behaviour.

The inner instances of a multi-instance are scopes `body.id + 1 ... body.id + n`, created
when the body starts (a sequential body creates each one's track when its turn comes), so an
inner instance's index is its scope id less the body's: outputs land in input order, however
parallel instances finish. Everything goes through the step, so a crash loses nothing.
"""

from __future__ import annotations

from typing import Any, Protocol

from bpmn_engine.model import Activity, Expression, MultiInstance, SequenceFlow, StandardLoop
from bpmn_engine.records.lifecycle import ScopeState, TrackState
from bpmn_engine.records.rows import Scope, Track
from bpmn_engine.runtime.step.context import Incident, StepContext

BODY_WAIT = {"multiInstance": "multi-instance", "standard": "loop"}


class Leaves(Protocol):
    """What the body needs of the activity's behaviour: its outgoing flows."""

    def outgoing(self, ctx: StepContext) -> list[SequenceFlow]: ...


MAX_INSTANCES = 100_000  # inner instances of one multi-instance activity (docs/sandbox.md)
COUNTERS = (
    *("nrOfInstances", "nrOfActiveInstances", "nrOfCompletedInstances"),  # Camunda 7, Spiff
    *("numberOfInstances", "numberOfActiveInstances", "numberOfCompletedInstances"),  # Zeebe
)
"""(instances, active, completed) under both spellings, in every dialect: diagrams move
between engines, and a completion condition written for one must not fail on the other."""
TOTAL, ACTIVE, COMPLETED = range(3)


def _count(locals_: dict[str, Any], which: int) -> int:
    """A counter of the body, under whichever spelling it has (a body started before both
    were kept has only its dialect's)."""
    name = COUNTERS[which]
    return locals_[name if name in locals_ else COUNTERS[which + 3]]


def loop_variables(node: Activity) -> frozenset[str]:
    """The variables the body keeps for itself (`loopCounter` and the counters): a called
    child's copy of them, stale by the time it completes, never comes back over them."""
    if isinstance(node.loop_characteristics, MultiInstance):
        return frozenset(("loopCounter", *COUNTERS))
    return frozenset({"loopCounter"})


INPUT_KEYS = "loopDataInputKeys"
"""A local of the body (SpiffWorkflow files with a dict input and an output collection): the
input's keys, in input order, under which each instance's output lands in a dict output."""


def first_counter(spec: MultiInstance) -> int:
    """Camunda 7 (like Activiti and Flowable) counts `loopCounter` from 0; Zeebe and the
    BPMN spec's instance attributes from 1."""
    return 0 if spec.dialect == "camunda" else 1


# --- starting -------------------------------------------------------------------------------
def start_body(ctx: StepContext, leaves: Leaves) -> None:
    """The body track arrived (activated, boundaries armed): open the body and its instances."""
    node = ctx.node
    assert isinstance(node, Activity)
    spec = node.loop_characteristics
    assert spec is not None and node.loop is not None
    body = ctx.step.new_scope(node.id, ctx.track.scope, ctx.track.id)
    ctx.wait(BODY_WAIT[node.loop])
    if isinstance(spec, StandardLoop):
        ctx.set_local(body.id, {"loopCounter": 0})
        _next_iteration(ctx, spec, body, leaves)
        return
    items, keys = _items(ctx, spec)
    if spec.dialect == "spiff":
        _check_spiff_output(ctx, spec)
    active = min(len(items), 1) if spec.sequential else len(items)
    ctx.set_local(body.id, _counters(len(items), active, 0))
    if keys is not None and spec.output_collection:
        ctx.set_local(body.id, {INPUT_KEYS: keys})
    ctx.emit("multi-instance.started", instances=len(items), sequential=spec.sequential)
    if not items:
        _finish_body(ctx, body, leaves)
        return
    scopes = []
    for index, item in enumerate(items):
        scope = ctx.step.new_scope(node.id, body.id, ctx.track.id)
        assert scope.id == body.id + index + 1  # the index is the scope id less the body's
        values: dict[str, Any] = {"loopCounter": index + first_counter(spec)}
        if spec.element_variable:
            values[spec.element_variable] = item
        output = _plain_name(spec.output_element)
        if output and output not in values:
            values[output] = None  # the inner activity's result lands here, not in the process
        ctx.set_local(scope.id, values)
        scopes.append(scope)
    for scope in scopes[:1] if spec.sequential else scopes:
        _start_instance(ctx, scope)


def _counters(total: int, active: int, completed: int) -> dict[str, int]:
    return dict(zip(COUNTERS, (total, active, completed) * 2, strict=True))


def _items(ctx: StepContext, spec: MultiInstance) -> tuple[list[Any], list[str] | None]:
    """The input collection's items (and a dict's keys), or `loopCardinality` times None; at
    most MAX_INSTANCES (each inner instance is a scope and a token in one step:
    `loopCardinality` 10,000,000 ran out of memory in three chained tracebacks, again on
    every resume).

    In a file drawn for SpiffWorkflow a dict is iterated by its values (its keys kept for a
    dict output), and a cardinality's items are the indexes 0, 1, 2..., as SpiffWorkflow
    does; Camunda 7, Zeebe and other BPMN tools read no dict there (an incident)."""
    spiff = spec.dialect == "spiff"
    if spec.collection is not None and spec.cardinality is not None:
        return _counted_items(ctx, spec), None
    if spec.collection is not None:
        value = ctx.evaluate(spec.collection, what="the multi-instance input collection")
        if spiff and isinstance(value, dict):
            _bounded(ctx, len(value), f"the input collection {spec.collection.text!r} has")
            return list(value.values()), list(value)
        if isinstance(value, dict) or not isinstance(value, list | tuple):
            raise Incident(
                f"the multi-instance input collection {spec.collection.text!r} is "
                f"{_kind(value)}, not a list",
                ctx.node.id,
            )
        _bounded(ctx, len(value), f"the input collection {spec.collection.text!r} has")
        return list(value), None
    value = _cardinality(ctx, spec)
    return (list(range(value)) if spiff else [None] * value), None


def _cardinality(ctx: StepContext, spec: MultiInstance) -> int:
    assert spec.cardinality is not None
    value = ctx.evaluate(spec.cardinality, what="loopCardinality")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Incident(
            f"loopCardinality {spec.cardinality.text!r} is {value!r}: "
            "expected a whole number of 0 or more",
            ctx.node.id,
        )
    _bounded(ctx, value, f"loopCardinality {spec.cardinality.text!r} is")
    return value


def _counted_items(ctx: StepContext, spec: MultiInstance) -> list[Any]:
    """Camunda 7's reading of both (its files only, `precheck.unrunnable_loop`): as many
    instances as the cardinality says, each given the collection's item at its index."""
    assert spec.collection is not None
    count = _cardinality(ctx, spec)
    value = ctx.evaluate(spec.collection, what="the multi-instance input collection")
    if isinstance(value, dict) or not isinstance(value, list | tuple):
        raise Incident(
            f"the multi-instance input collection {spec.collection.text!r} is "
            f"{_kind(value)}, not a list",
            ctx.node.id,
        )
    if len(value) < count:
        raise Incident(
            f"loopCardinality {spec.cardinality.text!r} is {count}, but the input collection "
            f"{spec.collection.text!r} has {len(value)} items: instance {len(value)} would "
            "have none (Camunda 7 fails the same way)",
            ctx.node.id,
        )
    return list(value[:count])


def _check_spiff_output(ctx: StepContext, spec: MultiInstance) -> None:
    """SpiffWorkflow fills an existing output collection: a dict (by key, or by index) or an
    empty list; one that already holds items is an error unless it is the input collection
    itself, updated in place."""
    name = spec.output_collection
    current = ctx.variables().get(name) if name and not _in_place(spec) else None
    if current is None:
        return
    if not isinstance(current, dict | list):
        raise Incident(
            f"the multi-instance output collection {name!r} is {_kind(current)}: "
            "SpiffWorkflow fills only a dict or a list",
            ctx.node.id,
        )
    if isinstance(current, list) and current:
        raise Incident(
            f"the multi-instance output collection {name!r} already holds {len(current)} "
            "items: it must be empty or a dict, unless it is the input collection "
            "(updated in place)",
            ctx.node.id,
        )


def _in_place(spec: MultiInstance) -> bool:
    """The output collection is the input collection (its items replaced, SpiffWorkflow)."""
    return spec.collection is not None and spec.collection.text == spec.output_collection


def _bounded(ctx: StepContext, count: int, what: str) -> None:
    if count > MAX_INSTANCES:
        raise Incident(
            f"{what} {count:,} items: a multi-instance activity runs at most "
            f"{MAX_INSTANCES:,} instances (split the work, or loop over batches)",
            ctx.node.id,
        )


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__} ({value!r:.40})"


def _plain_name(expression: Expression | None) -> str | None:
    """The variable an output element names, when it is just a name (`result`, `= result`)."""
    if expression is None:
        return None
    text = expression.text.strip().removeprefix("=").strip()
    return text if text.isidentifier() else None


def _start_instance(ctx: StepContext, scope: Scope) -> Track:
    track = ctx.step.new_track(
        element=ctx.node.id, scope=scope.id, status=TrackState.READY, parent=scope.track
    )
    ctx.step.emit("track.created", ctx.node.id, track.id, parent=scope.track)
    return track


# --- an inner instance completed ------------------------------------------------------------
def instance_completed(ctx: StepContext, leaves: Leaves) -> None:
    """The context's track completed one inner instance: count it, collect its output, and
    start the next one, cancel the rest, or complete the body."""
    node = ctx.node
    assert isinstance(node, Activity)
    spec = node.loop_characteristics
    inner = ctx.data.scopes[ctx.track.scope]
    body = ctx.data.scopes[inner.parent or 0]
    ctx.completed()
    ctx.step.touch_track(ctx.track)
    if ctx.track.status is TrackState.READY:
        ctx.track.move(TrackState.EXECUTING)
    ctx.track.move(TrackState.COMPLETED)
    ctx.emit("track.completed")
    ctx.step.touch_scope(inner).move(ScopeState.COMPLETED)
    if isinstance(spec, StandardLoop):
        _iteration_completed(ctx, spec, body, leaves)
        return
    assert isinstance(spec, MultiInstance)
    locals_ = ctx.data.values.get(body.id, {})
    total = _count(locals_, TOTAL)
    active = _count(locals_, ACTIVE) - 1
    completed = _count(locals_, COMPLETED) + 1
    if spec.output_collection and spec.output_element is not None:
        # kept by the instance (one small write per completion, not the whole list each time)
        # and gathered in input order when the body completes
        value = ctx.evaluate(spec.output_element, what="the multi-instance output element")
        ctx.set_local(inner.id, {spec.output_collection: value})
    following = inner.id + 1 if spec.sequential and inner.id - body.id < total else None
    if following is not None:
        active += 1
    ctx.set_local(body.id, _counters(total, active, completed))
    if spec.completion is not None and _completion_holds(ctx, spec, body, total):
        ctx.emit("multi-instance.condition_met", completed=completed)
        for index in range(1, total + 1):
            other = ctx.data.scopes[body.id + index]
            if other.status is ScopeState.ACTIVE:
                ctx.terminate_scope(other.id)
                ctx.step.touch_scope(other).move(ScopeState.TERMINATED)
        _finish_body(ctx, body, leaves)
    elif following is not None:
        _start_instance(ctx, ctx.data.scopes[following])
    elif active == 0:
        _finish_body(ctx, body, leaves)


def _finish_body(ctx: StepContext, body: Scope, leaves: Leaves) -> None:
    """Every instance is done (or cancelled): pass the output collection out and leave."""
    node = ctx.node
    assert isinstance(node, Activity)
    spec = node.loop_characteristics
    ctx.step.touch_scope(body).move(ScopeState.COMPLETED)
    outer = ctx.for_track(ctx.data.tracks[body.track or 0])
    if isinstance(spec, MultiInstance) and spec.output_collection:
        total = _count(ctx.data.values.get(body.id, {}), TOTAL)
        outer.set_variables({spec.output_collection: _output(ctx, spec, body, total)})
    outer.emit(f"{BODY_WAIT[node.loop or 'multiInstance']}.completed")
    outer.completed()
    outer.leave(outer.chosen_flows() or leaves.outgoing(outer))


def _completion_holds(ctx: StepContext, spec: MultiInstance, body: Scope, total: int) -> bool:
    """The completionCondition, over the completed instance's variables and the output
    collection gathered so far (as Zeebe shows it to the condition)."""
    assert spec.completion is not None
    extra = None
    if spec.output_collection:
        extra = {spec.output_collection: _output(ctx, spec, body, total)}
    return bool(ctx.evaluate(spec.completion, extra, "completionCondition"))


def _output(ctx: StepContext, spec: MultiInstance, body: Scope, total: int) -> Any:
    """The output collection: each inner instance's output element, in input order, with
    None for one never completed (its position kept, as Zeebe does); SpiffWorkflow's way in
    a file drawn for it (`_spiff_output`)."""
    if spec.dialect == "spiff":
        return _spiff_output(ctx, spec, body, total)
    name = spec.output_collection or ""
    values = ctx.data.values
    return [
        values.get(body.id + index, {}).get(name)
        if ctx.data.scopes[body.id + index].status is ScopeState.COMPLETED
        else None
        for index in range(1, total + 1)
    ]


def _spiff_output(ctx: StepContext, spec: MultiInstance, body: Scope, total: int) -> Any:
    """SpiffWorkflow's output collection: the outputs of the completed instances only, in
    input order, filled into the collection as it stands (a new one like the input when
    there is none): a dict by the input's key (or the instance's index), the input
    collection updated in place by position, an (empty) list appended to."""
    name = spec.output_collection or ""
    values = ctx.data.values
    keys = values.get(body.id, {}).get(INPUT_KEYS)
    current = ctx.data.variables.visible(body.parent or 0).get(name)
    if current is None:
        output: dict[str, Any] | list[Any] = {} if keys is not None else []
    elif isinstance(current, dict | list):
        output = type(current)(current)  # a copy: the stored value is never changed here
    else:
        raise Incident(
            f"the multi-instance output collection {name!r} is {_kind(current)}: "
            "SpiffWorkflow fills only a dict or a list",
            ctx.node.id,
        )
    in_place = _in_place(spec)
    for index in range(total):
        if ctx.data.scopes[body.id + index + 1].status is not ScopeState.COMPLETED:
            continue
        item = values.get(body.id + index + 1, {}).get(name)
        key = keys[index] if keys is not None else index
        if isinstance(output, dict):
            output[str(key)] = item  # JSON: a list's index is a key as text
        elif not in_place:
            output.append(item)
        elif index < len(output):
            output[index] = item
        else:
            raise Incident(
                f"the input collection {name!r}, updated in place, has no item "
                f"{index + 1} any more (it has {len(output)})",
                ctx.node.id,
            )
    return output


# --- standard loops -------------------------------------------------------------------------
def _next_iteration(ctx: StepContext, spec: StandardLoop, body: Scope, leaves: Leaves) -> None:
    """Run one more iteration, unless `loopMaximum` is reached or a before-test fails."""
    done = ctx.data.values.get(body.id, {}).get("loopCounter", 0)
    if spec.maximum is not None and done >= spec.maximum:
        _finish_body(ctx, body, leaves)
        return
    if spec.test_before and not _condition(ctx, spec, {"loopCounter": done}):
        _finish_body(ctx, body, leaves)
        return
    ctx.set_local(body.id, {"loopCounter": done + 1})
    body_track = ctx.data.tracks[body.track or 0]
    scope = ctx.step.new_scope(ctx.node.id, body.id, body_track.id)
    _start_instance(ctx, scope)


def _iteration_completed(ctx: StepContext, spec: StandardLoop, body: Scope, leaves: Leaves) -> None:
    if not spec.test_before and not _condition(ctx, spec, None):
        _finish_body(ctx, body, leaves)
        return
    _next_iteration(ctx, spec, body, leaves)


def _condition(ctx: StepContext, spec: StandardLoop, extra: dict[str, Any] | None) -> bool:
    """No loopCondition loops until `loopMaximum` (the spec's default is to loop forever,
    which the executable check refuses without a maximum)."""
    if spec.condition is None:
        return True
    return bool(ctx.evaluate(spec.condition, extra, "the loopCondition"))
