"""Wait states the API triggers: a receive task with no message and no name, an intermediate
catch event with no event definition (or, in a file drawn for no engine, one whose
definition names nothing to wait for: `Event.awaits_trigger`); and, in such a file, a
boundary event or event subprocess start whose definition names nothing, armed as a
subscription of kind `trigger` (`runtime/events/by_api.py`).

Activiti, Flowable and Camunda 7 run such an element as a plain wait state that
`runtimeService.trigger(executionId)` moves on, and bpmn-js-token-simulation waits there for
a click; so does bpmn-engine: the token waits (track wait `trigger`) until
`Instance.trigger` (`bpmn trigger INSTANCE ELEMENT`) moves it on. A receive task that has a
name but no messageRef waits for the message of that name instead (as SpiffWorkflow reads
it), and a message event with neither is refused before the first step (`parse/reader.py`).
After an event-based gateway such an element is one the API chooses: the token waits at the
gateway (wait `trigger` too), and triggering the element takes that path, as the first event
to fire would (as a click on it in the token simulator).
"""

from __future__ import annotations

from dataclasses import dataclass

from bpmn_engine.model import Definitions, FlowNode, IntermediateEvent, Task
from bpmn_engine.records.data import InstanceData
from bpmn_engine.records.lifecycle import SubscriptionState, TrackState

TRIGGER = "trigger"
"""The wait of a track at such an element (in `Outcome.waiting_for` as `reason`)."""


def waits_for_trigger(node: FlowNode) -> bool:
    """Whether a token at `node` waits for the API to trigger it: nothing else can."""
    if isinstance(node, Task):
        return node.kind == "receiveTask" and not node.message_ref and not _named(node)
    if isinstance(node, IntermediateEvent):
        return node.kind == "intermediateCatchEvent" and (
            not node.definitions or node.awaits_trigger
        )
    return False


def _named(node: FlowNode) -> bool:
    return bool((node.name or "").strip())


@dataclass(frozen=True, slots=True)
class TriggerWait:
    """A token the API can move on: the one of `track`, at `element`; or, waiting at the
    event-based `gateway`, into its event `element`; or the boundary event or event
    subprocess start `element` that `subscription` (of `track`, its activity's or listener's)
    arms."""

    track: int
    element: str
    gateway: str | None = None
    subscription: int | None = None


def trigger_waits(definitions: Definitions, data: InstanceData) -> list[TriggerWait]:
    """Every wait of the instance that the API triggers, the oldest token first (a gateway's
    events in the order of its outgoing flows), then the armed events, oldest first."""
    found: list[TriggerWait] = []
    for track in sorted(data.tracks.values(), key=lambda t: t.id):
        if track.status is not TrackState.WAITING or track.wait != TRIGGER:
            continue
        scope = definitions.node_scopes[track.element]
        node = scope.nodes[track.element]
        if node.kind != "eventBasedGateway":
            found.append(TriggerWait(track.id, track.element))
            continue
        for flow in scope.outgoing(node):
            if waits_for_trigger(scope.nodes[flow.target]):
                found.append(TriggerWait(track.id, flow.target, node.id))
    for subscription in sorted(data.subscriptions.values(), key=lambda s: s.id):
        if subscription.kind == TRIGGER and subscription.status is SubscriptionState.WAITING:
            found.append(
                TriggerWait(subscription.track, subscription.element, None, subscription.id)
            )
    return found
