"""Wait states the API triggers: a receive task with no message and no name, an intermediate
catch event with no event definition.

Activiti, Flowable and Camunda 7 run such an element as a plain wait state that
`runtimeService.trigger(executionId)` moves on, and bpmn-js-token-simulation waits there for
a click; so does bpmn-engine: the token waits (track wait `trigger`) until
`Instance.trigger` (`bpmn trigger INSTANCE ELEMENT`) moves it on. A receive task that has a
name but no messageRef waits for the message of that name instead (as SpiffWorkflow reads
it), and a message event with neither is refused before the first step (`parse/reader.py`).
"""

from __future__ import annotations

from bpmn_engine.model import Event, FlowNode, Task

TRIGGER = "trigger"
"""The wait of a track at such an element (in `Outcome.waiting_for` as `reason`)."""


def waits_for_trigger(node: FlowNode) -> bool:
    """Whether a token at `node` waits for the API to trigger it: nothing else can."""
    if isinstance(node, Task):
        return node.kind == "receiveTask" and not node.message_ref and not _named(node)
    if isinstance(node, Event):
        return node.kind == "intermediateCatchEvent" and not node.definitions
    return False


def _named(node: FlowNode) -> bool:
    return bool((node.name or "").strip())
