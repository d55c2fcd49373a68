"""Joins: the parallel join counts tokens per incoming flow; the inclusive join looks upstream.

The join is kept out of the gateway behaviours so that both gateways read alike (Zeebe does
the same in its sequence-flow processor). A waiting token at a join is a track in state
`waiting` with `wait == "join"` and `via` = the flow it came on. Each firing is recorded as a
join row with a per-gateway activation number, unique in the store: a join fires exactly once.
"""

from __future__ import annotations

from bpmn_engine.model import FlowScope
from bpmn_engine.runtime.context import StepContext
from bpmn_engine.runtime.data import InstanceData
from bpmn_engine.runtime.lifecycle import TrackState
from bpmn_engine.runtime.state import Track


def waiting_at(data: InstanceData, scope: int, gateway: str) -> list[Track]:
    tracks = [
        t
        for t in data.tracks.values()
        if t.status is TrackState.WAITING
        and t.wait == "join"
        and t.element == gateway
        and t.scope == scope
    ]
    return sorted(tracks, key=lambda t: t.seq)


def first_per_flow(tracks: list[Track], incoming: tuple[str, ...]) -> dict[str, Track]:
    """The earliest waiting token on each incoming flow that has one."""
    flows = frozenset(incoming)  # a 1 000-branch join must not cost 1 000 per token
    found: dict[str, Track] = {}
    for track in tracks:
        if track.via in flows and track.via not in found:
            found[track.via] = track
    return found


def parallel_arrival(ctx: StepContext) -> bool:
    """Record the arriving token; fire when every incoming flow holds one (not on a count)."""
    node, track = ctx.node, ctx.track
    arrived = [*waiting_at(ctx.data, track.scope, node.id), track]
    chosen = first_per_flow(arrived, node.incoming)
    if len(chosen) < len(node.incoming):
        ctx.wait("join", flow=track.via)
        return False
    fire(ctx, list(chosen.values()))
    return True


def inclusive_enabled(data: InstanceData, model: FlowScope, gateway: Track) -> list[Track] | None:
    """The spec's OR-join rule (BPMN 2.0.2, 13.3.4), over the tokens of the gateway's scope.

    Enabled when some incoming flow holds a token and no token elsewhere in the scope can
    still reach an empty incoming flow without also being able to reach a full one (paths
    through the gateway itself do not count). Tokens inside a subprocess are represented by
    the token waiting at the subprocess node.
    """
    node = model.nodes[gateway.element]
    waiting = waiting_at(data, gateway.scope, node.id)
    chosen = first_per_flow(waiting, node.incoming)
    if not chosen:
        return None
    full = {model.flows[f].source for f in chosen}
    empty = {model.flows[f].source for f in node.incoming if f not in chosen}
    waiting_ids = {t.id for t in waiting}
    for track in data.live_tracks(gateway.scope):
        if track.id in waiting_ids:
            continue
        reach = model.reachable_avoiding(track.element, node.id)
        if reach & empty and not reach & full:
            return None
    return list(chosen.values())


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
