"""BPMN errors and escalations: thrown by end/throw events or handlers, caught by boundaries.

The catcher is looked for from the thrower outwards (spec 10.5.4): the thrower's own boundary
events if it is an activity (for an inner instance of a multi-instance or loop activity: the
body's, which catching interrupts with every instance), then those of each enclosing
subprocess. At each level an event whose error code matches wins over a catch-all one.
Catching interrupts the activity it is attached to (for a subprocess: every track in its
scope, the cancellation cascade) and the host's track goes on from the boundary event.
An error nobody catches is an incident.
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.model import Activity, BoundaryEvent, FlowNode, StartEvent, SubProcess
from bpmn_engine.records.lifecycle import ScopeState
from bpmn_engine.records.rows import Track
from bpmn_engine.runtime.calls import protocol as calls
from bpmn_engine.runtime.events import subprocesses
from bpmn_engine.runtime.events.boundaries import branch_off, interrupt
from bpmn_engine.runtime.events.payloads import caught
from bpmn_engine.runtime.step.context import Incident, StepContext


def catching_boundary(
    ctx: StepContext, host: Activity, code: str, kind: str = "error"
) -> BoundaryEvent | None:
    """The `kind` boundary event of `host` that catches `code`, specific before catch-all."""
    codes = ctx.definitions.errors if kind == "error" else ctx.definitions.escalations
    scope = ctx.definitions.node_scopes[host.id]
    catch_all = None
    for boundary_id in host.boundary_events:
        boundary = scope.nodes[boundary_id]
        assert isinstance(boundary, BoundaryEvent)
        for definition in boundary.definitions:
            if definition.kind != kind:
                continue
            if definition.ref is None:
                catch_all = catch_all or boundary
            elif codes.get(definition.ref, definition.ref) == code:
                return boundary
    return catch_all


Catcher = tuple[Track, BoundaryEvent] | tuple[int, SubProcess, StartEvent]


def find_catcher(ctx: StepContext, code: str, kind: str) -> Catcher | None:
    """Walk from the thrower outwards: its own boundaries, then at each scope its event
    subprocesses, then the boundaries of the activity holding that scope, and so on."""
    track: Track | None = ctx.track
    node = ctx.node
    while track is not None:
        body = ctx.body_of(track)
        if body is not None:  # an inner instance: the activity's boundaries are its body's
            track = body
            continue
        if isinstance(node, Activity):
            boundary = catching_boundary(ctx, node, code, kind)
            if boundary is not None:
                return track, boundary
        scope = ctx.data.scopes[track.scope]
        model = ctx.definitions.scopes[scope.element]
        # an event subprocess never catches what its own run throws: look further out
        from_event_subprocess = isinstance(node, SubProcess) and node.triggered_by_event
        found = subprocesses.catching_start(ctx, model, code, kind)
        if found is not None and scope.status is ScopeState.ACTIVE and not from_event_subprocess:
            return (scope.id, *found)
        track = ctx.data.tracks[scope.track] if scope.track is not None else None
        if track is not None:
            node = ctx.definitions.node_scopes[track.element].nodes[track.element]
    return None


def _catch(
    ctx: StepContext, catcher: Catcher, kind: str, carried: dict[str, Any], **data: object
) -> None:
    """`carried`: the variables the throw brings (`events/payloads.py`), set in the scope
    the catcher goes on in before it does (what the catcher's output mappings or data
    outputs make of them, if it has any)."""
    if len(catcher) == 3:
        scope_id, node, start = catcher
        ctx.step.emit(f"{kind}.caught", start.id, ctx.track.id, **data)
        ctx.set_variables({**caught(ctx, start, carried), **_named(start, kind, data)}, scope_id)
        subprocesses.start(ctx, scope_id, node, start, trigger=kind)
        return
    track, boundary = catcher
    ctx.step.emit(f"{kind}.caught", boundary.id, track.id, **data)
    came = caught(ctx.for_track(track), boundary, carried)
    ctx.set_variables({**came, **_named(boundary, kind, data)}, track.scope)
    if boundary.cancel_activity:
        interrupt(ctx, track, boundary, trigger=kind)
    else:
        branch_off(ctx, track, boundary, trigger=kind)


def _named(catcher: FlowNode, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """Camunda 7's `errorCodeVariable` / `escalationCodeVariable` and `errorMessageVariable`
    on the catching definition: the code and message caught (null when there is none)."""
    named: dict[str, Any] = {}
    for definition in getattr(catcher, "definitions", ()):
        if definition.kind != kind:
            continue
        if definition.code_variable:
            named[definition.code_variable] = data.get("code")
        if definition.error_message_variable:
            named[definition.error_message_variable] = data.get("message") or None
    return named


def throw_error(
    ctx: StepContext, code: str, message: str = "", carried: dict[str, Any] | None = None
) -> None:
    """Throw a BPMN error from the context's track; catch it or raise an incident."""
    carried = carried or {}
    ctx.emit("error.thrown", code=code, message=message)
    caught = find_catcher(ctx, code, "error")
    head = ctx.data.head
    if caught is None and head.parent_instance is not None:
        # a called instance: the error goes to the call activity, and this instance ends
        ctx.step.sent.append(calls.upward(head, calls.ERROR, code, carried, message))
        ctx.end_instance("error.propagated", code=code, message=message, to=head.parent_instance)
        return
    if caught is None and _ends_path_unhandled(ctx):
        ctx.warn(
            f"BPMN error {code!r} (thrown at line {ctx.node.line}) is caught nowhere: its "
            "path ends here, as Camunda 7 ends it"
        )
        ctx.emit("error.unhandled", code=code, message=message)
        if not ctx.data.has_tokens(ctx.track.scope):
            ctx.scope_completed(ctx.track.scope)
        return
    if caught is None:
        detail = f": {message}" if message else ""
        raise Incident(
            f"unhandled BPMN error {code!r}{detail} (thrown at line {ctx.node.line})", ctx.node.id
        )
    _catch(ctx, caught, "error", carried, code=code, message=message)


def _ends_path_unhandled(ctx: StepContext) -> bool:
    """Camunda 7 ends the path of an error end event whose error nothing catches, as a none
    end event would (its default, `enableExceptionsAfterUnhandledBpmnError=false`); the
    spec's reading, Zeebe's and the others' is a failure: an incident here. Only the end
    event: its token has already ended (a task's error would leave an activity half done)."""
    return ctx.definitions.platform == "camunda7" and ctx.node.kind == "endEvent"


def throw_escalation(ctx: StepContext, code: str, carried: dict[str, Any] | None = None) -> None:
    """Escalate to the enclosing activities; unlike an error, nobody catching is no failure.

    An interrupting escalation boundary event ends its activity (the thrower included); a
    non-interrupting one starts a token from the boundary event and everything goes on.
    """
    carried = carried or {}
    ctx.emit("escalation.thrown", code=code)
    caught = find_catcher(ctx, code, "escalation")
    head = ctx.data.head
    if caught is None and head.parent_instance is not None:  # on to the call activity
        ctx.step.sent.append(calls.upward(head, calls.ESCALATION, code, carried))
        ctx.emit("escalation.propagated", code=code, to=head.parent_instance)
        return
    if caught is None:
        ctx.warn(f"escalation {code!r} was not caught by any enclosing activity")
        return
    _catch(ctx, caught, "escalation", carried, code=code)
