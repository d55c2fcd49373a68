"""Compile a BPMN XML document into `model.Definitions`.

Each BPMN tag maps to one reader function (`_NODE_READERS`); the reader keeps the source line
of every element so that later errors can say `file:line: element-id: message`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from lxml import etree

from bpmn_engine.collection import collector_paused
from bpmn_engine.errors import LoadError
from bpmn_engine.expressions.javascript import is_javascript
from bpmn_engine.model.elements import (
    Activity,
    AdHocSubProcess,
    BoundaryEvent,
    CallActivity,
    ComplexGateway,
    DataAssociation,
    EndEvent,
    Event,
    EventDefinition,
    Expression,
    FlowNode,
    Gateway,
    IntermediateEvent,
    IoMapping,
    Listener,
    MultiInstance,
    Refusal,
    SequenceFlow,
    StandardLoop,
    StartEvent,
    SubProcess,
    Task,
)
from bpmn_engine.model.kinds import BPMN, GATEWAYS, SUB_PROCESSES, TASKS
from bpmn_engine.model.process import Definitions, FlowScope, Process
from bpmn_engine.parse import (
    assignments,
    compensation,
    data,
    extensions,
    jbpm,
    listeners,
    prerelease,
)
from bpmn_engine.parse.xml import local_name as _local
from bpmn_engine.parse.xml import parse_xml, read_source

XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"

TIMER_KINDS = ("timeDate", "timeDuration", "timeCycle")
# the spec's default `expressionLanguage`: many tools write it on every file whatever their
# expressions are, so on `definitions` it says nothing (on one expression it is refused)
XPATH_DEFAULT = "http://www.w3.org/1999/xpath"


def load_file(path: str | Path) -> Definitions:
    """Read and compile one BPMN file."""
    return compile_definitions(read_source(path), str(path))


def load_source(source: bytes | str, name: str = "<input>") -> Definitions:
    """Read and compile BPMN XML given as text (an upload, a string in a test); `name` is
    what errors and `Definitions.path` call it."""
    return compile_definitions(source.encode("utf-8") if isinstance(source, str) else source, name)


def compile_definitions(source: bytes, file: str = "<input>") -> Definitions:
    return compile_tree(parse_xml(source, file), source, file)


def compile_tree(root: etree._Element, source: bytes, file: str = "<input>") -> Definitions:
    """Compile an already parsed document (validation reads the tree once for every layer)."""
    prerelease.upgrade(root)
    with collector_paused():
        return _Compiler(file).definitions(root, source)


_BPMN_PREFIX = f"{{{BPMN}}}"
_BUSINESS_RULE_TASK = f"{_BPMN_PREFIX}businessRuleTask"
_USER_TASK = f"{_BPMN_PREFIX}userTask"
# SpiffWorkflow's task specs for these are manual: the workflow waits for a person
_SPIFF_MANUAL_TASKS = frozenset((f"{_BPMN_PREFIX}task", f"{_BPMN_PREFIX}manualTask"))
_MESSAGE_TASKS = frozenset({f"{_BPMN_PREFIX}receiveTask", f"{_BPMN_PREFIX}sendTask"})
# the data associations an event carries its data by, per event kind: a throw's inputs
# make what it throws, a catch's outputs read what came (runtime/events/payloads.py)
_EVENT_DATA = {
    "intermediateThrowEvent": "dataInputAssociation",
    "endEvent": "dataInputAssociation",
    "intermediateCatchEvent": "dataOutputAssociation",
    "boundaryEvent": "dataOutputAssociation",
    "startEvent": "dataOutputAssociation",
}
# the event definitions whose throw carries data to its catcher
_CARRYING = frozenset(("message", "signal", "escalation", "error"))
# a message event must say which message: by messageRef, else by its name
_NO_MESSAGE = (
    "names no message: give it a messageRef, or a name (a message without a messageRef is "
    "addressed by the event's name)"
)
_NO_SIGNAL = (
    "names no signal: give it a signalRef, or a name (a signal without a signalRef is "
    "addressed by the event's name, as SpiffWorkflow reads it)"
)
_SEQUENCE_FLOW = f"{_BPMN_PREFIX}sequenceFlow"
_ANY_BPMN = f"{_BPMN_PREFIX}*"


def _catches_alone(element: etree._Element) -> bool:
    """An intermediate catch, a boundary event or an event subprocess's start: an event the
    API can trigger on its own (a process's start begins an instance instead)."""
    kind = _local(element)
    if kind == "startEvent":
        parent = element.getparent()
        return parent is not None and parent.get("triggeredByEvent", "").strip() == "true"
    return kind in ("intermediateCatchEvent", "boundaryEvent")


def _calls_handler(node: FlowNode) -> bool:
    """Whether the node's work is a handler's (a service task's job), which can be retried."""
    if not isinstance(node, Task):
        return False
    if node.kind == "businessRuleTask":
        return node.decision is None
    return node.kind in ("serviceTask", "sendTask") or node.work_item is not None


def _is_bpmn(element: etree._Element) -> bool:
    return isinstance(element.tag, str) and element.tag.startswith(_BPMN_PREFIX)


def _ref(value: str | None) -> str | None:
    """A QName reference without its prefix (`tns:Message_1` -> `Message_1`)."""
    if not value:
        return None
    return value.split(":", 1)[1] if ":" in value and "://" not in value else value


def _children(element: etree._Element, tag: str) -> list[etree._Element]:
    return list(element.iterchildren(_BPMN_PREFIX + tag))


def _text(element: etree._Element) -> str:
    return "".join(element.itertext()).strip()


def _unconditional_choice(
    node: FlowNode, default: str | None, flows: dict[str, SequenceFlow]
) -> bool:
    """An exclusive gateway that forks with no condition and no default: the first flow."""
    return (
        node.kind == "exclusiveGateway"
        and not default
        and len(node.outgoing) > 1
        and all(flows[f].condition is None for f in node.outgoing)
    )


class _Links:
    """The sequence flows of one scope, indexed by the node they leave and enter (filled by
    `_Compiler.sequence_flows` as it reads the flows, in document order)."""

    def __init__(self) -> None:
        self.incoming: dict[str, list[str]] = {}
        self.outgoing: dict[str, list[str]] = {}


class _Compiler:
    """Holds the file name and the id index while one document is compiled."""

    def __init__(self, file: str) -> None:
        self.file = file
        # every id -> its element (None: generated); holding the elements keeps lxml's
        # proxies of them for the readers, which would otherwise make each one again
        self.ids: dict[str, etree._Element | None] = {}
        self.root_definitions: dict[str, etree._Element] = {}
        self.language: str | None = None  # definitions/@expressionLanguage
        self.spiff = False  # the file declares SpiffWorkflow's namespace: drawn for it
        self.platform = ""  # the engine the file is drawn for (`extensions.platform`)
        self.jbpm = False  # the file is drawn for jBPM (`jbpm.declared`): read as jBPM reads it
        self.items: data.DataItems | None = None
        self.refusals: list[Refusal] = []  # of the process being compiled
        self.associations: dict[str, tuple[str, ...]] = {}  # source id -> target ids
        self.warnings: list[Refusal] = []
        self.file_warnings: list[Refusal] = []  # said of every process of the file
        # the process being compiled is executable: an exclusive gateway without conditions
        # takes its first flow, as Camunda 7 (a descriptive one's fork says nothing to run)
        self.executable = True
        self._index: extensions.ElementIndex | None = None

    def index(self, element: etree._Element) -> extensions.ElementIndex:
        """The element's children and extension elements, indexed once however many readers
        ask (the last element's index is kept: its readers ask one after the other)."""
        ext = self._index
        if ext is None or ext.element is not element:
            ext = self._index = extensions.ElementIndex(element)
        return ext

    def error(self, message: str, element: etree._Element | None, element_id: str | None = None):
        line = element.sourceline if element is not None else None
        if element_id is None and element is not None:
            element_id = element.get("id")
        return LoadError(message, file=self.file, line=line, element_id=element_id)

    def definitions(self, root: etree._Element, source: bytes) -> Definitions:
        if not _is_bpmn(root) or _local(root) != "definitions":
            raise self.error(
                f"not a BPMN 2.0 file: the root element is {root.tag!r}, "
                f"expected {{{BPMN}}}definitions",
                root,
            )
        if prerelease.renamed(root):
            self.file_warnings.append(
                Refusal(root.get("id") or "definitions", root.sourceline or 1, prerelease.WARNING)
            )
        self.jbpm = jbpm.declared(root)
        self.items = data.DataItems()
        self.items.jbpm = self.jbpm
        self._index_ids(root, self.items)
        for association in root.iter(f"{{{BPMN}}}association"):
            start, end = _ref(association.get("sourceRef")), _ref(association.get("targetRef"))
            if start and end:
                self.associations[start] = (*self.associations.get(start, ()), end)
        self.spiff = extensions.SPIFF in root.nsmap.values()
        self.platform = extensions.platform(root)
        language = (root.get("expressionLanguage") or "").strip()
        if language and language.lower() != XPATH_DEFAULT:
            self.language = language
        elif self.jbpm:
            self.language = jbpm.DEFAULT_LANGUAGE  # what jBPM reads an expression in
        for child in root:
            if _is_bpmn(child) and _local(child).endswith("EventDefinition") and child.get("id"):
                self.root_definitions[child.get("id")] = child
        processes: dict[str, Process] = {}
        for element in _children(root, "process"):
            process = self.process(element)
            processes[process.id] = process
        return Definitions(
            path=self.file,
            version=hashlib.sha256(source).hexdigest(),
            source=source,
            processes=processes,
            platform=self.platform,
            messages=self._named(root, "message", "name"),
            signals=self._named(root, "signal", "name"),
            errors=self._named(root, "error", "errorCode"),
            escalations=self._named(root, "escalation", "escalationCode"),
            correlation_keys=self._correlation_keys(root),
            payloads=self._payloads(root),
            collaborations=self._collaborations(root),
            correlation_properties=self._correlation_properties(root),
            correlation_groups=tuple(
                tuple(_ref(_text(r)) or "" for r in _children(key, "correlationPropertyRef"))
                for key in root.iter(f"{{{BPMN}}}correlationKey")
            ),
        )

    def _payloads(self, root: etree._Element) -> dict[str, tuple[Expression | None, str]]:
        """SpiffWorkflow's event payloads: a signal, error or escalation whose extension names
        a `variableName` carries the value of its `payloadExpression` (Python, over the
        thrower's variables) into that variable of the catcher; without a variable, the
        payload reaches nobody (as in SpiffWorkflow) and is not computed."""
        found: dict[str, tuple[Expression | None, str]] = {}
        for tag in ("signal", "error", "escalation"):
            for element in _children(root, tag):
                variables = extensions.extension_children(element, extensions.SPIFF, "variableName")
                variable = _text(variables[0]) if variables else ""
                if not variable or not element.get("id"):
                    continue
                texts = extensions.extension_children(
                    element, extensions.SPIFF, "payloadExpression"
                )
                text = _text(texts[0]) if texts else ""
                line = texts[0].sourceline if texts else element.sourceline
                expression = Expression(text, "python", line) if text else None
                found[element.get("id", "")] = (expression, variable)
        return found

    def _collaborations(self, root: etree._Element) -> dict[str, tuple[str, ...]]:
        """Collaboration id -> the processes of its pools (participants with a processRef,
        in document order): what `bpmn run --process COLLABORATION` runs together."""
        found: dict[str, tuple[str, ...]] = {}
        for collaboration in _children(root, "collaboration"):
            refs = (_ref(p.get("processRef")) for p in _children(collaboration, "participant"))
            found[collaboration.get("id", "")] = tuple(dict.fromkeys(r for r in refs if r))
        return found

    def _correlation_properties(
        self, root: etree._Element
    ) -> dict[str, tuple[tuple[str, Expression], ...]]:
        """Message id -> (property id, retrieval expression) for each correlation property
        with a retrieval expression for that message (its `messagePath`, or the
        `formalExpression` some modelers write), in document order."""
        found: dict[str, list[tuple[str, Expression]]] = {}
        for prop in root.iter(f"{{{BPMN}}}correlationProperty"):
            for retrieval in _children(prop, "correlationPropertyRetrievalExpression"):
                message = _ref(retrieval.get("messageRef"))
                paths = _children(retrieval, "messagePath") or _children(
                    retrieval, "formalExpression"
                )
                for path in paths:
                    expression = self.expression(path)
                    if message and expression is not None:
                        found.setdefault(message, []).append((prop.get("id", ""), expression))
        return {message: tuple(props) for message, props in found.items()}

    def _correlation_keys(self, root: etree._Element) -> dict[str, str]:
        """Message id -> Zeebe's correlation key expression on the message (evaluated over
        the receiving instance's variables, as Zeebe does)."""
        keys: dict[str, str] = {}
        for message in _children(root, "message"):
            for subscription in extensions.extension_children(
                message, extensions.ZEEBE, "subscription"
            ):
                if subscription.get("correlationKey"):
                    keys[message.get("id", "")] = subscription.get("correlationKey", "")
        return keys

    def _named(self, root: etree._Element, tag: str, attr: str) -> dict[str, str]:
        return {e.get("id", ""): e.get(attr) or e.get("id", "") for e in _children(root, tag)}

    def _index_ids(self, root: etree._Element, items: data.DataItems) -> None:
        """Duplicate ids among BPMN elements would make references ambiguous: refuse them.
        Then the data items go to `items` (lxml finds their tags without a walk in Python,
        and at once when the document has none)."""
        ids = self.ids
        for element in root.iter(_ANY_BPMN):
            element_id = element.get("id")
            if not element_id:
                continue
            first = ids.get(element_id)
            if first is not None:
                if not self.jbpm or _SEQUENCE_FLOW not in (first.tag, element.tag):
                    line = first.sourceline or 0
                    raise self.error(f"duplicate id (first used on line {line})", element)
                ids[element_id] = self._flow_renamed(element_id, first, element)
                continue
            ids[element_id] = element
        for element in root.iter(*data.ITEM_TAGS):
            element_id = element.get("id")
            if element_id:
                items.note(element, element_id)

    def _flow_renamed(
        self, element_id: str, first: etree._Element, later: etree._Element
    ) -> etree._Element:
        """jBPM keeps sequence flows apart from nodes and reads a flow by its sourceRef and
        targetRef alone, so its files may give a flow the id of a node or of another flow:
        the (later) flow gets a new id, with a warning; the element that keeps the id is
        returned."""
        flow, kept = (later, first) if later.tag == _SEQUENCE_FLOW else (first, later)
        line = flow.sourceline or 0
        new_id = f"{element_id}-line{line}"
        while new_id in self.ids:
            new_id += "'"
        flow.set("id", new_id)
        self.ids[new_id] = flow
        self.file_warnings.append(
            Refusal(
                new_id,
                line,
                f"sequence flow id {element_id!r} is also the id of the element on line "
                f"{kept.sourceline or 0}, which jBPM allows: the flow is read as {new_id!r}",
            )
        )
        return kept

    def process(self, element: etree._Element) -> Process:
        process_id = element.get("id") or ""
        if not process_id:
            raise self.error("process has no id", element)
        self.refusals, self.warnings = [], list(self.file_warnings)
        executable = element.get("isExecutable", "true").strip().lower() != "false"
        self.executable = executable
        nodes, flows, marked = self.scope_contents(element)
        index = self.index(element)
        process_listeners = listeners.read(index, "process", self.refuse)
        for where, why in jbpm.refused(index, "process") if self.jbpm else ():
            self.refuse(where, why)
        return Process.build(
            process_id,
            element.sourceline or 0,
            nodes,
            flows,
            name=element.get("name"),
            is_executable=executable,
            variables=data.declared(index, process=True),
            inputs=data.process_inputs(index),
            interface=data.process_interface(index),
            refused=tuple(self.refusals),
            warned=tuple(self.warnings),
            listeners=process_listeners,
            **marked,
        )

    def audit(self, element: etree._Element, node: FlowNode, ext: extensions.ElementIndex) -> None:
        """Refuse what would change how the node runs and is not run (docs/coverage.md);
        `ext` is the element's index."""
        if ext.plain:
            return  # no attribute, child or extension that could be refused
        is_activity = isinstance(node, Activity)
        attrs = ext.attrs
        if node.kind == "transaction":
            method = (attrs.get("method") or "##Compensate").strip()
            if method != "##Compensate":
                self.refuse(
                    element,
                    f"transaction method {method!r}: only ##Compensate (undo by compensation) runs",
                )
        resource = ext.vendor_attr("resource") if ext.has_vendor_attrs else None
        if resource:
            self.refuse(
                element,
                f"script resource {resource!r}: scripts kept in other files are not loaded; "
                "write the script inline",
            )
        is_event = isinstance(node, Event)
        for child, reason in (
            extensions.refused(ext, mappings=is_activity or is_event) if ext.has_extensions else ()
        ):
            self.refuse(child, f"{_local(child)}: {reason}")
        if is_event and ext.has_extensions:
            assert isinstance(node, Event)
            for child, reason in extensions.event_mappings_refused(
                ext, node.kind, node.definition_kinds, node.io
            ):
                self.refuse(child, f"{_local(child)}: {reason}")
        if is_activity:
            for attr in ("startQuantity", "completionQuantity"):
                if attrs.get(attr, "1").strip() not in ("1", ""):
                    self.refuse(
                        element,
                        f"{attr}={attrs.get(attr)!r}: only 1 is supported (a token starts and "
                        "completes the activity once)",
                    )
        elif ext.children:
            carried = _EVENT_DATA.get(node.kind) if is_event else None
            kinds = getattr(node, "definition_kinds", ())
            for tag in ("dataInputAssociation", "dataOutputAssociation"):
                for association in ext.bpmn_children(tag) if tag != carried else ():
                    self.refuse(association, f"{tag} on {_local(element)}: not supported yet")
            if carried == "dataInputAssociation" and not _CARRYING.intersection(kinds):
                what = "/".join(kinds) or "none"
                for association in ext.bpmn_children(carried):
                    self.refuse(
                        association,
                        f"{carried} on {_local(element)}: a {what} event carries no data to "
                        "a catcher, so its data input would go nowhere",
                    )
        written = extensions.retry_policy(ext) if ext.has_extensions else None
        if written is not None and written.problem is not None:
            self.refuse(written.element, f"{_local(written.element)}: {written.problem}")
        elif written is not None and not _calls_handler(node):
            self.warnings.append(
                Refusal(
                    node.id,
                    written.element.sourceline or node.line,
                    f"{_local(written.element)} is not used: this {node.kind} calls no handler, "
                    "and only a handler's failure is retried (every step is committed already)",
                )
            )

        for where, why in jbpm.refused(ext, node.kind) if self.jbpm else ():
            self.refuse(where, why)

    def refuse_at(self, element_id: str, line: int, message: str) -> None:
        """A refusal about an element already compiled (it has an id and a line)."""
        self.refusals.append(Refusal(element_id, line, message))

    def refuse(self, element: etree._Element, message: str) -> None:
        """Note something the engine cannot honour; runs and validation refuse it."""
        element_id = element.get("id")
        holder = element
        while not element_id and holder.getparent() is not None:
            holder = holder.getparent()
            element_id = holder.get("id")
        self.refusals.append(Refusal(element_id or "", element.sourceline or 0, message))

    def scope_contents(
        self, container: etree._Element
    ) -> tuple[dict[str, FlowNode], dict[str, SequenceFlow], dict[str, tuple[str, ...]]]:
        """Read the nodes and flows directly inside a process or subprocess and check them;
        and which nodes are marked asynchronous (`async_before`, `async_after`)."""
        index = self.index(container)
        readers = _READERS_BY_TAG
        # one pass over the BPMN children: the flows (with their place among them, which
        # names a flow without an id), the flow nodes, and the default flows any names
        flow_elements: list[tuple[int, etree._Element]] = []
        node_elements: list[tuple[etree._Element, str, _Reader, extensions.ElementIndex]] = []
        defaults: dict[str, str | None] = {}
        position = 0
        for element in index.children:
            tag = element.tag
            if tag == _SEQUENCE_FLOW:
                flow_elements.append((position, element))
                default = element.get("default")
            elif tag.startswith(_BPMN_PREFIX):
                found = readers.get(tag)
                if found is None:
                    default = element.get("default")
                else:  # its readers ask its index for every attribute
                    ext = extensions.ElementIndex(element)
                    node_elements.append((element, *found, ext))
                    default = ext.attrs.get("default")
            else:
                continue
            position += 1
            if default is not None:
                defaults[default] = element.get("id")
        links = _Links()
        flows = self.sequence_flows(flow_elements, defaults, links)
        nodes: dict[str, FlowNode] = {}
        audit = self.audit
        before: list[str] = []
        after: list[str] = []
        for element, kind, reader, ext in node_elements:
            if not ext.attrs.get("id"):
                raise self.error(f"{kind} has no id", element)
            self._index = ext  # for what its readers ask by element
            node = reader(self, element, ext, links)
            nodes[node.id] = node
            audit(element, node, ext)
            if ext.has_vendor_attrs:
                marks = extensions.asynchronous(ext)
                if marks[0]:
                    before.append(node.id)
                if marks[1]:
                    after.append(node.id)
        self._index = index  # the container's readers come next (its listeners, activity)
        self.check_scope(container, nodes, flows)
        if self.jbpm:
            self.jbpm_priorities(node_elements, nodes, flows, flow_elements)
        kind = _local(container)
        if container.get("triggeredByEvent", "false") == "true":
            kind = "eventSubProcess"

        def refuse(node: FlowNode, line: int, message: str) -> None:
            self.refusals.append(Refusal(node.id, line, message))

        linked = compensation.link_handlers(
            _with_boundaries(nodes), self.associations, kind, refuse
        )
        marked = {"async_before": tuple(before), "async_after": tuple(after)}
        return linked, flows, marked

    def check_scope(
        self,
        container: etree._Element,
        nodes: dict[str, FlowNode],
        flows: dict[str, SequenceFlow],
    ) -> None:
        def by_id(element_id: str) -> etree._Element | None:
            """The element of an error (looked up only when there is one)."""
            found = {e.get("id"): e for e in container if _is_bpmn(e)}
            return found.get(element_id)

        for flow in flows.values():
            if flow.source in nodes and flow.target in nodes:
                continue
            for end, ref in (("sourceRef", flow.source), ("targetRef", flow.target)):
                if ref not in nodes:
                    where = "in another scope" if ref in self.ids else "unknown"
                    raise self.error(
                        f"sequence flow {end} {ref!r} is {where}: a sequence flow must connect "
                        "two flow nodes of the same process or subprocess",
                        by_id(flow.id),
                    )
        for node in nodes.values():
            default = getattr(node, "default", None)
            if default and (default not in flows or flows[default].source != node.id):
                raise self.error(
                    f"default flow {default!r} is not an outgoing sequence flow of this element",
                    by_id(node.id),
                )
            if self.executable and _unconditional_choice(node, default, flows):
                self.warnings.append(
                    Refusal(
                        node.id,
                        node.line,
                        f"exclusive gateway with {len(node.outgoing)} outgoing flows and no "
                        f"conditions: a run takes the first in document order, "
                        f"{node.outgoing[0]!r}, as Camunda 7 does (add conditions or a default "
                        "flow to choose; `bpmn step` can `choose`)",
                    )
                )
            if node.kind == "eventBasedGateway":
                self.check_event_choice(node, nodes, flows)
            if isinstance(node, BoundaryEvent) and node.attached_to not in nodes:
                raise self.error(
                    f"boundary event is attached to {node.attached_to!r}, "
                    "which is not an activity of the same scope",
                    by_id(node.id),
                )

    def check_event_choice(
        self, gateway: FlowNode, nodes: dict[str, FlowNode], flows: dict[str, SequenceFlow]
    ) -> None:
        """What follows an event-based gateway is refused before the first step unless a run
        can wait for it there (`EventBasedGatewayBehaviour`): a receive task, or a catch
        event of one message, signal or timer definition, or one the API triggers; the spec
        allows no link and no other element, and conditions or several triggers at once are
        not supported yet (they were an incident when the token got there)."""
        for flow_id in gateway.outgoing:
            target = nodes.get(flows[flow_id].target) if flow_id in flows else None
            if target is None or target.kind == "receiveTask":
                continue
            if not isinstance(target, IntermediateEvent) or target.kind != "intermediateCatchEvent":
                reason = (
                    f"leads to {target.kind} {target.id!r}: an event-based gateway must lead to "
                    "intermediate catch events or receive tasks (BPMN 2.0.2 10.6.6)"
                )
            elif not target.definitions or target.awaits_trigger:
                continue
            elif len(target.definitions) > 1:
                reason = (
                    f"leads to {target.id!r}, a catch event of several triggers: not "
                    "supported yet after an event-based gateway (give each trigger its own "
                    "catch event)"
                )
            elif target.definitions[0].kind in ("message", "signal", "timer"):
                continue
            elif target.definitions[0].kind == "link":
                reason = (
                    f"leads to the link catch event {target.id!r}: an event-based gateway "
                    "chooses among events that arrive, and a link arrives only from its throw "
                    "(BPMN 2.0.2 10.6.6; Zeebe refuses it too): join the paths with a gateway"
                )
            else:
                reason = (
                    f"leads to {target.id!r}, a {target.definitions[0].kind} catch event: not "
                    "supported yet after an event-based gateway (test the condition in an "
                    "exclusive gateway, or wait for it on a path of its own)"
                )
            self.refusals.append(Refusal(gateway.id, gateway.line, reason))

    def jbpm_priorities(
        self,
        node_elements: list[tuple[etree._Element, str, _Reader, extensions.ElementIndex]],
        nodes: dict[str, FlowNode],
        flows: dict[str, SequenceFlow],
        flow_elements: list[tuple[int, etree._Element]],
    ) -> None:
        """jBPM chooses among an exclusive gateway's flows by `drools:priority`: refused
        where that would choose otherwise than document order (`jbpm.priority_refusal`)."""
        by_id = {e.get("id"): e for _, e in flow_elements}
        for element, *_ in node_elements:
            node = nodes.get(element.get("id", ""))
            if node is None or node.kind != "exclusiveGateway" or len(node.outgoing) < 2:
                continue
            chosen = [
                by_id[f]
                for f in node.outgoing
                if f in by_id and flows[f].condition is not None and not flows[f].is_default
            ]
            why = jbpm.priority_refusal(chosen) if len(chosen) > 1 else None
            if why:
                self.refuse(element, f"exclusive gateway: {why}")

    def sequence_flows(
        self,
        elements: list[tuple[int, etree._Element]],
        defaults: dict[str, str | None],
        links: _Links,
    ) -> dict[str, SequenceFlow]:
        """The scope's sequence flows by id, in document order (each with its place among the
        scope's BPMN children), and in `links` by the node they leave and enter."""
        flows: dict[str, SequenceFlow] = {}
        incoming, outgoing = links.incoming, links.outgoing
        for position, element in elements:
            source, target = element.get("sourceRef"), element.get("targetRef")
            if not source or not target:
                raise self.error("sequence flow needs both sourceRef and targetRef", element)
            flow_id = element.get("id") or self.generated_id(f"{source}->{target}#{position}")
            condition = None
            flow_listeners: tuple[Listener, ...] = ()
            if len(element):  # most flows have no condition and no listener: no child at all
                index = self.index(element)
                for expr in index.bpmn_children("conditionExpression"):
                    condition = self.expression(expr)
                flow_listeners = listeners.read(index, "sequenceFlow", self.refuse)
            # by position: keywords cost as much as the rest of the call
            flows[flow_id] = SequenceFlow(
                flow_id,
                source,
                target,
                element.sourceline or 0,
                element.get("name"),
                condition,
                defaults.get(flow_id) == source,
                flow_listeners,
            )
            # flow ids are unique: _index_ids refuses a repeated one, generated_id makes none
            leaving = outgoing.get(source)
            if leaving is None:
                outgoing[source] = [flow_id]
            else:
                leaving.append(flow_id)
            entering = incoming.get(target)
            if entering is None:
                incoming[target] = [flow_id]
            else:
                entering.append(flow_id)
        return flows

    def generated_id(self, base: str) -> str:
        """An id for an element the XSD lets go without one (a sequence flow): the same for
        the same document, so history and resumed instances name it alike."""
        candidate, n = base, 1
        while candidate in self.ids:
            n += 1
            candidate = f"{base}.{n}"
        self.ids[candidate] = None
        return candidate

    def expression(self, element: etree._Element) -> Expression | None:
        text = _text(element)
        if not text:
            return None
        return Expression(text, element.get("language") or self.language, element.sourceline)

    def base(
        self, element: etree._Element, index: extensions.ElementIndex, flows: _Links
    ) -> tuple[Any, ...]:
        """The fields every flow node has, in `FlowNode`'s order (readers build the specs by
        position); in/out flows come from the sequence flows themselves.

        The `incoming`/`outgoing` children of the XML are ignored: some tools omit them, and
        the flows' own `sourceRef`/`targetRef` are the truth. Order is document order.
        """
        attrs = index.attrs
        node_id = attrs.get("id") or ""
        kind = _READERS_BY_TAG[element.tag][0]  # a reader is given its own elements only
        incoming, outgoing = flows.incoming.get(node_id), flows.outgoing.get(node_id)
        return (
            node_id,
            kind,
            element.sourceline or 0,
            attrs.get("name"),
            () if incoming is None else tuple(incoming),
            () if outgoing is None else tuple(outgoing),
            listeners.read(index, kind, self.refuse) if index.has_extensions else (),
        )

    def activity(
        self, element: etree._Element, index: extensions.ElementIndex, flows: _Links
    ) -> tuple[Any, ...]:
        """The fields every activity has, in `Activity`'s order (see `base`)."""
        base = self.base(element, index, flows)
        loop = None
        characteristics: MultiInstance | StandardLoop | None = None
        if index.children:
            for standard in index.bpmn_children("standardLoopCharacteristics"):
                loop, characteristics = "standard", self.standard_loop(standard)
            for multi in index.bpmn_children("multiInstanceLoopCharacteristics"):
                loop, characteristics = "multiInstance", self.multi_instance(element, multi)
        attrs = index.attrs
        default = attrs.get("default")
        io = extensions.io_mapping(index) if index.has_extensions else None
        is_for_compensation = attrs.get("isForCompensation", "false") == "true"
        activity_data = (
            data.activity_data(index, self.items_index, self.expression, self.refuse)
            if index.children
            else None
        )
        return (
            *base,
            default,
            io,
            loop,
            characteristics,
            (),  # boundary_events: `_with_boundaries` sets them once the scope is read
            is_for_compensation,
            activity_data,
            None,  # compensation_handler: `compensation.link_handlers` sets it
        )

    def standard_loop(self, element: etree._Element) -> StandardLoop:
        maximum_text = (element.get("loopMaximum") or "").strip()
        maximum = None
        if maximum_text:
            try:
                maximum = int(maximum_text)
            except ValueError:
                maximum = -1
            if maximum < 0:
                raise self.error(
                    f"loopMaximum {maximum_text!r} is not a whole number of 0 or more",
                    element,
                    element.getparent().get("id") if element.getparent() is not None else None,
                )
        condition = None
        for child in _children(element, "loopCondition"):
            condition = self.expression(child)
        refused = None
        if _children(element, "loopCondition") and condition is None:
            refused = "its loopCondition is empty"
        return StandardLoop(
            line=element.sourceline or 0,
            condition=condition,
            test_before=element.get("testBefore", "false").strip() == "true",
            maximum=maximum,
            refused=refused,
        )

    def multi_instance(self, activity: etree._Element, element: etree._Element) -> MultiInstance:
        """The BPMN form, with Camunda 7 attributes or Zeebe's extension over it."""
        line = element.sourceline or 0

        def first(tag: str) -> etree._Element | None:
            found = _children(element, tag)
            return found[0] if found else None

        def item_name(tag: str) -> str | None:
            item = first(tag)
            if item is None:
                return None
            return item.get("id") or item.get("name") or _text(item) or None

        cardinality = first("loopCardinality")
        completion = first("completionCondition")
        input_ref = first("loopDataInputRef")
        output_ref = first("loopDataOutputRef")
        # a reference names the variable (its id, without a QName prefix), as SpiffWorkflow does
        input_name = _ref(_text(input_ref)) if input_ref is not None else None
        collection = Expression(input_name, None, line) if input_name else None
        element_variable = item_name("inputDataItem")
        output_collection = _ref(_text(output_ref)) if output_ref is not None else None
        if self.jbpm:
            # jBPM's collections: the variables the loop's data input and output are
            # associated with, else the data input's or output's own name
            names = self.items_index.names
            if input_name:
                found = jbpm.loop_variable(activity, input_name, output=False)
                found = found or names.get(input_name) or input_name
                collection = Expression(found, None, line)
            if output_collection:
                found = jbpm.loop_variable(activity, output_collection, output=True)
                output_collection = found or names.get(output_collection) or output_collection
        output_item = item_name("outputDataItem")
        output_element = Expression(output_item, None, line) if output_item else None
        dialect = "bpmn"
        camunda_collection = extensions.vendor_attr(element, "collection")
        if camunda_collection:
            collection = Expression(camunda_collection, None, line)
        element_variable = extensions.vendor_attr(element, "elementVariable") or element_variable
        if extensions.uses_camunda_7(activity, element):
            dialect = "camunda"
        zeebe = extensions.zeebe_loop(element)
        if zeebe is not None:
            dialect = "zeebe"
            if zeebe.get("inputCollection"):
                collection = Expression(zeebe["inputCollection"], "feel", line)
            element_variable = zeebe.get("inputElement") or element_variable
            output_collection = zeebe.get("outputCollection") or output_collection
            if zeebe.get("outputElement"):
                output_element = Expression(zeebe["outputElement"], "feel", line)
        if dialect == "bpmn" and self.spiff:
            dialect = "spiff"  # plain BPMN drawn for SpiffWorkflow: read as it reads them
        refused = None
        behavior = (element.get("behavior") or "All").strip()
        if first("complexBehaviorDefinition") is not None:
            refused = "complexBehaviorDefinition"
        elif behavior != "All":
            refused = f'behavior="{behavior}" (events thrown per instance)'
        elif collection is None and cardinality is None:
            refused = "no loopCardinality and no input collection: the number of instances"
            refused += " is unknown"
        elif output_collection and output_element is None:
            refused = "an output collection without an output element"
        return MultiInstance(
            line=line,
            sequential=element.get("isSequential", "false").strip() == "true",
            cardinality=self.expression(cardinality) if cardinality is not None else None,
            collection=collection if collection is not None and collection.text else None,
            element_variable=element_variable,
            output_collection=output_collection or None,
            output_element=output_element,
            completion=self.expression(completion) if completion is not None else None,
            dialect=dialect,
            refused=refused,
        )

    @property
    def items_index(self) -> data.DataItems:
        assert self.items is not None, "items are indexed with the definitions"
        return self.items

    def event_definitions(self, element: etree._Element) -> tuple[EventDefinition, ...]:
        index = self.index(element)
        found = [
            c
            for c in index.children
            if c.tag.startswith(_BPMN_PREFIX) and c.tag.endswith("EventDefinition")
        ]
        for ref in index.bpmn_children("eventDefinitionRef"):
            target = self.root_definitions.get(_ref(_text(ref)) or "")
            if target is not None:
                found.append(target)
        definitions = tuple(self.event_definition(d) for d in found)
        if any(d.kind == "message" for d in definitions):
            definitions = self._message_data(index, definitions)
            if _local(element) in ("intermediateThrowEvent", "endEvent"):
                self._implemented_throw(element, index, found)
        if not (index.attrs.get("name") or "").strip() and not self.awaits_trigger(
            element, definitions
        ):
            kinds = {d.kind for d in definitions if not (d.ref or d.name)}
            if "message" in kinds:
                self.refuse(element, _NO_MESSAGE)
            if "signal" in kinds:
                self.refuse(element, _NO_SIGNAL)
        return definitions

    def _implemented_throw(
        self,
        element: etree._Element,
        index: extensions.ElementIndex,
        definitions: list[etree._Element],
    ) -> None:
        """A message throw or end event implemented as a service task is (Camunda 7's
        `camunda:class`, `delegateExpression`, `expression`, `type="external"` on its message
        definition; Zeebe's `zeebe:taskDefinition`): those engines call the implementation
        instead of sending the message. Running it here would send the message and skip the
        call, so it is refused."""
        prefixes = tuple(
            zip(extensions.CAMUNDA_LIKE, ("camunda", "activiti", "flowable"), strict=True)
        )
        named = [
            f"{prefix}:{attr}"
            for definition in definitions
            for ns, prefix in prefixes
            for attr in ("class", "delegateExpression", "expression", "type")
            if definition.get(f"{{{ns}}}{attr}")
        ]
        if index.has_extensions and index.extension_children(extensions.ZEEBE, "taskDefinition"):
            named.append("zeebe:taskDefinition")
        if named:
            self.refuse(
                element,
                f"a message {_local(element)} implemented by {', '.join(named)}: its engine "
                "calls that implementation, as a service task's, instead of sending the "
                "message, which is not run here; draw a send or service task with it, followed "
                "by a none event",
            )

    def awaits_trigger(
        self, element: etree._Element, definitions: tuple[EventDefinition, ...]
    ) -> bool:
        """A catch (intermediate, boundary, event subprocess start) whose one definition names
        nothing to wait for, in a file drawn for no engine (bpmn-js, the token simulator,
        bpmn-engine): a wait the API triggers, as the token simulator waits for a click
        (`Event.awaits_trigger`). A message or signal named by the event's own name waits
        for that name instead. So does a boundary event with no definition at all (bpmn-js
        draws one so until a kind is chosen)."""
        if self.platform or not _catches_alone(element):
            return False
        if not definitions:
            return _local(element) == "boundaryEvent"
        if len(definitions) != 1:
            return False
        [definition] = definitions
        named = bool((element.get("name") or "").strip())
        if definition.kind in ("message", "signal"):
            return not (definition.ref or definition.name) and not named
        if definition.kind == "timer":
            return not (definition.timer and definition.timer[1].strip())
        if definition.kind == "conditional":
            return definition.condition is None
        return False

    def event_data(
        self, index: extensions.ElementIndex, definitions: tuple[EventDefinition, ...]
    ) -> tuple[IoMapping | None, tuple[DataAssociation, ...], tuple[DataAssociation, ...]]:
        """An event's Camunda/Zeebe mappings and, unless a message definition takes them
        (`_message_data`), its data associations: (io, reads, writes)."""
        if not index.children:
            return None, (), ()
        io = extensions.io_mapping(index) if index.has_extensions else None
        if any(d.kind == "message" for d in definitions) or not (
            index.bpmn_children("dataInputAssociation")
            or index.bpmn_children("dataOutputAssociation")
        ):
            return io, (), ()
        found = data.activity_data(index, self.items_index, self.expression, self.refuse)
        if found is None:
            return io, (), ()
        return io, found.reads, found.writes

    def _message_data(
        self, index: extensions.ElementIndex, definitions: tuple[EventDefinition, ...]
    ) -> tuple[EventDefinition, ...]:
        """A message event's data associations go with its message definitions: a throw's
        inputs are the message it sends, a catch's outputs what it does with one."""
        if not index.children:
            return definitions
        found = data.activity_data(index, self.items_index, self.expression, self.refuse)
        io = extensions.io_mapping(index)
        if io is None and (found is None or not (found.reads or found.writes)):
            return definitions
        reads, writes = (found.reads, found.writes) if found is not None else ((), ())
        return tuple(
            replace(d, reads=reads, writes=writes, io=io) if d.kind == "message" else d
            for d in definitions
        )

    def event_definition(self, element: etree._Element) -> EventDefinition:
        kind = _local(element).removesuffix("EventDefinition")
        ref = None
        for attr in ("messageRef", "signalRef", "errorRef", "escalationRef", "activityRef"):
            ref = ref or _ref(element.get(attr))
        if kind == "link":
            ref = element.get("name")
        timer = None
        timer_language = self.language
        for timer_kind in TIMER_KINDS:
            for child in _children(element, timer_kind):
                timer = (timer_kind, _text(child))
                timer_language = child.get("language") or self.language
        calendar = extensions.vendor_attr(element, "businessCalendarName") if timer else None
        if calendar:
            self.refuse(
                element,
                f"businessCalendarName {calendar!r}: the engine's business calendar (Java "
                "configuration) computes when the timer is due, which is not imitated; remove "
                "it to count plain time",
            )
        if self.jbpm and timer is not None and timer[0] == "timeDuration":
            timer = (timer[0], jbpm.iso_duration(timer[1]) or timer[1])  # jBPM's `5m`
        condition = None
        for child in _children(element, "condition"):
            condition = self.expression(child)
        payload, message_variable, name = None, None, None
        if kind == "message":
            for namespace in (extensions.ACTIVITI, extensions.FLOWABLE):
                name = name or (element.get(f"{{{namespace}}}messageExpression") or "").strip()
            for child in extensions.extension_children(element, extensions.SPIFF, "messagePayload"):
                if _text(child):
                    payload = Expression(_text(child), self.language, child.sourceline or 0)
            for child in extensions.extension_children(
                element, extensions.SPIFF, "messageVariable"
            ):
                message_variable = _text(child) or None
        return EventDefinition(
            kind,
            element.sourceline or 0,
            element.get("id"),
            ref,
            timer,
            condition,
            timer_language,
            wait_for_completion=element.get("waitForCompletion", "true").strip() != "false",
            payload=payload,
            message_variable=message_variable,
            name=name or None,
            code_variable=extensions.vendor_attr(element, f"{kind}CodeVariable"),
            error_message_variable=extensions.vendor_attr(element, "errorMessageVariable")
            if kind == "error"
            else None,
        )


def _read_task(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> Task:
    attrs = ext.attrs
    message_ref = attrs.get("messageRef")
    if not message_ref and element.tag in _MESSAGE_TASKS and ext.children:
        for definition in ext.bpmn_children("messageEventDefinition"):  # as SpiffWorkflow reads
            message_ref = definition.get("messageRef") or message_ref
    # a receive task with neither a message nor a name waits for `bpmn trigger`
    # (runtime/step/triggers.py), as Camunda 7, Activiti and Flowable run it
    waits = c.spiff and element.tag in _SPIFF_MANUAL_TASKS
    if ext.plain and element.tag != _BUSINESS_RULE_TASK and not waits:
        # nothing but an id and a name: every other field is its default (as below)
        base = c.base(element, ext, flows)
        handler = base[0].strip()  # extensions.handler_names without implementation
        no_loop = (None, None, None, None, (), False, None, None)  # see `_Compiler.activity`
        return Task(*base, *no_loop, (handler,) if handler else ())
    script = None
    for child in ext.bpmn_children("script") if ext.children else ():
        script = _text(child)
    script_format = attrs.get("scriptFormat")
    if c.jbpm and script is not None and not script_format:
        script_format = jbpm.DEFAULT_LANGUAGE  # jBPM reads a script without one as MVEL
    result_variable = ext.vendor_attr("resultVariable")
    zeebe = extensions.zeebe_script(ext) if ext.has_extensions else None
    if zeebe and script is None:
        script, result_variable = zeebe
        script_format = "feel"
    if script and is_javascript(script_format) and ext.vendor_attr("autoStoreVariables") == "true":
        c.refuse(
            element,
            'autoStoreVariables="true": Activiti and Flowable store every variable a JavaScript '
            "script declares (`var x = 1`) as a process variable, which is not imitated; set "
            "them with execution.setVariable",
        )
    work_item = jbpm.work_item(attrs) if c.jbpm else None
    handler_names = extensions.handler_names(ext)
    if c.jbpm:  # jBPM's work item handler or service operation, by its name
        first = jbpm.handler_names(attrs)
        handler_names = (*first, *(n for n in handler_names if n not in first))
    decision = None
    if element.tag == _BUSINESS_RULE_TASK:
        decision, refused = extensions.decision_call(ext)
        if refused:
            c.refuse(element, refused)
    written = extensions.retry_policy(ext) if ext.has_extensions else None
    return Task(  # by position, in the order of the fields (see `_Compiler.base`)
        *c.activity(element, ext, flows),
        handler_names,
        script,
        script_format,
        result_variable,
        extensions.form_fields(ext) if ext.has_extensions else (),
        _ref(message_ref) if message_ref else None,
        extensions.task_headers(ext) if ext.has_extensions else (),
        decision,
        waits,
        work_item,
        assignments.read(ext, bare_is_user=c.jbpm) if element.tag == _USER_TASK else None,
        written.policy if written is not None else None,
    )


def _read_subprocess(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> SubProcess:
    nodes, inner_flows, marked = c.scope_contents(element)
    scope = FlowScope.build(
        ext.attrs.get("id") or "",
        element.sourceline or 0,
        nodes,
        inner_flows,
        variables=data.declared(ext),
        **marked,
    )
    return SubProcess(
        *c.activity(element, ext, flows),
        scope,
        ext.attrs.get("triggeredByEvent", "false") == "true",
    )


def _read_ad_hoc(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> AdHocSubProcess:
    """An ad-hoc subprocess; what would change how it runs and is not run is refused."""
    plain = _read_subprocess(c, element, ext, flows)
    completion = _children(element, "completionCondition")
    active = None
    for ad_hoc in ext.extension_children(extensions.ZEEBE, "adHoc"):
        text = (ad_hoc.get("activeElementsCollection") or "").strip()
        if text:
            active = Expression(text, "feel" if text.startswith("=") else None, ad_hoc.sourceline)
        for attr in ("outputCollection", "outputElement"):
            if ad_hoc.get(attr):
                c.refuse(
                    ad_hoc, f"zeebe:adHoc {attr}: collecting inner results is not supported yet"
                )
    for job in ext.extension_children(extensions.ZEEBE, "taskDefinition"):
        c.refuse(job, "an ad-hoc subprocess run by a job worker is not supported yet")
    for inner in plain.scope.nodes.values():
        if inner.kind in ("startEvent", "endEvent"):
            c.refuse_at(
                inner.id,
                inner.line,
                f"{inner.kind} inside ad-hoc subprocess {plain.id!r}: an ad-hoc subprocess has "
                "no start or end events (its activities are activated, BPMN 2.0.2 10.2.5)",
            )
    ad_hoc_node = AdHocSubProcess(
        **{f.name: getattr(plain, f.name) for f in fields(SubProcess)},
        sequential=(ext.attrs.get("ordering") or "Parallel").strip() == "Sequential",
        cancel_remaining=ext.attrs.get("cancelRemainingInstances", "true").strip() != "false",
        completion=c.expression(completion[0]) if completion else None,
        active_elements=active,
    )
    if not ad_hoc_node.activatable:
        c.refuse(element, "an ad-hoc subprocess needs an activity without incoming flows")
    return ad_hoc_node


def _read_complex_gateway(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> ComplexGateway:
    condition = _children(element, "activationCondition")
    return ComplexGateway(
        *c.base(element, ext, flows),
        ext.attrs.get("default"),
        ext.attrs.get("gatewayDirection"),
        False,  # instantiate: only an event-based gateway starts a process
        c.expression(condition[0]) if condition else None,
    )


def _read_call_activity(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> CallActivity:
    called = ext.attrs.get("calledElement")
    if called is not None and not extensions.is_expression(called):
        called = _ref(called)
    parent_all = child_all = True
    binding = extensions.call_binding(ext)
    for definition in ext.extension_children(extensions.ZEEBE, "calledElement"):
        called = called or definition.get("processId")
        parent_all = definition.get("propagateAllParentVariables", "true") != "false"
        child_all = definition.get("propagateAllChildVariables", "true") != "false"
        zeebe = extensions.zeebe_binding(definition)
        if zeebe is not None:
            binding = zeebe._replace(refused=binding.refused + zeebe.refused)
    for where, problem in binding.refused:
        c.refuse(where, problem)
    return CallActivity(
        *c.activity(element, ext, flows),
        (called or "").strip() or None,
        extensions.call_mappings(ext, "in"),
        extensions.call_mappings(ext, "out"),
        parent_all,
        child_all,
        binding.kind,
        binding.version,
        extensions.business_key(ext),
    )


def _read_gateway(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> Gateway:
    return Gateway(
        *c.base(element, ext, flows),
        ext.attrs.get("default"),
        ext.attrs.get("gatewayDirection"),
        ext.attrs.get("instantiate") == "true",
    )


_NO_EVENT_DATA: tuple[Any, ...] = ((), None, (), ())  # definitions, io, reads, writes


def _event_parts(c: _Compiler, element: etree._Element, ext: extensions.ElementIndex) -> tuple:
    """An event's definitions, then its mappings and data associations (`Event`'s order)."""
    if ext.plain:
        return _NO_EVENT_DATA
    definitions = c.event_definitions(element)
    return (definitions, *c.event_data(ext, definitions))


def _read_start(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> StartEvent:
    definitions, io, reads, writes = _event_parts(c, element, ext)
    return StartEvent(
        *c.base(element, ext, flows),
        definitions,
        ext.attrs.get("parallelMultiple") == "true",
        io,
        reads,
        writes,
        c.awaits_trigger(element, definitions),
        ext.attrs.get("isInterrupting", "true") != "false",
    )


def _read_end(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> EndEvent:
    definitions, io, reads, writes = _event_parts(c, element, ext)
    return EndEvent(*c.base(element, ext, flows), definitions, False, io, reads, writes)


def _read_intermediate(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> IntermediateEvent:
    definitions, io, reads, writes = _event_parts(c, element, ext)
    return IntermediateEvent(
        *c.base(element, ext, flows),
        definitions,
        ext.attrs.get("parallelMultiple") == "true",
        io,
        reads,
        writes,
        c.awaits_trigger(element, definitions),
    )


def _read_boundary(
    c: _Compiler, element: etree._Element, ext: extensions.ElementIndex, flows: _Links
) -> BoundaryEvent:
    definitions, io, reads, writes = _event_parts(c, element, ext)
    return BoundaryEvent(
        *c.base(element, ext, flows),
        definitions,
        ext.attrs.get("parallelMultiple") == "true",
        io,
        reads,
        writes,
        c.awaits_trigger(element, definitions),
        _ref(ext.attrs.get("attachedToRef")) or "",
        ext.attrs.get("cancelActivity", "true") != "false",
    )


_Reader = Callable[[_Compiler, etree._Element, extensions.ElementIndex, _Links], FlowNode]
_NODE_READERS: dict[str, _Reader] = {
    **dict.fromkeys(TASKS, _read_task),
    **dict.fromkeys(SUB_PROCESSES, _read_subprocess),
    "callActivity": _read_call_activity,
    **dict.fromkeys(GATEWAYS, _read_gateway),
    "complexGateway": _read_complex_gateway,
    "adHocSubProcess": _read_ad_hoc,
    "startEvent": _read_start,
    "endEvent": _read_end,
    "intermediateThrowEvent": _read_intermediate,
    "intermediateCatchEvent": _read_intermediate,
    "boundaryEvent": _read_boundary,
}
# by full tag: (kind, reader), the kind one string for every node of that kind
_READERS_BY_TAG = {f"{_BPMN_PREFIX}{kind}": (kind, read) for kind, read in _NODE_READERS.items()}


def _with_boundaries(nodes: dict[str, FlowNode]) -> dict[str, FlowNode]:
    """Tell each activity which boundary events are attached to it."""
    attached: dict[str, list[str]] = {}
    for node in nodes.values():
        if isinstance(node, BoundaryEvent):
            attached.setdefault(node.attached_to, []).append(node.id)
    result = dict(nodes)
    for host_id, boundary_ids in attached.items():
        host = nodes.get(host_id)
        if isinstance(host, Activity):
            result[host_id] = _replace(host, boundary_events=tuple(boundary_ids))
    return result


def _replace(node: Activity, **changes: Any) -> Activity:
    return replace(node, **changes)
