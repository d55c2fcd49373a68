"""The complex gateway (BPMN 2.0.2, 13.3.5): fire on a condition over the tokens that arrived.

Two states, both kept in the rows:
- *waiting for start*: tokens wait at the gateway as join tracks (`wait == "join"`). After each
  arrival the `activationCondition` is evaluated with `activationCount` (the number of tokens
  waiting, all incoming flows together) and `activationCounts` (flow id -> tokens waiting on
  that flow). When it holds, one token of each flow that has one is consumed, the gateway
  activates once (a join row) and the outgoing flows are chosen like an inclusive gateway's
  (every true condition, else the default flow).
- *waiting for reset*: each flow that delivered is recorded by a `DELIVERED` track at the
  gateway (no token: it keeps no scope alive). A token arriving on a flow that has not
  delivered yet is consumed without firing; one on a flow that already delivered waits for
  the next activation. Once every incoming flow has delivered, the records go and the gateway
  waits for start again, with the tokens that waited meanwhile.

Without an `activationCondition` the gateway waits for a token on every incoming flow (the
spec gives no default; waiting for all is the one reading that loses no token).
"""

from __future__ import annotations

from bpmn_engine.model import ComplexGateway
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import DELIVERED, Track
from bpmn_engine.runtime import joins
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.context import Incident, StepContext

ACTIVATION_COUNT = "activationCount"
ACTIVATION_COUNTS = "activationCounts"


def delivered(ctx: StepContext) -> dict[str, Track]:
    """The flows that delivered since the gateway's last activation (waiting for reset)."""
    node, scope = ctx.node, ctx.track.scope
    return {
        t.via or "": t
        for t in ctx.data.live_tracks(scope)
        if t.element == node.id and t.wait == DELIVERED
    }


def counts(ctx: StepContext) -> dict[str, int]:
    """Tokens waiting at the gateway, per incoming flow (every incoming flow listed)."""
    waits = ctx.data.join_waits(ctx.track.scope, ctx.node.id)
    waiting = {t.id for t in joins.waiting_at(ctx.data, ctx.track.scope, ctx.node.id)}
    return {f: len([i for i in waits.get(f, {}) if i in waiting]) for f in ctx.node.incoming}


class ComplexGatewayBehaviour(FlowNodeBehaviour):
    """Synchronises by its activation condition, then splits like an inclusive gateway."""

    def arrive(self, ctx: StepContext) -> None:
        node, track = ctx.node, ctx.track
        assert isinstance(node, ComplexGateway)
        if len(node.incoming) <= 1 and node.activation is None:
            super().arrive(ctx)  # a split: every token activates it
            return
        records = delivered(ctx)
        if records and track.via not in records:  # waiting for reset: consumed, no firing
            ctx.step.touch_track(track)
            track.move(TrackState.WAITING)
            track.wait = DELIVERED
            ctx.emit("gateway.consumed", flow=track.via)
            records[track.via or ""] = track
            if all(f in records for f in node.incoming):
                self.reset(ctx, records)
            if not ctx.data.has_tokens(track.scope):  # it was the scope's last token
                ctx.scope_completed(track.scope)
            return
        ctx.wait("join", flow=track.via)
        if not records:
            self.try_fire(ctx)

    def reset(self, ctx: StepContext, records: dict[str, Track]) -> None:
        """Every incoming flow delivered: back to waiting for start, with the tokens that
        waited meanwhile (they may fire the gateway at once)."""
        for record in records.values():
            ctx.step.touch_track(record).move(TrackState.MERGED)
        ctx.emit("gateway.reset")
        waiting = joins.waiting_at(ctx.data, ctx.track.scope, ctx.node.id)
        if waiting:
            self.try_fire(ctx.for_track(waiting[0]))

    def try_fire(self, ctx: StepContext) -> None:
        """Evaluate the activation condition over the waiting tokens; fire if it holds."""
        node = ctx.node
        assert isinstance(node, ComplexGateway)
        per_flow = counts(ctx)
        if node.activation is None:
            holds = all(per_flow.values())
        else:
            extra = {ACTIVATION_COUNT: sum(per_flow.values()), ACTIVATION_COUNTS: per_flow}
            value = ctx.evaluate(node.activation, extra, "the activationCondition")
            if value is not None and not isinstance(value, bool):
                raise Incident(
                    f"the activationCondition {node.activation.text!r} must be a boolean, "
                    f"not {value!r}",
                    node.id,
                )
            holds = bool(value)
        if holds:
            self.fire(ctx, per_flow)

    def fire(self, ctx: StepContext, per_flow: dict[str, int]) -> None:
        node, track = ctx.node, ctx.track
        chosen = joins.first_per_flow(ctx.data, track.scope, node.id)
        chosen[track.via or ""] = chosen.get(track.via or "", track)
        full = [f for f in node.incoming if f in chosen]
        tokens = [chosen[f] for f in full]
        if track not in tokens:  # an earlier token on its flow goes first: the track stands in
            tokens[full.index(track.via or "")] = track
        joins.fire(ctx, tokens)
        ctx.emit(
            "gateway.activated",
            **{ACTIVATION_COUNT: sum(per_flow.values()), ACTIVATION_COUNTS: per_flow},
        )
        if len(full) < len(node.incoming):  # waiting for reset: the flows that delivered
            for flow in full:
                ctx.step.new_track(
                    element=node.id,
                    scope=track.scope,
                    status=TrackState.WAITING,
                    parent=track.id,
                    via=flow,
                    wait=DELIVERED,
                )
        self.execute(ctx)
