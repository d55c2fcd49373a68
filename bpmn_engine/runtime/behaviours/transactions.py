"""Transactions (spec 10.2.2): a subprocess whose cancel end event undoes it.

A transaction runs as an embedded subprocess. Its outcomes differ:
- completed: its last token ended; history says `transaction.completed`;
- cancelled: a cancel end event inside ended every other token of it, compensated the
  activities completed inside (last completed first, `events/compensation.py`) and left
  through the transaction's cancel boundary event; history says `transaction.cancelled`
  and its scope's status is `cancelled`;
- an error (or any interrupting boundary event) leaves it at once, without compensation:
  history says `transaction.interrupted`.
"""

from __future__ import annotations

from bpmn_engine.model import BoundaryEvent, SubProcess
from bpmn_engine.records.lifecycle import ScopeState, TrackState
from bpmn_engine.runtime.behaviours.subprocesses import SubProcessBehaviour
from bpmn_engine.runtime.events import compensation
from bpmn_engine.runtime.events.boundaries import interrupt
from bpmn_engine.runtime.events.payloads import caught
from bpmn_engine.runtime.step.context import Incident, StepContext


class TransactionBehaviour(SubProcessBehaviour):
    kinds = ("transaction",)

    def complete(self, ctx: StepContext) -> None:
        if ctx.body_of(ctx.track) is None:
            ctx.emit("transaction.completed")
        super().complete(ctx)

    def terminate(self, ctx: StepContext) -> None:
        inner = [s for s in ctx.data.scopes.values() if s.track == ctx.track.id]
        if not inner or max(inner, key=lambda s: s.id).status is not ScopeState.CANCELLED:
            ctx.emit("transaction.interrupted")
        super().terminate(ctx)


def cancel(ctx: StepContext) -> None:
    """A cancel end event: end every other token of the transaction, then compensate what
    completed inside; when the handlers are done (`leave_cancelled`) the transaction leaves
    through its cancel boundary event."""
    _cancel_boundary(ctx)  # no boundary event to leave by: an incident before anything ends
    ctx.emit("transaction.cancelling")
    ctx.terminate_scope(ctx.track.scope, keep=ctx.track)
    if not compensation.throw(ctx, None):
        leave_cancelled(ctx)


def leave_cancelled(ctx: StepContext) -> None:
    """The transaction's compensation is done: it leaves through its cancel boundary event."""
    transaction, boundary = _cancel_boundary(ctx)
    scope = ctx.data.scopes[ctx.track.scope]
    ctx.completed()
    ctx.step.touch_track(ctx.track).move(TrackState.COMPLETED)
    ctx.step.touch_scope(scope).move(ScopeState.CANCELLED)  # before `interrupt` ends the rest
    ctx.step.emit("transaction.cancelled", transaction.element, transaction.id)
    ctx.step.emit("cancel.caught", boundary.id, transaction.id)
    outer = ctx.for_track(transaction)  # the boundary's output mappings: nothing came
    outer.set_variables(caught(outer, boundary, None))
    interrupt(ctx, transaction, boundary, trigger="cancel")


def _cancel_boundary(ctx: StepContext):
    scope = ctx.data.scopes[ctx.track.scope]
    transaction = ctx.data.tracks[scope.track] if scope.track is not None else None
    node = ctx.definitions.node(transaction.element) if transaction is not None else None
    if transaction is None or not isinstance(node, SubProcess) or node.kind != "transaction":
        raise Incident("a cancel end event must be directly inside a transaction", ctx.node.id)
    holder = ctx.definitions.node_scopes[node.id]
    for boundary_id in node.boundary_events:
        boundary = holder.nodes[boundary_id]
        if isinstance(boundary, BoundaryEvent) and "cancel" in boundary.definition_kinds:
            return transaction, boundary
    raise Incident(f"transaction {node.id!r} has no cancel boundary event to leave by", ctx.node.id)
