"""Boundary events firing: interrupting ones end their activity, non-interrupting ones add a token.

Shared by every trigger (errors, timers): the cancellation cascade of seed 001 runs through
`StepContext.terminate_scope` for a subprocess, and the host's own behaviour releases what
the activity held (a user task, a job).
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.model import BoundaryEvent
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Track
from bpmn_engine.runtime.step.context import StepContext


def interrupt(ctx: StepContext, host: Track, boundary: BoundaryEvent, **data: Any) -> None:
    """End the host activity (and its subprocess scope) and go on from the boundary event."""
    ctx.terminate_inner_scopes(host)
    host_ctx = ctx.for_track(host)
    host_ctx.behaviour(host_ctx.node).terminate(host_ctx)
    ctx.step.touch_track(host)
    if host.status is not TrackState.EXECUTING:
        host.move(TrackState.EXECUTING)
    ctx.step.ready(host, boundary.id, None)
    ctx.step.emit("boundary.triggered", boundary.id, host.id, interrupting=True, **data)


def branch_off(ctx: StepContext, host: Track, boundary: BoundaryEvent, **data: Any) -> Track:
    """A non-interrupting boundary event: a new token leaves; the activity goes on."""
    child = ctx.step.new_track(
        element=boundary.id,
        scope=host.scope,
        status=TrackState.READY,
        parent=host.id,
    )
    ctx.step.emit("boundary.triggered", boundary.id, child.id, interrupting=False, **data)
    return child
