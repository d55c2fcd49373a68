"""Triggered starts: deploying processes whose start events wait for a timer or a message.

A deployed process waits like an instance does, as rows: a start timer with its next due time,
or a start subscription with its message name. When the trigger comes (the worker finds the
timer due, `publish_message` finds nobody else waiting), an instance starts *at* that start
event, as if the event had just fired: the start event completes in the first step and the
token waits on its outgoing flows, so the start event's own behaviour (which refuses triggered
events) never runs.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bpmn_engine.errors import ExpressionError, LoadError, UsageError
from bpmn_engine.model import Definitions, FlowNode, Process
from bpmn_engine.model.elements import Event, EventDefinition, Gateway, StartEvent
from bpmn_engine.records.data import InstanceData, InstanceHead, Step
from bpmn_engine.records.lifecycle import InstanceState, StartTimerState, TrackState
from bpmn_engine.records.rows import Receipt
from bpmn_engine.runtime.behaviours.base import FlowNodeBehaviour
from bpmn_engine.runtime.behaviours.subprocesses import unarmed_event_subprocesses
from bpmn_engine.runtime.engine.precheck import check_process
from bpmn_engine.runtime.engine.services import StartServices, Trigger
from bpmn_engine.runtime.events import subprocesses
from bpmn_engine.runtime.events.message import MESSAGE, message_name
from bpmn_engine.runtime.events.payloads import caught, maps_outputs
from bpmn_engine.runtime.events.signal import signal_name
from bpmn_engine.runtime.events.start_timers import timer_text
from bpmn_engine.runtime.events.timers import TimerValueError, schedule
from bpmn_engine.runtime.instance.instance import Instance
from bpmn_engine.runtime.instance.parts import Listener, checked_variables
from bpmn_engine.runtime.step.context import Incident, StepContext


@dataclass(frozen=True)
class StartTimer:
    """A timer start event's schedule: first due, firings left after it (-1: forever)."""

    element: str
    due: datetime
    repeat: int
    interval: float | None


@dataclass(frozen=True)
class Deployment:
    """What `bpmn deploy` did for one process."""

    process: str
    version: str
    id: int
    previous: int | None  # the deployment this one replaced (== id: unchanged)
    changed: bool
    timers: tuple[StartTimer, ...]
    messages: tuple[tuple[str, str], ...]  # (start event, message name)
    untriggered: tuple[str, ...]  # start events of kinds nothing starts yet (conditional...)
    signals: tuple[tuple[str, str], ...] = ()  # (start event, signal name)

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "process.deployed" if self.changed else "process.unchanged",
            "process": self.process,
            "definition": self.version,
            "deployment": self.id,
            "replaces": self.previous if self.changed else None,
            "start_timers": [
                {
                    "element": t.element,
                    "due": t.due.isoformat(),
                    "repeat": t.repeat,
                    "interval": t.interval,
                }
                for t in self.timers
            ],
            "message_starts": [{"element": e, "name": n} for e, n in self.messages],
            "signal_starts": [{"element": e, "name": n} for e, n in self.signals],
            "not_started_by_triggers": list(self.untriggered),
        }


def deploy(engine: StartServices, definitions: Definitions) -> list[Deployment]:
    """Store the definitions and make each executable process the active deployment."""
    processes = [p for p in definitions.processes.values() if p.is_executable and p.nodes]
    if not processes:
        raise UsageError(f"{definitions.path}: no executable process to deploy")
    now = engine.clock.now()
    plans = []
    for process in processes:  # everything is checked before anything is recorded
        check_process(definitions, process, engine.trust_scripts)
        engine.check_decisions(definitions, process)
        engine.check_called_compensation(definitions, process)
        plans.append((process, *_triggers(definitions, process, now)))
    engine.deploy(definitions)
    deployments = []
    for process, timers, messages, signals, untriggered in plans:
        rows = [(t.element, t.due, t.repeat, t.interval) for t in timers]
        deployment, previous, changed = engine.store.record_deployment(
            process.id, definitions.version, now, rows, list(messages), list(signals)
        )
        if not changed:  # the timers already running, not a new plan
            timers = [
                StartTimer(
                    r["element"], datetime.fromisoformat(r["due"]), r["repeat"], r["interval"]
                )
                for r in engine.store.start_timers(deployment)
                if r["status"] == StartTimerState.WAITING
            ]
        deployments.append(
            Deployment(
                process.id,
                definitions.version,
                deployment,
                previous,
                changed,
                tuple(timers),
                tuple(messages),
                tuple(untriggered),
                tuple(signals),
            )
        )
    return deployments


def opening_step(
    definitions: Definitions,
    process: Process,
    instance_id: str,
    variables: Mapping[str, Any] | None,
    warnings: list[tuple[str, str]],
    business_key: str | None = None,
    **started: Any,
) -> tuple[InstanceData, Step, Any]:
    """The first step of every new instance: its row, its process scope and variables, the
    `instance.started` event and the warnings; the caller places the first tokens."""
    head = InstanceHead(id=instance_id, definition=definitions.version, process=process.id)
    head.business_key = business_key
    if business_key is not None:
        started["business_key"] = business_key
    data = InstanceData(head)
    step = Step(data)
    step.set_state(InstanceState.ACTIVE)
    scope = step.new_scope(process.id, None, None)
    values = checked_variables(dict(variables or {}))
    for name, line in process.inputs:
        if name not in values:
            raise LoadError(
                f"the process requires data input {name!r}: start it with a value for "
                f"{name!r} (bpmn run --var {name}=...)",
                file=definitions.path,
                line=line,
                element_id=process.id,
            )
    for name in process.variables:  # its data objects and properties: declared, not given
        if name not in values:
            step.set_value(scope.id, name, None)
    for name, value in values.items():
        step.set_value(scope.id, name, value)
    step.emit(
        "instance.started",
        process.id,
        process=process.id,
        definition=definitions.version,
        variables=copy.deepcopy(values),
        **started,
    )
    if not process.is_executable:
        step.emit(
            "warning",
            process.id,
            message='the process is marked isExecutable="false"; running it anyway',
        )
    for element, message in warnings:
        step.emit("warning", element, message=message)
    return data, step, scope


def _triggers(
    definitions: Definitions, process: Process, now: datetime
) -> tuple[list[StartTimer], list[tuple[str, str]], list[tuple[str, str]], list[str]]:
    timers: list[StartTimer] = []
    messages: list[tuple[str, str]] = []
    signals: list[tuple[str, str]] = []
    untriggered: list[str] = []
    for node, definition in _start_triggers(definitions, process):
        if definition.kind == "timer" and definition.timer:
            kind, text = definition.timer
            try:
                plan = schedule(kind, timer_text(text, definition.timer_language), now)
            except (TimerValueError, ExpressionError) as error:
                raise LoadError(
                    f"timer start event: {error}",
                    file=definitions.path,
                    line=definition.line or node.line,
                    element_id=node.id,
                ) from None
            interval = plan.interval.total_seconds() if plan.interval else None
            timers.append(StartTimer(node.id, plan.due.astimezone(UTC), plan.repeat, interval))
        elif definition.kind == "message":
            name = message_name(definitions, definition.ref, node)
            if not name:
                raise LoadError(
                    "message start event names no message",
                    file=definitions.path,
                    line=node.line,
                    element_id=node.id,
                )
            messages.append((node.id, name))
        elif definition.kind == "signal" and (
            signal := signal_name(definitions, definition.ref, node)
        ):
            signals.append((node.id, signal))
        else:
            untriggered.append(node.id)
    return timers, messages, signals, untriggered


def _start_triggers(
    definitions: Definitions, process: Process
) -> list[tuple[Event, EventDefinition]]:
    """(start event, definition) for each trigger of each triggered start event: a multiple
    start event is started by any one of its definitions, so each is registered."""
    found = []
    for node in process.nodes.values():
        if not isinstance(node, StartEvent) or not node.definitions:
            continue
        if node.parallel_multiple and len(node.definitions) > 1:
            raise LoadError(
                "a parallel multiple start event of a deployed process would need every one "
                "of its triggers before an instance starts; that is not supported (use a "
                "multiple start event, or a parallel multiple catch event after a start; "
                "`bpmn run` creates an instance that waits at it for every trigger)",
                file=definitions.path,
                line=node.line,
                element_id=node.id,
            )
        found += [(node, definition) for definition in node.definitions]
    for gateway in process.nodes.values():  # an instantiating event-based gateway
        if isinstance(gateway, Gateway) and gateway.instantiate and not gateway.incoming:
            for flow in process.outgoing(gateway):
                event = process.nodes[flow.target]
                if isinstance(event, Event):
                    found += [(event, definition) for definition in event.definitions]
    return found


def starts_instances(process: Process, element: str) -> bool:
    """Whether an instance may start at `element`: a start event, or a catch event after an
    event-based gateway with `instantiate="true"` and no incoming flow (spec 13.4.4)."""
    node = process.nodes.get(element)
    if isinstance(node, StartEvent):
        return True
    return isinstance(node, Event) and any(
        isinstance(source := process.nodes[process.flows[f].source], Gateway)
        and source.instantiate
        and not source.incoming
        for f in node.incoming
    )


def start_at(
    engine: StartServices,
    definitions: Definitions,
    process_id: str | None,
    start_event_id: str,
    variables: Mapping[str, Any] | None,
    on_event: Listener | None,
    *,
    instance_id: str,
    trigger: Trigger | None = None,
    receipt: Receipt | None = None,
    claimed: str | None = None,
    warnings: list[tuple[str, str]] | None = None,
    business_key: str | None = None,
) -> Instance:
    """Create the instance `instance_id`, whose start event `start_event_id` has just fired
    (`claimed`: the buffered message it consumes, taken in the same commit; `warnings`: what
    the start repeats, by default the event subprocesses it cannot arm).

    An id that exists already fails the commit with `ConcurrentModification`: that is how a
    start timer's firing, whose id is fixed, starts one instance however many workers fire it.
    """
    process = definitions.process(process_id)
    if not starts_instances(process, start_event_id):
        starts = [n.id for n in process.nodes.values() if isinstance(n, StartEvent)]
        raise UsageError(
            f"{definitions.path}: {process.id} has no start event {start_event_id!r} "
            f"(its start events: {', '.join(starts) or 'none'})"
        )
    check_process(definitions, process, engine.trust_scripts)
    engine.check_called_compensation(definitions, process)
    engine.deploy(definitions)
    payload = dict(variables or {})
    by_message = trigger is not None and trigger[0] == "message.received"
    start_event = process.nodes[start_event_id]
    mapped = _maps(start_event, by_message)  # set once the step can evaluate its mappings
    if mapped:
        variables = None
    elif by_message:  # the message's payload, as the start event takes it
        variables = MESSAGE.taken(start_event, payload)
    data, step, scope = opening_step(
        definitions,
        process,
        instance_id,
        variables,
        unarmed_event_subprocesses(process) if warnings is None else warnings,
        business_key,
        start_event=start_event_id,
    )
    track = step.new_track(element=start_event_id, scope=scope.id, status=TrackState.READY)
    ctx = StepContext(engine, definitions, data, step, track)
    ctx.activated()
    if trigger is not None:
        step.emit(trigger[0], start_event_id, track.id, **trigger[1])
    try:
        if mapped and by_message:
            ctx.set_variables(MESSAGE.taken(start_event, payload, ctx))
        elif mapped:  # a timer brings nothing; a signal (or `--start`) its variables
            timer = trigger is not None and trigger[0] == "timer.fired"
            ctx.set_variables(caught(ctx, start_event, None if timer else payload))
        elif isinstance(start_event, Event) and not start_event.definitions:
            ctx.set_variables(caught(ctx, start_event, None))  # a none start's outputs
    except Incident as incident:
        raise UsageError(f"{definitions.path}: {start_event_id}: {incident.message}") from None
    if by_message:  # the message that began the conversation keys its later messages
        MESSAGE.remember_received(ctx, start_event, payload)
    try:  # the plain flow-node behaviour: complete, take the outgoing flows
        subprocesses.listen(ctx, scope.id, process)
        FlowNodeBehaviour().complete(ctx)
    except Incident as incident:
        raise UsageError(f"{definitions.path}: {start_event_id}: {incident.message}") from None
    step.receive(receipt)  # the message or signal that started it, received once
    if claimed is not None:
        step.claimed_messages.append(claimed)
    instance = Instance(engine, data, definitions)
    instance._commit(step, on_event, new=True)
    return instance


def _maps(start_event: FlowNode, by_message: bool) -> bool:
    """Whether the start event's own mappings decide what its trigger sets: output mappings
    (a message start's on its message: `events/message.py`), or data outputs."""
    if not getattr(start_event, "definitions", ()):
        return False  # a none start: its variables are the instance's, then its outputs
    if by_message:
        return any(
            d.kind == "message" and (d.writes or (d.io is not None and d.io.outputs))
            for d in getattr(start_event, "definitions", ())
        )
    return maps_outputs(start_event)
