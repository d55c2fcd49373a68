"""One start event fired now, named by its id or its name (`Engine.start(start_event=...)`,
`bpmn run --start EVENT`).

Whatever its kind, as if its trigger had just come: a triggered start event (message,
signal, timer, condition, multiple) completes in the instance's first step and its token
goes on, the history saying what fired it (`message.received`, `signal.received`,
`timer.fired`, `conditional.received`, each with `on_request`); a none start event is where
the instance's one token starts. The variables given are the trigger's payload: a message
start takes them as it takes a message's (its `messageVariable` or data outputs). The
process's other start events do not wait: the instance has started.
"""

from __future__ import annotations

from datetime import datetime

from bpmn_engine.errors import UsageError
from bpmn_engine.model import Definitions, Process, StartEvent
from bpmn_engine.runtime.engine.starts import Trigger
from bpmn_engine.runtime.events.message import message_name
from bpmn_engine.runtime.events.signal import signal_name
from bpmn_engine.runtime.events.waiting_starts import WAITABLE


def _label(node: StartEvent) -> str:
    kinds = "+".join(node.definition_kinds) or "none"
    name = " ".join((node.name or "").split())
    return f"{node.id} ({name!r}, {kinds})" if name else f"{node.id} ({kinds})"


def start_events(process: Process) -> list[StartEvent]:
    """The start events of the process itself (an event subprocess's are not)."""
    return [n for n in process.nodes.values() if isinstance(n, StartEvent)]


def find(
    definitions: Definitions, process_id: str | None, event: str
) -> tuple[Process, StartEvent]:
    """The process and its start event `event` (an id, else a name); without `process_id`,
    in any process of the file. A clear error, listing the start events, when there is no
    such start event, or when a name fits several."""
    processes = (
        [definitions.process(process_id)]
        if process_id is not None
        else [p for p in definitions.processes.values() if p.nodes]
    )
    for process in processes:
        node = process.nodes.get(event)
        if isinstance(node, StartEvent):
            return _startable(definitions, process, node)
    wanted = " ".join(event.split())
    named = [
        (process, node)
        for process in processes
        for node in start_events(process)
        if node.name and " ".join(node.name.split()) == wanted
    ]
    if len(named) == 1:
        return _startable(definitions, *named[0])
    listed = "; ".join(
        f"{process.id}: {', '.join(_label(n) for n in start_events(process)) or 'none'}"
        for process in processes
    )
    if named:
        raise UsageError(
            f"{definitions.path}: {len(named)} start events are named {event!r}: give one's "
            f"id ({', '.join(n.id for _, n in named)})"
        )
    raise UsageError(
        f"{definitions.path}: {_not_a_start(definitions, event)} (start events: {listed})"
    )


def _startable(
    definitions: Definitions, process: Process, node: StartEvent
) -> tuple[Process, StartEvent]:
    """A start event of a kind that starts a process (an error, escalation or compensation
    start belongs in an event subprocess)."""
    other = sorted(set(node.definition_kinds) - WAITABLE)
    if other:
        raise UsageError(
            f"{definitions.path}:{node.line}: {node.id}: it starts on {'/'.join(other)}, "
            "which starts an event subprocess, not a process: it cannot be fired"
        )
    return process, node


def _not_a_start(definitions: Definitions, event: str) -> str:
    """What `event` is instead of a start event of the process asked for."""
    other = definitions.node(event)
    if other is None:
        return f"no start event {event!r}"
    if not isinstance(other, StartEvent):
        return f"{event!r} ({other.kind}) is not a start event"
    holder = definitions.node_scopes[event]
    if isinstance(holder, Process):
        return f"{event!r} is a start event of process {holder.id}, not of the one run"
    return f"{event!r} starts an event subprocess, not the process"


def fired_by(definitions: Definitions, node: StartEvent, now: datetime) -> Trigger:
    """The history event that says what fired a triggered start event on request (a
    multiple one: its first trigger)."""
    definition = node.definitions[0]
    if definition.kind == "message":
        name = message_name(definitions, definition.ref, node)
        return "message.received", {"name": name, "key": None, "on_request": True}
    if definition.kind == "signal":
        name = signal_name(definitions, definition.ref, node)
        return "signal.received", {"name": name, "key": None, "on_request": True}
    if definition.kind == "timer":
        return "timer.fired", {"due": now.isoformat(), "on_request": True}
    return f"{definition.kind}.received", {"name": node.id, "key": None, "on_request": True}
