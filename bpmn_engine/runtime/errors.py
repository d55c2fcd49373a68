"""BPMN errors: thrown by an error end event or a handler, caught by an error boundary event.

The catcher is looked for from the thrower outwards (spec 10.5.4): the thrower's own boundary
events if it is an activity, then those of each enclosing subprocess. At each level an event
whose error code matches wins over a catch-all one. Catching interrupts the activity it is
attached to (for a subprocess: every track in its scope, the cancellation cascade) and the
host's track goes on from the boundary event. An error nobody catches is an incident.
"""

from __future__ import annotations

from bpmn_engine.model import Activity, BoundaryEvent
from bpmn_engine.runtime.boundaries import interrupt
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.state import Track


def catching_boundary(ctx: StepContext, host: Activity, code: str) -> BoundaryEvent | None:
    """The error boundary event of `host` that catches `code`, specific before catch-all."""
    errors = ctx.definitions.errors
    scope = ctx.definitions.node_scopes[host.id]
    catch_all = None
    for boundary_id in host.boundary_events:
        boundary = scope.nodes[boundary_id]
        assert isinstance(boundary, BoundaryEvent)
        for definition in boundary.definitions:
            if definition.kind != "error":
                continue
            if definition.ref is None:
                catch_all = catch_all or boundary
            elif errors.get(definition.ref, definition.ref) == code:
                return boundary
    return catch_all


def throw_error(ctx: StepContext, code: str, message: str = "") -> None:
    """Throw a BPMN error from the context's track; catch it or raise an incident."""
    ctx.emit("error.thrown", code=code, message=message)
    track: Track | None = ctx.track
    node = ctx.node
    while track is not None:
        if isinstance(node, Activity):
            boundary = catching_boundary(ctx, node, code)
            if boundary is not None:
                ctx.step.emit("error.caught", boundary.id, track.id, code=code, message=message)
                interrupt(ctx, track, boundary, trigger="error")
                return
        scope = ctx.data.scopes[track.scope]
        track = ctx.data.tracks[scope.track] if scope.track is not None else None
        if track is not None:
            node = ctx.definitions.node_scopes[track.element].nodes[track.element]
    detail = f": {message}" if message else ""
    raise Incident(
        f"unhandled BPMN error {code!r}{detail} (thrown at line {ctx.node.line})", ctx.node.id
    )
