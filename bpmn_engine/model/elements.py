"""Immutable specs of BPMN elements, as compiled from XML.

Only `parse/` knows XML; everything after it reads these frozen dataclasses. Each carries its
`id` and source `line` so any later error can point back into the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Expression:
    """An expression as written in the diagram; compiled lazily by `bpmn_engine.expressions`."""

    text: str
    language: str | None = None
    line: int | None = None


@dataclass(frozen=True, slots=True)
class SequenceFlow:
    id: str
    source: str
    target: str
    line: int
    name: str | None = None
    condition: Expression | None = None
    is_default: bool = False


@dataclass(frozen=True, slots=True)
class IoParameter:
    """One input or output mapping: `name` receives the value of `expression` (or `value`)."""

    name: str
    expression: Expression | None = None
    value: Any = None


@dataclass(frozen=True, slots=True)
class IoMapping:
    inputs: tuple[IoParameter, ...] = ()
    outputs: tuple[IoParameter, ...] = ()


@dataclass(frozen=True, slots=True)
class FormField:
    """A Camunda `formField` (or Activiti/Flowable `formProperty`): checked on completion."""

    id: str
    label: str | None = None
    type: str | None = None
    default: str | None = None
    values: tuple[str, ...] = ()  # the ids an enum field allows
    constraints: tuple[tuple[str, str | None], ...] = ()  # (name, config): required, min...


@dataclass(frozen=True, slots=True)
class EventDefinition:
    """`kind` is the definition's tag without `EventDefinition` (timer, message, terminate...)."""

    kind: str
    line: int
    id: str | None = None
    ref: str | None = None
    timer: tuple[str, str] | None = None  # (timeDate|timeDuration|timeCycle, text)
    condition: Expression | None = None


@dataclass(frozen=True, slots=True)
class FlowNode:
    """Any node a token can visit. `kind` is the BPMN tag name, e.g. `userTask`."""

    id: str
    kind: str
    line: int
    name: str | None = None
    incoming: tuple[str, ...] = ()
    outgoing: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.kind} {self.id!r}" + (f" ({self.name})" if self.name else "")


@dataclass(frozen=True, slots=True)
class Activity(FlowNode):
    default: str | None = None
    io: IoMapping | None = None
    loop: str | None = None  # "standard" or "multiInstance" when the activity has a marker
    boundary_events: tuple[str, ...] = ()
    is_for_compensation: bool = False


@dataclass(frozen=True, slots=True)
class Task(Activity):
    """Every task kind; `handler_names` are the names a service handler may be registered under."""

    handler_names: tuple[str, ...] = ()
    script: str | None = None
    script_format: str | None = None
    result_variable: str | None = None
    form_fields: tuple[FormField, ...] = ()
    message_ref: str | None = None  # receive (and send) tasks


@dataclass(frozen=True, slots=True)
class SubProcess(Activity):
    """An embedded subprocess (also transaction and ad-hoc): its own scope and graph."""

    scope: Any = field(default=None, compare=False)  # FlowScope; Any avoids an import cycle
    triggered_by_event: bool = False


@dataclass(frozen=True, slots=True)
class CallMapping:
    """A Camunda 7 `camunda:in` or `camunda:out`: one variable (`source`, or the value of
    `expression`) copied as `target`, or every variable (`all`); `local` reads (in) or
    writes (out) only the call activity's own local variables."""

    source: str | None = None
    target: str | None = None
    expression: Expression | None = None
    all: bool = False
    local: bool = False


@dataclass(frozen=True, slots=True)
class CallActivity(Activity):
    """Calls another process as a child instance. `called_element` is a process id or an
    expression (`${...}`, `=...`). Camunda 7 `camunda:in`/`out` are `ins`/`outs`; Zeebe's
    `propagateAll...` flags say whether every variable goes in and comes back."""

    called_element: str | None = None
    ins: tuple[CallMapping, ...] = ()
    outs: tuple[CallMapping, ...] = ()
    propagate_parent: bool = True
    propagate_child: bool = True


@dataclass(frozen=True, slots=True)
class Gateway(FlowNode):
    default: str | None = None
    direction: str | None = None


@dataclass(frozen=True, slots=True)
class Event(FlowNode):
    definitions: tuple[EventDefinition, ...] = ()

    @property
    def definition_kinds(self) -> tuple[str, ...]:
        return tuple(d.kind for d in self.definitions)


@dataclass(frozen=True, slots=True)
class StartEvent(Event):
    interrupting: bool = True


@dataclass(frozen=True, slots=True)
class EndEvent(Event):
    pass


@dataclass(frozen=True, slots=True)
class IntermediateEvent(Event):
    """intermediateThrowEvent or intermediateCatchEvent (told apart by `kind`)."""


@dataclass(frozen=True, slots=True)
class BoundaryEvent(Event):
    attached_to: str = ""
    cancel_activity: bool = True
