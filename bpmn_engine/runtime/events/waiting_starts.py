"""An instance created waiting at its start events (`bpmn run`, `bpmn step`, `Engine.start`).

A process whose start events all wait for a trigger (a message, a signal, a timer, a
condition) cannot start by itself, but an instance of it can exist before its trigger comes,
as SpiffWorkflow's and bpmn-engine's instances wait at their start events: a token waits at
each start event, as at a catch event (one subscription or timer per event definition). The
first trigger to come fires its start event, with its variables: the other start events stop
waiting in the same step (their tokens end, and their waits are cancelled with them), and
the token goes on. A parallel multiple start event fires once every one of its definitions
has come (`trigger.trigger` records each arrival until then); a plain multiple one on the
first.

A message start event waits for its message by name alone, as a deployed one does: it
belongs to no conversation yet, so its message's correlation key is not asked for. A timer
start fires on the engine's clock (at once on a virtual clock, which jumps to it); a cycle
fires once, for this one instance: a deployed process (`bpmn deploy`, `bpmn worker`) is what
starts an instance on every firing. A conditional start fires when its condition holds over
the instance's variables: at once when the variables it starts with make it true (the
scheduler checks conditions before anything else moves), else when a change makes it true.
"""

from __future__ import annotations

from bpmn_engine.model import Definitions, EventDefinition, Process, StartEvent
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.lifecycle import TrackState
from bpmn_engine.records.rows import Subscription, Timer, Track
from bpmn_engine.runtime.events.conditional import CONDITIONAL
from bpmn_engine.runtime.events.definition import subscribe
from bpmn_engine.runtime.events.message import MESSAGE
from bpmn_engine.runtime.events.signal import SIGNAL
from bpmn_engine.runtime.events.timer import TIMER
from bpmn_engine.runtime.step.context import Services, StepContext

WAITABLE = frozenset({"message", "signal", "timer", "conditional"})


def waiting_starts(process: Process) -> list[StartEvent]:
    """The start events an instance of `process` is created waiting at: all of them, when
    none is a none start event and each waits for messages, signals, timers or conditions
    only; else none."""
    if process.start_nodes:
        return []
    found = [n for n in process.nodes.values() if isinstance(n, StartEvent)]
    if found and all(n.definitions and set(n.definition_kinds) <= WAITABLE for n in found):
        return found
    return []


def wait_at_starts(
    engine: Services[StepContext],
    definitions: Definitions,
    data: InstanceData,
    step: Step,
    scope: int,
) -> list[Track]:
    """In the opening step: a token waits at each start event of the process, subscribed
    to each of its triggers. Returns the tracks."""
    tracks = []
    for node in waiting_starts(definitions.processes[data.head.process]):
        track = step.new_track(element=node.id, scope=scope, status=TrackState.READY)
        at = StepContext(engine, definitions, data, step, track)
        at.activated()
        wait_at(at, node)
        tracks.append(track)
    return tracks


def wait_at(at: StepContext, node: StartEvent) -> None:
    """The context's token waits at the start event for each of its triggers: in the
    opening step, and when a retry enters it again after an incident (a condition that
    failed to evaluate, say)."""
    waits = [_arm(at, node, definition) for definition in node.definitions]
    if len(waits) > 1:
        at.wait("event", triggers=list(node.definition_kinds))
    elif isinstance(waits[0], Timer):
        at.wait("timer", due=waits[0].due)
    else:
        at.wait(waits[0].kind, name=waits[0].name)


def _arm(at: StepContext, node: StartEvent, definition: EventDefinition) -> Subscription | Timer:
    """One trigger of a start event the instance waits at: a subscription or a timer."""
    if definition.kind == "message":
        name = MESSAGE.awaited(at, node, definition)
        return subscribe(at, node, node.id, "message", name)
    if definition.kind == "signal":
        return SIGNAL.arm(at, node, definition, node.id)
    if definition.kind == "conditional":
        return CONDITIONAL.arm(at, node, definition, node.id)
    timer = TIMER.arm(at, node, definition, node.id)
    if timer.repeat != 0:  # a cycle starts this one instance: its first firing is all
        timer.repeat, timer.interval = 0, None
        cycle = (definition.timer or ("", ""))[1].strip()
        at.step.emit(
            "warning",
            node.id,
            message=f"timer start event {node.id!r} has a cycle ({cycle}): its first firing "
            "starts this run's instance, and it fires no more; a deployed process starts "
            "an instance on every firing (bpmn deploy FILE, then bpmn worker)",
        )
    return timer


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
