"""Immutable specs of BPMN elements, as compiled from XML.

Only `parse/` knows XML; everything after it reads these frozen dataclasses. Each carries its
`id` and source `line` so any later error can point back into the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, TypeVar

from bpmn_engine.model.retries import RetryPolicy

_Spec = TypeVar("_Spec")


@dataclass(frozen=True, slots=True)
class Expression:
    """An expression as written in the diagram; compiled lazily by `bpmn_engine.expressions`."""

    text: str
    language: str | None = None
    line: int | None = None


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class SequenceFlow:
    id: str
    source: str
    target: str
    line: int
    name: str | None = None
    condition: Expression | None = None
    is_default: bool = False
    listeners: tuple[Listener, ...] = ()  # run when the flow is taken


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
    zeebe: bool = False  # written as `zeebe:ioMapping` (a Zeebe signal carries its inputs)


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


@dataclass(frozen=True, slots=True)
class Refusal:
    """Something in the diagram that would change how it runs and that the engine cannot
    honour: refused before the first step (`bpmn run`) and by `bpmn validate`."""

    element: str
    line: int
    message: str


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class ActivityData:
    """An activity's `ioSpecification`, `property` elements and data associations."""

    inputs: tuple[str, ...] = ()  # data inputs: each must have a value when the activity starts
    outputs: tuple[str, ...] | None = None  # data outputs: when given, only these come back
    properties: tuple[str, ...] = ()  # local variables of the activity, None at its start
    reads: tuple[DataAssociation, ...] = ()
    writes: tuple[DataAssociation, ...] = ()


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class StandardLoop:
    """`standardLoopCharacteristics`: repeat while `condition` holds (tested after each
    iteration, or before it with `test_before`), at most `maximum` times."""

    line: int
    condition: Expression | None = None
    test_before: bool = False
    maximum: int | None = None
    refused: str | None = None


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class DecisionCall:
    """A business rule task's DMN decision: Camunda 7 `camunda:decisionRef` (with
    `resultVariable` and `mapDecisionResult`) or Zeebe `zeebe:calledDecision` (`decisionId`,
    `resultVariable`). `mapping` is Camunda's (singleEntry, singleResult, collectEntries,
    resultList) or "value" (Zeebe: the decision's value as it is)."""

    decision: str
    result_variable: str | None
    mapping: str
    line: int


@dataclass(frozen=True, slots=True)
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
    # how often its handler is tried (`model/retries.py`); None: the engine's default
    retry: RetryPolicy | None = None


@dataclass(frozen=True, slots=True)
class SubProcess(Activity):
    """An embedded subprocess (also transaction and ad-hoc): its own scope and graph."""

    scope: Any = field(default=None, compare=False)  # FlowScope; Any avoids an import cycle
    triggered_by_event: bool = False


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Gateway(FlowNode):
    default: str | None = None
    direction: str | None = None
    # an event-based gateway that starts the process: each event after it is a start trigger
    instantiate: bool = False


@dataclass(frozen=True, slots=True)
class ComplexGateway(Gateway):
    """A complex gateway: fires when `activation` holds over the tokens that arrived
    (`runtime/behaviours/complex_gateway.py`); without one, when every incoming flow has one."""

    activation: Expression | None = None


@dataclass(frozen=True, slots=True)
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


_BUILDERS: dict[type, Callable[..., Any]] = {}


def builder(cls: type[_Spec]) -> Callable[..., _Spec]:
    """A function that makes a spec of `cls` from its fields in their order, as `cls(...)`
    does by position, in two thirds of the time: the reader makes thousands per file."""
    return _BUILDERS[cls]


def _store_through_slots(cls: type) -> None:
    """Give a frozen slotted dataclass an `__init__` that stores its fields as a mutable
    class would, in a fraction of the time, and a `builder` that does it faster still.

    The generated one stores each field through `object.__setattr__` (a frozen class refuses
    its own `__setattr__`), and even each slot's own `__set__` costs a call per field: for a
    task's 23 fields that was most of the time to build it, and building the specs was a
    third of loading a file. So the new instance is switched to a twin subclass that adds no
    slot and keeps `object`'s `__setattr__` (the same memory layout: CPython lets
    `__class__` change between the two), its fields are plain attribute stores, and it is
    switched back. Same parameters, defaults and result; the class stays frozen afterwards.
    An instance of a subclass (which may add a `__dict__`) is stored through the slots.
    The builder makes the instance as a twin in the first place (one switch, no `__init__`
    lookup), by position only.
    """
    parameters: list[str] = []
    body: list[str] = []
    slow: list[str] = []
    twin = type(
        f"_Building{cls.__name__}",
        (cls,),
        {
            "__slots__": (),
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
            "__module__": cls.__module__,
        },
    )
    namespace: dict[str, Any] = {"_cls": cls, "_twin": twin, "_type": type}
    namespace["_switch"] = object.__setattr__
    namespace["_new"] = object.__new__
    for spec in fields(cls):
        if not spec.init or spec.kw_only or spec.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{spec.name}: only plain fields are stored so")
        if spec.default is MISSING:
            parameters.append(spec.name)
        else:
            namespace[f"_default_{spec.name}"] = spec.default
            parameters.append(f"{spec.name}=_default_{spec.name}")
        body.append(f"        self.{spec.name} = {spec.name}")
        slot = next(k.__dict__[spec.name] for k in cls.__mro__ if spec.name in k.__dict__)
        namespace[f"_store_{spec.name}"] = slot.__set__
        slow.append(f"        _store_{spec.name}(self, {spec.name})")
    lines = [
        "    if _type(self) is _cls:",
        "        _switch(self, '__class__', _twin)",
        *body,
        "        self.__class__ = _cls",
        "    else:",
        *(slow or ["        pass"]),
    ]
    signature = ", ".join(parameters)
    source = f"def __init__(self, {signature}):\n" + "\n".join(lines)
    source += f"\n\n\ndef _build({signature}, /):\n    self = _new(_twin)\n"
    source += (
        "\n".join(line[4:] for line in body) + "\n    self.__class__ = _cls\n    return self\n"
    )
    exec(source, namespace)  # our own field names, as dataclasses itself does
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[misc]
    build = namespace["_build"]
    build.__qualname__ = build.__name__ = f"build_{cls.__name__}"
    build.__module__ = cls.__module__
    _BUILDERS[cls] = build


for _spec in list(globals().values()):
    if isinstance(_spec, type) and is_dataclass(_spec) and _spec.__module__ == __name__:
        _store_through_slots(_spec)
