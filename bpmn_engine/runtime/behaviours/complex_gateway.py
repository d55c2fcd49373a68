"""The complex gateway (BPMN 2.0.2, 13.3.5): fire on a condition over the tokens that arrived.

Two states, both kept in the rows:
- *waiting for start*: tokens wait at the gateway as join tracks (`wait == "join"`). After each
  arrival the `activationCondition` is evaluated with `activationCount` (the number of tokens
  waiting, all incoming flows together) and `activationCounts` (flow id -> tokens waiting on
  that flow). When it holds, one token of each flow that has one is consumed, the gateway
  activates once (a join row) and the outgoing flows are chosen like an inclusive gateway's
  (every true condition, else the default flow), with `waitingForStart` true.
- *waiting for reset*: each flow that delivered at the activation is recorded by a
  `DELIVERED` track at the gateway (no token: it keeps no scope alive). A token arriving on a
  flow that has not delivered yet is consumed (a `CONSUMED` track: still a token, so the
  scope lives on until the reset passes it on); one on a flow that
  already delivered waits for the next activation. The gateway resets when every incoming
  flow has delivered, or when no token of the scope can reach one that has not any more
  without also reaching one that has (the inclusive join's upstream rule, `joins.py`; the
  scheduler asks it when nothing else can move). At the reset the outgoing conditions are
  evaluated again, with `waitingForStart` false, for the tokens consumed since the
  activation: every true one gets a token, else the default flow, else none (no incident);
  then the gateway waits for start again, with the tokens that waited meanwhile.

Without an `activationCondition` the gateway waits for a token on every incoming flow (the
spec gives no default; waiting for all is the one reading that loses no token).
"""

from __future__ import annotations

from bpmn_engine.model import ComplexGateway, FlowScope, SequenceFlow
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import CONSUMED, DELIVERED, Track
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.step import joins
from bpmn_engine.runtime.step.context import Incident, StepContext

ACTIVATION_COUNT = "activationCount"
ACTIVATION_COUNTS = "activationCounts"
WAITING_FOR_START = "waitingForStart"
RECORDS = frozenset({DELIVERED, CONSUMED})


def records_at(data: InstanceData, scope: int, gateway: str) -> dict[str, Track]:
    """The flows that delivered since the gateway's last activation (waiting for reset)."""
    return {
        t.via or "": t
        for t in data.live_tracks(scope)
        if t.element == gateway and t.wait in RECORDS
    }


def delivered(ctx: StepContext) -> dict[str, Track]:
    return records_at(ctx.data, ctx.track.scope, ctx.node.id)


def may_reset(data: InstanceData, model: FlowScope, record: Track) -> list[Track] | None:
    """The records of the gateway waiting for reset that `record` belongs to, if it may reset
    now: no token can reach a flow that has not delivered any more (None: it may not)."""
    records = records_at(data, record.scope, record.element)
    if not records or joins.may_still_arrive(
        data, model, record.scope, record.element, set(records)
    ):
        return None
    return sorted(records.values(), key=lambda t: t.seq)


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
            track.wait = CONSUMED
            ctx.emit("gateway.consumed", flow=track.via)
            records[track.via or ""] = track
            if not joins.may_still_arrive(
                ctx.data, ctx.scope_model, track.scope, node.id, set(records)
            ):  # every flow delivered, or no token can come on the others any more
                self.reset(ctx, sorted(records.values(), key=lambda t: t.seq))
            return
        ctx.wait("join", flow=track.via)
        if not records:
            self.try_fire(ctx)

    def reset(self, ctx: StepContext, records: list[Track]) -> None:
        """Back to waiting for start. The tokens consumed since the activation leave by the
        outgoing flows whose condition holds with `waitingForStart` false (else the default
        flow, else nowhere); then the tokens that waited meanwhile may fire it at once."""
        consumed = [r for r in records if r.wait == CONSUMED]
        for record in records:
            if not consumed or record is not consumed[0]:
                ctx.step.touch_track(record).move(TrackState.MERGED)
        ctx.emit("gateway.reset", consumed=[r.via for r in consumed])
        waiting = joins.waiting_at(ctx.data, ctx.track.scope, ctx.node.id)
        if consumed:
            carrier = ctx.for_track(consumed[0])
            carrier.step.touch_track(carrier.track).move(TrackState.EXECUTING)
            carrier.track.wait = None
            carrier.leave(self.flows(carrier, waiting_for_start=False))
        if waiting:
            self.try_fire(ctx.for_track(waiting[0]))

    def outgoing(self, ctx: StepContext) -> list[SequenceFlow]:
        return self.flows(ctx, waiting_for_start=True)

    def flows(self, ctx: StepContext, *, waiting_for_start: bool) -> list[SequenceFlow]:
        """Every flow whose condition holds (they may read `waitingForStart`), else the
        default; none at all is an incident at the activation, and no token at the reset."""
        node = ctx.node
        assert isinstance(node, ComplexGateway)
        flows = ctx.scope_model.outgoing(node)
        extra = {WAITING_FOR_START: waiting_for_start}
        taken = [f for f in flows if f.id != node.default and ctx.condition_holds(f, extra)]
        if taken or not flows:
            return taken
        if node.default:
            return [ctx.scope_model.flows[node.default]]
        if not waiting_for_start:
            return []
        raise Incident(
            "complex gateway: no outgoing condition is true and there is no default flow",
            node.id,
        )

    def try_fire(self, ctx: StepContext) -> None:
        """Evaluate the activation condition over the waiting tokens; fire if it holds."""
        node = ctx.node
        assert isinstance(node, ComplexGateway)
        per_flow = counts(ctx)
        if node.activation is None:
            holds = all(per_flow.values())
        else:
            extra = {ACTIVATION_COUNT: sum(per_flow.values()), ACTIVATION_COUNTS: per_flow}
            holds = ctx.holds(node.activation, extra, "the activationCondition")
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
