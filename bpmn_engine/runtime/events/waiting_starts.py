"""An instance created waiting at its start events (`bpmn run`, `bpmn step`, `Engine.start`).

A process whose start events all wait for a message or a signal cannot start by itself, but
an instance of it can exist before its trigger comes, as Camunda's and Zeebe's deployed
processes wait: a token waits at each start event, as at a catch event (one subscription
per event definition). The first trigger to come fires its start event, with its variables:
the other start events stop waiting in the same step (their tokens end, and their
subscriptions are cancelled with them), and the token goes on. A parallel multiple start
event fires once every one of its definitions has come (`trigger.trigger` records each
arrival until then); a plain multiple one on the first.

A message start event waits for its message by name alone, as a deployed one does: it
belongs to no conversation yet, so its message's correlation key is not asked for.
"""

from __future__ import annotations

from bpmn_engine.model import Definitions, Process, StartEvent
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Subscription, Track
from bpmn_engine.runtime.context import Services, StepContext
from bpmn_engine.runtime.events.definition import subscribe
from bpmn_engine.runtime.events.message import MESSAGE
from bpmn_engine.runtime.events.signal import SIGNAL

WAITABLE = frozenset({"message", "signal"})


def waiting_starts(process: Process) -> list[StartEvent]:
    """The start events an instance of `process` is created waiting at: all of them, when
    none is a none start event and each waits for messages or signals only; else none (a
    timer or conditional start is left to a deployment)."""
    if process.start_nodes:
        return []
    found = [n for n in process.nodes.values() if isinstance(n, StartEvent)]
    if found and all(n.definitions and set(n.definition_kinds) <= WAITABLE for n in found):
        return found
    return []


def wait_at_starts(
    engine: Services, definitions: Definitions, data: InstanceData, step: Step, scope: int
) -> list[Track]:
    """In the opening step: a token waits at each start event of the process, subscribed
    to each of its triggers. Returns the tracks."""
    tracks = []
    for node in waiting_starts(definitions.processes[data.head.process]):
        track = step.new_track(element=node.id, scope=scope, status=TrackState.READY)
        at = StepContext(engine, definitions, data, step, track)
        at.activated()
        waits: list[Subscription] = []
        for definition in node.definitions:
            if definition.kind == "message":
                name = MESSAGE.awaited(at, node, definition)
                waits.append(subscribe(at, node, node.id, "message", name))
            else:
                waits.append(SIGNAL.arm(at, node, definition, node.id))
        if len(waits) > 1:
            at.wait("event", triggers=list(node.definition_kinds))
        else:
            at.wait(waits[0].kind, name=waits[0].name)
        tracks.append(track)
    return tracks


def is_process_start(ctx: StepContext, event: StartEvent) -> bool:
    """Whether `event` starts the process itself (not an event subprocess)."""
    return isinstance(ctx.definitions.node_scopes.get(event.id), Process)


def fired(ctx: StepContext, event: StartEvent) -> None:
    """`event` fired for the context's token: the tokens still waiting at the other start
    events end (their subscriptions are cancelled with them), and this one leaves."""
    process = ctx.definitions.node_scopes[event.id]
    for track in sorted(ctx.data.live_tracks(ctx.track.scope), key=lambda t: t.id):
        if track.id == ctx.track.id or track.status is not TrackState.WAITING:
            continue
        if isinstance(process.nodes.get(track.element), StartEvent):
            other = ctx.for_track(track)
            ctx.step.touch_track(track)
            other.behaviour(other.node).terminate(other)
            track.move(TrackState.TERMINATED)
    ctx.behaviour(event).complete(ctx)
