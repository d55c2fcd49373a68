"""Immutable specs of BPMN elements, as compiled from XML.

Only `parse/` knows XML; everything after it reads these specs and never changes them. Each
carries its `id` and source `line` so any later error can point back into the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar, dataclass_transform

from bpmn_engine.model.retries import RetryPolicy

_Spec = TypeVar("_Spec")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def spec(cls: type[_Spec]) -> type[_Spec]:
    """A slotted dataclass, hashed by its fields like a frozen one, that nothing changes once
    built: a type checker treats it as frozen (`frozen_default`), but it is not frozen at run
    time. A frozen class refuses its own `__setattr__`, so its `__init__` stores each field
    through `object.__setattr__`, and for a task's 25 fields that made loading a file about
    a quarter slower (bench/load_compare.py); a plain slotted class stores them as plain
    attribute writes. Change a spec with `dataclasses.replace`.
    """
    return dataclass(slots=True, unsafe_hash=True)(cls)


@spec
class Expression:
    """An expression as written in the diagram; compiled lazily by `bpmn_engine.expressions`."""

    text: str
    language: str | None = None
    line: int | None = None


@spec
class Listener:
    """Code run on one lifecycle event of an element: a Camunda execution or task listener, a
    Zeebe listener job, or a SpiffWorkflow pre-/post-script (docs/listeners.md).

    `event` is the engine's name for the moment (start, end, take, create, complete, delete);
    exactly one of `script` (sandboxed Python), `expression` (JUEL run for its effect) and
    `handler_names` (a handler by class, bean or job type) says what runs. `fields` are the
    `camunda:field` values a handler receives (an Expression is evaluated at the call).
    """

    event: str
    line: int
    source: str  # as written: "camunda:executionListener", "spiffworkflow:preScript"...
    script: Expression | None = None
    expression: Expression | None = None
    handler_names: tuple[str, ...] = ()
    fields: tuple[tuple[str, Expression | str], ...] = ()

    @property
    def label(self) -> str:
        return f"{self.source} ({self.event}, line {self.line})"


@spec
class SequenceFlow:
    id: str
    source: str
    target: str
    line: int
    name: str | None = None
    condition: Expression | None = None
    is_default: bool = False
    listeners: tuple[Listener, ...] = ()  # run when the flow is taken


@spec
class IoParameter:
    """One input or output mapping: `name` receives the value of `expression` (or `value`)."""

    name: str
    expression: Expression | None = None
    value: Any = None


@spec
class IoMapping:
    inputs: tuple[IoParameter, ...] = ()
    outputs: tuple[IoParameter, ...] = ()
    zeebe: bool = False  # written as `zeebe:ioMapping` (a Zeebe signal carries its inputs)


@spec
class FormField:
    """A Camunda `formField` (or Activiti/Flowable `formProperty`): checked on completion."""

    id: str
    label: str | None = None
    type: str | None = None
    default: str | None = None
    values: tuple[str, ...] = ()  # the ids an enum field allows
    constraints: tuple[tuple[str, str | None], ...] = ()  # (name, config): required, min...


@dataclass(frozen=True, slots=True)
class Assignment:
    """Who a user task is for: Camunda 7 (Activiti, Flowable) `assignee`, `candidateUsers`
    and `candidateGroups`, Zeebe's `assignmentDefinition`, BPMN's `humanPerformer` and
    `potentialOwner`. Each entry is a name, or an `Expression` (`${...}`, `#{...}`, `=...`,
    or text with `${...}` in it) evaluated over the variables when the task is created. The
    engine records them for the task list (`Engine.tasks`), and never enforces them."""

    assignee: str | Expression | None = None
    candidate_users: tuple[str | Expression, ...] = ()
    candidate_groups: tuple[str | Expression, ...] = ()


@spec
class EventDefinition:
    """`kind` is the definition's tag without `EventDefinition` (timer, message, terminate...)."""

    kind: str
    line: int
    id: str | None = None
    ref: str | None = None
    timer: tuple[str, str] | None = None  # (timeDate|timeDuration|timeCycle, text)
    condition: Expression | None = None
    timer_language: str | None = None  # of a timer value that is an expression
    wait_for_completion: bool = True  # a compensate throw waits for its handlers
    # a message's payload (SpiffWorkflow messagePayload) and the variable a catch puts the
    # payload in (messageVariable; without one, the payload's fields become variables)
    payload: Expression | None = None
    message_variable: str | None = None
    # a message event's data associations: a throw's inputs make the message, a catch's
    # outputs take it (DataAssociation is defined below; the annotations are strings)
    reads: tuple[DataAssociation, ...] = ()
    writes: tuple[DataAssociation, ...] = ()
    io: IoMapping | None = None  # Camunda/Zeebe: a throw's inputs, a catch's outputs
    # the name an engine's extension gives in place of the message's (Activiti's and
    # Flowable's `messageExpression`), an expression evaluated when the event is reached
    name: str | None = None
    # Camunda 7's variables a catch puts what it caught in: `errorCodeVariable` (and
    # `escalationCodeVariable`), `errorMessageVariable`
    code_variable: str | None = None
    error_message_variable: str | None = None


@spec
class Refusal:
    """Something in the diagram that would change how it runs and that the engine cannot
    honour: refused before the first step (`bpmn run`) and by `bpmn validate`."""

    element: str
    line: int
    message: str


@spec
class DataAssociation:
    """A `dataInputAssociation` or `dataOutputAssociation`, its ends resolved to variable
    names (a data object reference to its data object's id; inputs, outputs and properties
    by their id, as SpiffWorkflow names them)."""

    id: str
    line: int
    source: str | None  # the variable read; None when assignments say what is read
    target: str  # the variable written
    transformation: Expression | None = None
    assignments: tuple[tuple[Expression, str], ...] = ()  # (from, the variable `to` names)
    # a data store (docs/data-stores.md): read from (its value visible as `source`), or
    # written to (what `target` would get goes to the store instead)
    source_store: str | None = None
    target_store: str | None = None


@spec
class ActivityData:
    """An activity's `ioSpecification`, `property` elements and data associations."""

    inputs: tuple[str, ...] = ()  # data inputs: each must have a value when the activity starts
    outputs: tuple[str, ...] | None = None  # data outputs: when given, only these come back
    properties: tuple[str, ...] = ()  # local variables of the activity, None at its start
    reads: tuple[DataAssociation, ...] = ()
    writes: tuple[DataAssociation, ...] = ()


@spec
class FlowNode:
    """Any node a token can visit. `kind` is the BPMN tag name, e.g. `userTask`."""

    id: str
    kind: str
    line: int
    name: str | None = None
    incoming: tuple[str, ...] = ()
    outgoing: tuple[str, ...] = ()
    listeners: tuple[Listener, ...] = ()  # run on its start and end (tasks: create, complete)

    @property
    def label(self) -> str:
        return f"{self.kind} {self.id!r}" + (f" ({self.name})" if self.name else "")


@spec
class MultiInstance:
    """`multiInstanceLoopCharacteristics`, in whichever dialect it was written.

    `collection` yields the items (BPMN `loopDataInputRef`, Camunda 7 `camunda:collection`,
    Zeebe `inputCollection`), `element_variable` names each inner instance's item;
    `output_collection` gathers `output_element` of each inner instance, in input order.
    `dialect` ("bpmn", "camunda", "zeebe", or "spiff": plain BPMN in a file that declares
    SpiffWorkflow's namespace) decides where `loopCounter` starts and, for "spiff", how dict
    collections, existing output collections and a cardinality's items are read.
    `refused` says what the engine cannot run (checked before the first step).
    """

    line: int
    sequential: bool = False
    cardinality: Expression | None = None
    collection: Expression | None = None
    element_variable: str | None = None
    output_collection: str | None = None
    output_element: Expression | None = None
    completion: Expression | None = None
    dialect: str = "bpmn"
    refused: str | None = None


@spec
class StandardLoop:
    """`standardLoopCharacteristics`: repeat while `condition` holds (tested after each
    iteration, or before it with `test_before`), at most `maximum` times."""

    line: int
    condition: Expression | None = None
    test_before: bool = False
    maximum: int | None = None
    refused: str | None = None


@spec
class Activity(FlowNode):
    default: str | None = None
    io: IoMapping | None = None
    loop: str | None = None  # "standard" or "multiInstance" when the activity has a marker
    loop_characteristics: MultiInstance | StandardLoop | None = None
    boundary_events: tuple[str, ...] = ()
    is_for_compensation: bool = False
    data: ActivityData | None = None
    # the isForCompensation activity its compensation boundary event is associated with
    compensation_handler: str | None = None


@spec
class DecisionCall:
    """A business rule task's DMN decision: Camunda 7 `camunda:decisionRef` (with
    `resultVariable` and `mapDecisionResult`) or Zeebe `zeebe:calledDecision` (`decisionId`,
    `resultVariable`) or SpiffWorkflow `spiffworkflow:calledDecisionId`. `mapping` is
    Camunda's (singleEntry, singleResult, collectEntries, resultList), "value" (Zeebe: the
    decision's value as it is) or "spiff" (the outputs become variables by name)."""

    decision: str
    result_variable: str | None
    mapping: str
    line: int


@spec
class Task(Activity):
    """Every task kind; `handler_names` are the names a service handler may be registered under."""

    handler_names: tuple[str, ...] = ()
    script: str | None = None
    script_format: str | None = None
    result_variable: str | None = None
    form_fields: tuple[FormField, ...] = ()
    message_ref: str | None = None  # receive (and send) tasks
    headers: tuple[tuple[str, str], ...] = ()  # zeebe:taskHeaders, given to handlers
    decision: DecisionCall | None = None  # a business rule task that evaluates a DMN decision
    # a task or manual task that waits for a person as a user task does (SpiffWorkflow's)
    waits_for_person: bool = False
    # jBPM's work item name (`drools:taskName`): a `task` with one calls its handler
    work_item: str | None = None
    assignment: Assignment | None = None  # a user task's assignee and candidates
    # how often its handler is tried (`model/retries.py`); None: the engine's default
    retry: RetryPolicy | None = None


@spec
class SubProcess(Activity):
    """An embedded subprocess (also transaction and ad-hoc): its own scope and graph."""

    scope: Any = field(default=None, compare=False)  # FlowScope; Any avoids an import cycle
    triggered_by_event: bool = False


@spec
class AdHocSubProcess(SubProcess):
    """An ad-hoc subprocess: its inner activities without incoming flows run when activated
    (by a person, or by Zeebe's `activeElementsCollection` on entry), not from a start event.
    `sequential`: one inner activity at a time (`ordering="Sequential"`)."""

    sequential: bool = False
    cancel_remaining: bool = True
    completion: Expression | None = None
    active_elements: Expression | None = None  # zeebe:adHoc activeElementsCollection

    @property
    def activatable(self) -> tuple[str, ...]:
        """The inner activities a person may activate: those no sequence flow leads to."""
        return tuple(
            node.id
            for node in self.scope.nodes.values()
            if isinstance(node, Activity)
            and not node.incoming
            and not node.is_for_compensation
            and not getattr(node, "triggered_by_event", False)
        )


@spec
class CallMapping:
    """A Camunda 7 `camunda:in` or `camunda:out`: one variable (`source`, or the value of
    `expression`) copied as `target`, or every variable (`all`); `local` reads (in) or
    writes (out) only the call activity's own local variables."""

    source: str | None = None
    target: str | None = None
    expression: Expression | None = None
    all: bool = False
    local: bool = False


@spec
class CallActivity(Activity):
    """Calls another process as a child instance. `called_element` is a process id or an
    expression (`${...}`, `=...`). Camunda 7 `camunda:in`/`out` are `ins`/`outs`; Zeebe's
    `propagateAll...` flags say whether every variable goes in and comes back. `binding`
    (Camunda `calledElementBinding`, Zeebe `bindingType`) says which definitions of the
    process are called: "latest", "deployment" or "version" (with `version`, 1-based).
    `business_key`: Camunda's `<camunda:in businessKey="..."/>`, the called instance's
    business key."""

    called_element: str | None = None
    ins: tuple[CallMapping, ...] = ()
    outs: tuple[CallMapping, ...] = ()
    propagate_parent: bool = True
    propagate_child: bool = True
    binding: str = "latest"
    version: int | None = None
    business_key: Expression | None = None

    @property
    def passes_business_key(self) -> bool:
        """Camunda's idiom `#{execution.processBusinessKey}`: the caller's own key."""
        text = self.business_key.text if self.business_key is not None else ""
        return text[:2] in ("${", "#{") and text[2:-1].strip() == "execution.processBusinessKey"


@spec
class Gateway(FlowNode):
    default: str | None = None
    direction: str | None = None
    # an event-based gateway that starts the process: each event after it is a start trigger
    instantiate: bool = False


@spec
class ComplexGateway(Gateway):
    """A complex gateway: fires when `activation` holds over the tokens that arrived
    (`runtime/behaviours/complex_gateway.py`); without one, when every incoming flow has one."""

    activation: Expression | None = None


@spec
class Event(FlowNode):
    definitions: tuple[EventDefinition, ...] = ()
    # with several definitions: all of them must trigger (parallel multiple), not any one
    parallel_multiple: bool = False
    # Camunda/Zeebe mappings: a throw's inputs (its locals) and any event's outputs (what
    # it sets when it completes or fires: `runtime/events/payloads.py`); its data
    # associations when no message definition takes them (a throw's inputs are the data it
    # carries, a catch's outputs read the data that came)
    io: IoMapping | None = None
    reads: tuple[DataAssociation, ...] = ()
    writes: tuple[DataAssociation, ...] = ()
    # a catch (intermediate, boundary, event subprocess start) whose one definition names
    # nothing to wait for (a message or signal with no reference and no name, a timer with
    # no value, a condition with none), in a file drawn for no engine: the API triggers it
    # (`bpmn trigger`), as the token simulator waits for a click; Camunda and Zeebe refuse
    # such a diagram, and so do their files here
    awaits_trigger: bool = False

    @property
    def definition_kinds(self) -> tuple[str, ...]:
        return tuple(d.kind for d in self.definitions)


@spec
class StartEvent(Event):
    interrupting: bool = True


@spec
class EndEvent(Event):
    pass


@spec
class IntermediateEvent(Event):
    """intermediateThrowEvent or intermediateCatchEvent (told apart by `kind`)."""


@spec
class BoundaryEvent(Event):
    attached_to: str = ""
    cancel_activity: bool = True
