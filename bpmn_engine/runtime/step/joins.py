"""Joins: the parallel join counts tokens per incoming flow; the inclusive join looks upstream.

The join is kept out of the gateway behaviours so that both gateways read alike (Zeebe does
the same in its sequence-flow processor). A waiting token at a join is a track in state
`waiting` with `wait == "join"` and `via` = the flow it came on. Each firing is recorded as a
join row with a per-gateway activation number, unique in the store: a join fires exactly once.
"""

from __future__ import annotations

from bpmn_engine.model import FlowScope
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Track
from bpmn_engine.runtime.step.context import StepContext


def _waits(track: Track, scope: int, gateway: str) -> bool:
    return (
        track.status is TrackState.WAITING
        and track.wait == "join"
        and track.element == gateway
        and track.scope == scope
    )


def waiting_at(data: InstanceData, scope: int, gateway: str) -> list[Track]:
    """The tokens waiting at a join, earliest first."""
    tracks = data.tracks
    waiting = [
        track
        for ids in data.join_waits(scope, gateway).values()
        for i in ids
        if _waits(track := tracks[i], scope, gateway)
    ]
    return sorted(waiting, key=lambda t: t.seq)


def first_per_flow(data: InstanceData, scope: int, gateway: str) -> dict[str, Track]:
    """The earliest waiting token on each incoming flow that has one."""
    tracks = data.tracks
    found: dict[str, Track] = {}
    for flow, ids in data.join_waits(scope, gateway).items():
        waiting = [t for i in ids if _waits(t := tracks[i], scope, gateway)]
        if waiting:
            found[flow] = min(waiting, key=lambda t: t.seq)
    return found


def parallel_arrival(ctx: StepContext) -> bool:
    """Record the arriving token; fire when every incoming flow holds one (not on a count).

    An arrival costs the same however many branches the join has: the waiting tokens are
    indexed by gateway and flow, and only a full set is looked at one by one.
    """
    node, track = ctx.node, ctx.track
    waits = ctx.data.join_waits(track.scope, node.id)
    filled = len(waits) + (track.via not in waits)
    if filled >= len(node.incoming):
        chosen = first_per_flow(ctx.data, track.scope, node.id)
        chosen.setdefault(track.via or "", track)
        if all(flow in chosen for flow in node.incoming):
            tokens = [chosen[f] for f in node.incoming]
            others = sorted((t for t in tokens if t is not track), key=lambda t: t.seq)
            fire(ctx, others + [track] * (len(others) < len(tokens)))
            return True
    ctx.wait("join", flow=track.via)
    return False


def inclusive_arrival(ctx: StepContext) -> bool:
    """Record the arriving token; fire in this same step when the OR-join rule holds with it
    (as the last arrival at a parallel join does), else wait for the scheduler to fire it.

    The rule only looks at tokens that can still move, so it holds as soon as it can: waiting
    for the scheduler would only let the debugger see a join that has already decided.
    """
    node, track = ctx.node, ctx.track
    chosen = first_per_flow(ctx.data, track.scope, node.id)
    if track.via in chosen:  # an earlier token on this flow goes first: this one queues
        ctx.wait("join", flow=track.via)
        return False
    chosen[track.via or ""] = track
    on_its_way = any(  # a token at the gateway that has not arrived yet, on an empty flow
        other is not track
        and other.status is TrackState.READY
        and other.element == node.id
        and other.via not in chosen
        for other in ctx.data.live_tracks(track.scope)
    )
    if on_its_way or may_still_arrive(ctx.data, ctx.scope_model, track.scope, node.id, set(chosen)):
        ctx.wait("join", flow=track.via)
        return False
    others = sorted((t for t in chosen.values() if t is not track), key=lambda t: t.seq)
    fire(ctx, [*others, track])
    return True


def inclusive_enabled(data: InstanceData, model: FlowScope, gateway: Track) -> list[Track] | None:
    """The spec's OR-join rule (BPMN 2.0.2, 13.3.4), over the tokens of the gateway's scope.

    Enabled when some incoming flow holds a token and no token elsewhere in the scope can
    still reach an empty incoming flow without also being able to reach a full one (paths
    through the gateway itself do not count). Tokens inside a subprocess are represented by
    the token waiting at the subprocess node.
    """
    node = model.nodes[gateway.element]
    chosen = first_per_flow(data, gateway.scope, node.id)
    if not chosen or may_still_arrive(data, model, gateway.scope, node.id, set(chosen)):
        return None
    return list(chosen.values())


def may_still_arrive(
    data: InstanceData, model: FlowScope, scope: int, gateway: str, full: set[str]
) -> bool:
    """Whether a token of the scope can still reach an incoming flow of `gateway` outside
    `full` without also being able to reach one in `full` (paths through the gateway itself
    do not count; tokens at the gateway are not upstream of it).

    The upstream question of the inclusive join (13.3.4), and of the complex gateway's reset
    (13.3.5), which asks it with `full` = the flows that delivered since its activation.
    """
    node = model.nodes[gateway]
    full_sources = {model.flows[f].source for f in node.incoming if f in full}
    empty_sources = {model.flows[f].source for f in node.incoming if f not in full}
    if not empty_sources:
        return False
    for track in data.live_tracks(scope):
        if track.element == gateway or track.listening:
            continue
        reach = model.reachable_avoiding(track.element, gateway)
        if reach & empty_sources and not reach & full_sources:
            return True
    return False


def fire(ctx: StepContext, chosen: list[Track]) -> None:
    """Merge the chosen tokens into the current track and activate the gateway once."""
    node, track = ctx.node, ctx.track
    for other in chosen:
        if other.id != track.id:
            ctx.step.touch_track(other)
            other.move(TrackState.MERGED)
            ctx.step.emit("track.merged", node.id, other.id, into=track.id)
    ctx.step.add_join(track.scope, node.id, sorted(t.id for t in chosen))
    ctx.step.touch_track(track)
    track.move(TrackState.EXECUTING)
    track.wait = None
    ctx.emit("element.activated", type=node.kind, name=node.name)
    ctx.engine.listen(ctx, "start", node)
