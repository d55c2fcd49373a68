"""Compensation (spec 10.5.5): undo completed activities, last completed first.

Everything is rows, so a resumed run compensates exactly as the first would have:

- When a compensable activity completes (one with a compensation boundary event and its
  handler, or a subprocess holding such activities or a compensation event subprocess), a
  *snapshot scope* records it: element the activity, parent the scope it ran in, track its
  track, status `compensable`, and as its variables its own as it left them (a subprocess's
  locals and data objects, an inner instance's element variable and loop counter).
  Scope ids grow, so their order is the order of completion; each inner instance of a
  multi-instance activity is recorded on its own.
- A compensate throw (intermediate or end event; a transaction's cancel end event) picks the
  last recorded activity of its scope still `compensable` (or of the one `activityRef`
  names), marks it `compensating`, and runs its handler in a *run scope* under the snapshot:
  the handler reads the activity's own variables as the activity left them (the others as
  they are now), and its writes go past the snapshot to the live scopes
  (`records/variables.py`). A subprocess without a handler of its own runs its compensation
  event subprocess if it has one, else its own recorded activities are compensated in turn,
  innermost last completed first.
- The run scope's `track` is the waiting thrower: when the handler's last token ends, the
  scope completes and the thrower's behaviour `complete` calls `resume`, which marks the
  activity `compensated` (never compensated again) and starts the next one, or lets the
  thrower go on. With `waitForCompletion="false"` a track of its own (a token at the throw
  event, waiting) runs the handlers while the thrower goes on at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from weakref import WeakKeyDictionary

from bpmn_engine.model import (
    Activity,
    CallActivity,
    EndEvent,
    EventDefinition,
    FlowNode,
    FlowScope,
    IntermediateEvent,
    StartEvent,
    SubProcess,
)
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.lifecycle import SNAPSHOT_STATES, ScopeState, TrackState
from bpmn_engine.records.rows import Scope, Track
from bpmn_engine.runtime.calls.protocol import is_expression
from bpmn_engine.runtime.events import subprocesses
from bpmn_engine.runtime.step.context import Incident, StepContext

WAIT = "compensation"  # the thrower waits for the handlers
DETACHED = "compensation handlers"  # waitForCompletion=false: this track runs them alone


def compensation_start(node: FlowNode) -> StartEvent | None:
    """The compensation start event of an event subprocess, if it is one."""
    if not (isinstance(node, SubProcess) and node.triggered_by_event and node.scope):
        return None
    for start in node.scope.nodes.values():
        if isinstance(start, StartEvent) and "compensate" in start.definition_kinds:
            return start
    return None


def event_subprocess_of(node: FlowNode) -> SubProcess | None:
    """A subprocess's compensation event subprocess (its compensation handler), or None."""
    if not (isinstance(node, SubProcess) and node.scope):
        return None
    for inner in node.scope.nodes.values():
        if compensation_start(inner) is not None:
            assert isinstance(inner, SubProcess)
            return inner
    return None


def is_compensable(node: FlowNode) -> bool:
    """Whether completing `node` must be recorded: something could compensate it later."""
    if not isinstance(node, Activity) or node.is_for_compensation:
        return False
    if isinstance(node, SubProcess) and node.triggered_by_event:
        return False
    if node.compensation_handler:
        return True
    return isinstance(node, SubProcess) and node.scope is not None and _holds(node.scope)


_HOLDS: WeakKeyDictionary[FlowScope, bool] = WeakKeyDictionary()


def _holds(scope: FlowScope) -> bool:
    """A scope holds something compensable (kept per frozen scope while it is loaded)."""
    if scope not in _HOLDS:
        _HOLDS[scope] = any(
            is_compensable(n) or compensation_start(n) is not None for n in scope.nodes.values()
        )
    return _HOLDS[scope]


# --- what is refused: compensating through a called process ----------------------------------
CALLED = (
    "compensating the called process {what} is not supported yet: a compensation thrown in "
    "this process would undo nothing the called process did, so it is refused before the "
    "first step (give the call activity a compensation boundary event and handler)"
)

FindCalled = Callable[[CallActivity], FlowScope | None]  # a static call's process, if found


def throws_compensation(scope: FlowScope) -> bool:
    """Whether anything in the scope compensates: a compensate throw or end event, or a
    cancel end event (it compensates its transaction)."""
    return any(
        isinstance(node, EndEvent | IntermediateEvent)
        and node.kind != "intermediateCatchEvent"
        and {"compensate", "cancel"} & set(node.definition_kinds)
        for _, node in scope.walk()
    )


def uncompensated_calls(
    process: FlowScope, find: FindCalled
) -> Iterator[tuple[FlowScope, CallActivity, str]]:
    """Each call activity that a compensation would have to undo through its called process
    (no boundary handler of its own, in a process that throws compensation, calling a process
    that holds something compensable, or one computed per call): (the process it is in, the
    call activity, why it is refused). The called processes are looked into in turn, so a
    child that throws compensation over its own call is refused too."""
    seen: set[int] = set()
    todo = [process]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        throws = throws_compensation(current)
        for _, node in current.walk():
            if not isinstance(node, CallActivity):
                continue
            called = find(node) if node.called_element else None
            if called is not None:
                todo.append(called)
            if not throws or node.compensation_handler or not node.called_element:
                continue
            if called is None and is_expression(node.called_element):  # not known yet
                what = f"(calledElement {node.called_element!r}, computed per call)"
                yield current, node, CALLED.format(what=what)
            elif called is not None and _may_compensate(called, find, set()):
                yield current, node, CALLED.format(what=repr(node.called_element))


def _may_compensate(process: FlowScope, find: FindCalled, seen: set[int]) -> bool:
    """A called process holds something a compensation of its call would have to undo."""
    if _holds(process) or id(process) in seen:
        return _holds(process)
    seen.add(id(process))
    for _, node in process.walk():
        if isinstance(node, CallActivity) and node.called_element and not is_compensable(node):
            called = find(node)
            if called is None or _may_compensate(called, find, seen):
                return True
    return False


# --- recording --------------------------------------------------------------------------------
def record(ctx: StepContext) -> None:
    """The context's activity (or one inner instance of it) completed: remember it, with the
    variables as it leaves them, if anything could compensate it."""
    node = ctx.node
    if not is_compensable(node):
        return
    track = ctx.track
    body = ctx.body_of(track)
    where = body.scope if body is not None else track.scope  # the scope the activity is in
    seen = track.scope
    if isinstance(node, SubProcess):
        inner = inner_scope(ctx.data, node.id, track.id, None)
        seen = inner.id if inner is not None else seen
    snapshot = ctx.step.new_scope(node.id, where, track.id, ScopeState.COMPENSABLE)
    ctx.set_local(snapshot.id, _locals(ctx.data, seen, where))
    ctx.emit("compensation.recorded", snapshot=snapshot.id)


def _locals(data: InstanceData, seen: int, where: int) -> dict:
    """The activity's own variables as it leaves them: those of its scopes inside `where` (a
    subprocess's locals and data objects, an inner instance's element variable and counter).
    The variables of the scope it ran in stay live, as in Camunda: a handler reads and
    writes them as they are now."""
    values: dict = {}
    for scope_id in data.variables.chain(seen):
        if scope_id == where:
            break
        values = {**data.values.get(scope_id, {}), **values}
    return values


def inner_scope(data: InstanceData, element: str, track: int, before: int | None) -> Scope | None:
    """The last scope a subprocess's track ran its body in (before the snapshot `before`).
    A scan of the instance's scopes: only compensable subprocesses and throws look."""
    found = [
        s
        for s in data.scopes.values()
        if s.element == element
        and s.track == track
        and s.status not in SNAPSHOT_STATES
        and (before is None or s.id < before)
    ]
    return max(found, key=lambda s: s.id) if found else None


# --- throwing ---------------------------------------------------------------------------------
def throw(ctx: StepContext, definition: EventDefinition | None) -> bool:
    """Compensate the thrower's scope (or the activity `activityRef` names); True when the
    context's track now waits for the handlers. `definition` None: a transaction's cancel."""
    ref = definition.ref if definition is not None else None
    ctx.emit("compensation.thrown", **({"activity": ref} if ref else {}))
    found = _next_unit(ctx, target_scope(ctx), ref)
    if found is None:
        return False
    if definition is not None and not definition.wait_for_completion:
        runner = ctx.step.new_track(
            element=ctx.node.id,
            scope=ctx.track.scope,
            status=TrackState.WAITING,
            wait=DETACHED,
            parent=ctx.track.id,
        )
        ctx.step.emit("track.created", ctx.node.id, runner.id, parent=ctx.track.id)
        _start_unit(ctx.for_track(runner), *found)
        return False
    ctx.wait(WAIT)
    _start_unit(ctx, *found)
    return True


def resume(ctx: StepContext) -> bool:
    """A handler the context's track waited for has finished: start the next one. True while
    the track still waits (or, running handlers alone, has ended); False: the thrower goes on."""
    track = ctx.track
    if track.status is not TrackState.WAITING or track.wait not in (WAIT, DETACHED):
        return False
    for run in [s for s in ctx.data.scopes.values() if s.track == track.id]:
        snapshot = ctx.data.scopes.get(run.parent or 0)
        if (
            run.status is ScopeState.COMPLETED
            and snapshot
            and snapshot.status is ScopeState.COMPENSATING
        ):
            ctx.step.touch_scope(snapshot).move(ScopeState.COMPENSATED)
            ctx.step.emit(
                "compensation.completed", snapshot.element, track.id, snapshot=snapshot.id
            )
    definition = next((d for d in _definitions(ctx.node) if d.kind == "compensate"), None)
    found = _next_unit(ctx, target_scope(ctx), definition.ref if definition else None)
    if found is not None:
        _start_unit(ctx, *found)
        return True
    if track.wait == DETACHED:
        ctx.end_track(TrackState.COMPLETED)
        return True
    return False


def _definitions(node: FlowNode) -> tuple[EventDefinition, ...]:
    return getattr(node, "definitions", ())


def target_scope(ctx: StepContext) -> int:
    """The scope whose completed activities a throw compensates: its own, or for a throw in an
    event subprocess the enclosing one (for a compensation event subprocess: the completed
    body of the subprocess it compensates)."""
    data = ctx.data
    scope = data.scopes[ctx.track.scope]
    holder = ctx.definitions.node(scope.element)
    if isinstance(holder, SubProcess) and holder.triggered_by_event and scope.parent is not None:
        scope = data.scopes[scope.parent]
        snapshot = data.scopes.get(scope.parent or 0)
        if snapshot is not None and snapshot.status in SNAPSHOT_STATES:  # a handler's run
            assert snapshot.track is not None
            inner = inner_scope(data, snapshot.element, snapshot.track, snapshot.id)
            if inner is not None:
                return inner.id
    return scope.id


def _next_unit(ctx: StepContext, scope_id: int, ref: str | None) -> tuple[Scope, str] | None:
    """The last completed activity of the scope still to compensate, and the handler to run
    (a boundary event's handler or a compensation event subprocess); a subprocess without
    either is compensated through the activities it holds."""
    data = ctx.data
    records = [
        s
        for s in data.scopes.values()
        if s.parent == scope_id and s.status in SNAPSHOT_STATES and ref in (None, s.element)
    ]
    for snapshot in sorted(records, key=lambda s: s.id, reverse=True):
        if snapshot.status is not ScopeState.COMPENSABLE:
            continue
        node = ctx.definitions.node(snapshot.element)
        if isinstance(node, Activity) and node.compensation_handler:
            return snapshot, node.compensation_handler
        handler = event_subprocess_of(node) if node is not None else None
        if handler is not None:
            return snapshot, handler.id
        assert snapshot.track is not None
        inner = inner_scope(data, snapshot.element, snapshot.track, snapshot.id)
        found = _next_unit(ctx, inner.id, None) if inner is not None else None
        if found is not None:
            return found
        ctx.step.touch_scope(snapshot).move(ScopeState.COMPENSATED)  # all inside is undone
    return None


def _start_unit(ctx: StepContext, snapshot: Scope, handler_id: str) -> None:
    """Run one handler for one recorded activity, in a run scope under its snapshot whose
    track is the waiting one (its completion calls the waiter's `complete`)."""
    waiter: Track = ctx.track
    ctx.step.touch_scope(snapshot).move(ScopeState.COMPENSATING)
    handler = ctx.definitions.node(handler_id)
    holder = ctx.definitions.node_scopes[handler_id]
    run = ctx.step.new_scope(holder.id, snapshot.id, waiter.id)
    ctx.step.emit(
        "compensation.started",
        snapshot.element,
        waiter.id,
        handler=handler_id,
        snapshot=snapshot.id,
    )
    start = compensation_start(handler) if handler is not None else None
    if isinstance(handler, SubProcess) and start is not None:
        subprocesses.start(ctx, run.id, handler, start, trigger="compensate")
        return
    if not isinstance(handler, Activity):
        raise Incident(f"compensation handler {handler_id!r} is not an activity", snapshot.element)
    track = ctx.step.new_track(
        element=handler_id, scope=run.id, status=TrackState.READY, parent=waiter.id
    )
    ctx.step.emit("track.created", handler_id, track.id, parent=waiter.id)
