"""Execution facts kept in vendor namespaces (Camunda 7/8, Activiti, Flowable, Spiff).

Only facts that change how an element runs are read: service task types, task headers, I/O
mappings, form fields and scripts (listeners and pre-/post-scripts are `listeners.py`'s).
`refused` names the extension elements that would change how an element runs and that the
engine cannot honour; everything else in `extensionElements` cannot change a local run
(docs/coverage.md says why, one by one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from lxml import etree

from bpmn_engine.model import retries
from bpmn_engine.model.elements import (
    CallMapping,
    DecisionCall,
    Expression,
    FormField,
    IoMapping,
    IoParameter,
)
from bpmn_engine.model.kinds import BPMN
from bpmn_engine.model.retries import RetryPolicy
from bpmn_engine.parse.xml import local_name as _local

CAMUNDA = "http://camunda.org/schema/1.0/bpmn"
ZEEBE = "http://camunda.org/schema/zeebe/1.0"
ACTIVITI = "http://activiti.org/bpmn"
FLOWABLE = "http://flowable.org/bpmn"
SPIFF = "http://spiffworkflow.org/bpmn/schema/1.0/core"
CAMUNDA_LIKE = (CAMUNDA, ACTIVITI, FLOWABLE)

_BEAN = re.compile(r"^[$#]\{\s*([A-Za-z_][\w]*)")
# bpmn-engine (paed01): `${environment.services.fn}` (or `${services.fn()}`, before v5) names
# the service function fn, which a --handlers function of that name serves
_SERVICE = re.compile(r"^[$#]\{\s*(?:environment\s*\.\s*)?services\s*\.\s*([A-Za-z_$][\w$]*)")
_BPMN_PREFIX = f"{{{BPMN}}}"
_VENDOR_PREFIXES = tuple(f"{{{ns}}}" for ns in CAMUNDA_LIKE)
_NONE: tuple[etree._Element, ...] = ()
# what a plain element may have (see `ElementIndex.plain`): attributes, and the children no
# reader looks at (the flows' own sourceRef and targetRef say what incoming/outgoing say)
_PLAIN_ATTRS = frozenset({"id", "name"})
_PLAIN_CHILDREN = frozenset(
    f"{_BPMN_PREFIX}{tag}" for tag in ("incoming", "outgoing", "documentation")
)
_EMPTY: dict[str, list[etree._Element]] = {}


def vendor_attr(element: etree._Element, name: str) -> str | None:
    """`camunda:name` (or the Activiti/Flowable twin) on the element."""
    for ns in CAMUNDA_LIKE:
        value = element.get(f"{{{ns}}}{name}")
        if value:
            return value
    return None


def asynchronous(ext: ElementIndex) -> tuple[bool, bool]:
    """(before, after): Camunda 7's `asyncBefore` (or the older `async`) and `asyncAfter`,
    Activiti's and Flowable's `async`: a transaction boundary before or after the element,
    which the engine honours as a checkpoint (docs/cli.md, "Checkpoints")."""
    if not ext.has_vendor_attrs:
        return False, False
    attrs = ext.attrs
    before = after = False
    for ns in CAMUNDA_LIKE:
        if attrs.get(f"{{{ns}}}asyncBefore", "").strip() == "true":
            before = True
        if attrs.get(f"{{{ns}}}async", "").strip() == "true":
            before = True
        if attrs.get(f"{{{ns}}}asyncAfter", "").strip() == "true":
            after = True
    return before, after


class ElementIndex:
    """An element's attributes, its direct children by tag and the elements under its
    `extensionElements` (at any depth) by tag; `vendor_attr` looks only when it has a
    Camunda-like attribute.

    `attrs` answers `element.get(name)` for every name: a reader asks a dozen attributes of
    a task, most of them absent, and lxml makes the key's bytes and looks for each one (a
    tenth of loading a file); one `items()` costs about two of them.

    `plain`: the element has no attribute but `id` and `name` and no child but `incoming`,
    `outgoing` and `documentation`, so every other field of its spec is the default and
    nothing about it is refused: most tasks and events, which readers then make directly.
    """

    __slots__ = (
        "_by_tag",
        "_extensions",
        "attrs",
        "children",
        "element",
        "has_extensions",
        "has_vendor_attrs",
        "plain",
    )

    def __init__(self, element: etree._Element) -> None:
        self.element = element
        self.attrs = attrs = dict(element.items())
        self.plain = plain = attrs.keys() <= _PLAIN_ATTRS
        # whether the element has a Camunda-like (Camunda 7, Activiti, Flowable) attribute
        self.has_vendor_attrs = False
        if not plain:
            for key in attrs:
                if key.startswith(_VENDOR_PREFIXES):
                    self.has_vendor_attrs = True
                    break
        self.children: Sequence[etree._Element] = _NONE  # elements only, in document order
        self._by_tag: dict[str, list[etree._Element]] | None = _EMPTY
        self.has_extensions = False  # whether it has any extension element at all
        if not len(element):
            self._extensions = _EMPTY
            return
        # elements only (not comments or processing instructions), picked out by lxml
        self.children = children = list(element.iterchildren(etree.Element))
        self._by_tag = None  # made on the first question: a big container is never asked
        extensions: dict[str, list[etree._Element]] = {}
        for child in children:
            tag = child.tag
            if plain and tag not in _PLAIN_CHILDREN:
                self.plain = plain = False
            if tag.endswith("}extensionElements"):
                for inner in child.iterdescendants():
                    inner_tag = inner.tag
                    if isinstance(inner_tag, str):
                        found = extensions.get(inner_tag)
                        if found is None:
                            extensions[inner_tag] = [inner]
                        else:
                            found.append(inner)
        self._extensions = extensions
        self.has_extensions = bool(extensions)

    def bpmn_children(self, name: str) -> Sequence[etree._Element]:
        """The direct children `bpmn:name`."""
        by_tag = self._by_tag
        if by_tag is None:
            self._by_tag = by_tag = {}
            for child in self.children:
                found = by_tag.get(child.tag)
                if found is None:
                    by_tag[child.tag] = [child]
                else:
                    found.append(child)
        return by_tag.get(_BPMN_PREFIX + name, _NONE)

    def extension_children(self, ns: str, name: str) -> Sequence[etree._Element]:
        """The elements `{ns}name` at any depth under the element's `extensionElements`."""
        if not self._extensions:
            return _NONE
        return self._extensions.get(f"{{{ns}}}{name}", _NONE)

    def vendor_attr(self, name: str) -> str | None:
        """`camunda:name` (or the Activiti/Flowable twin) on the element."""
        if not self.has_vendor_attrs:
            return None
        attrs = self.attrs
        for ns in CAMUNDA_LIKE:
            value = attrs.get(f"{{{ns}}}{name}")
            if value:
                return value
        return None


def extension_children(element: etree._Element, ns: str, name: str) -> list[etree._Element]:
    found: list[etree._Element] = []
    for ext in element:
        if isinstance(ext.tag, str) and ext.tag.endswith("}extensionElements"):
            found.extend(ext.iter(f"{{{ns}}}{name}"))
    return found


def handler_names(ext: ElementIndex) -> tuple[str, ...]:
    """The names a service handler may be registered under, most specific first."""
    attrs = ext.attrs
    if not ext.has_extensions and not ext.has_vendor_attrs:  # most tasks: implementation, id
        element_id = attrs.get("id", "").strip()
        implementation = _implementation(attrs.get("implementation", ""))
        if implementation and not implementation.startswith("##") and "://" not in implementation:
            implementation = implementation.strip()
            if implementation and implementation != element_id:
                return (implementation, element_id) if element_id else (implementation,)
        return (element_id,) if element_id else ()
    names: list[str] = []
    for definition in ext.extension_children(ZEEBE, "taskDefinition"):
        names.append(definition.get("type", "").lstrip("="))
    names.append(ext.vendor_attr("topic") or "")
    task_type = ext.vendor_attr("type")
    if task_type and task_type != "external":
        names.append(task_type)
    for attr in ("delegateExpression", "expression"):
        text = ext.vendor_attr(attr) or ""
        match = _SERVICE.match(text) or _BEAN.match(text)
        if match:
            names.append(match.group(1))
    names.append((ext.vendor_attr("class") or "").rsplit(".", 1)[-1])
    for operator in ext.extension_children(SPIFF, "serviceTaskOperator"):
        names.append(operator.get("id", ""))
    implementation = _implementation(attrs.get("implementation", ""))
    if implementation and not implementation.startswith("##") and "://" not in implementation:
        names.append(implementation)
    names.append(attrs.get("id", ""))
    unique: list[str] = []
    for name in names:
        name = name.strip()
        if name and name not in unique:
            unique.append(name)
    return tuple(unique)


def _implementation(text: str) -> str:
    """A task's `implementation`: bpmn-engine's `${environment.services.fn}` is fn."""
    match = _SERVICE.match(text.strip()) if "services" in text else None
    return match.group(1) if match else text


def task_headers(ext: ElementIndex) -> tuple[tuple[str, str], ...]:
    """Zeebe's static task headers: handlers receive them (`ServiceTaskContext.headers`)."""
    if not ext.has_extensions:
        return ()
    return tuple(
        (header.get("key", ""), header.get("value", ""))
        for headers in ext.extension_children(ZEEBE, "taskHeaders")
        for header in headers
        if _local(header) == "header" and header.get("key")
    )


class Retries(NamedTuple):
    """A task's own retry policy as written on `element`, or why it cannot be read."""

    element: etree._Element
    policy: RetryPolicy | None
    problem: str | None = None


def retry_policy(ext: ElementIndex) -> Retries | None:
    """Camunda 7's (and Activiti's, Flowable's) `failedJobRetryTimeCycle`, or Zeebe's
    `taskDefinition retries`, if the task has one."""
    if not ext.has_extensions:
        return None
    written: list[tuple[etree._Element, str, Callable[[str], RetryPolicy]]] = [
        (cycle, "".join(cycle.itertext()), retries.camunda_cycle)
        for ns in CAMUNDA_LIKE
        for cycle in ext.extension_children(ns, "failedJobRetryTimeCycle")
    ]
    written += [
        (job, job.get("retries") or "", retries.zeebe_retries)
        for job in ext.extension_children(ZEEBE, "taskDefinition")
        if (job.get("retries") or "").strip()
    ]
    if not written:
        return None
    element, text, read = written[0]
    try:
        return Retries(element, read(text))
    except retries.RetryPolicyError as error:
        return Retries(element, None, str(error))


def refused(ext: ElementIndex, *, mappings: bool) -> list[tuple[etree._Element, str]]:
    """Extension elements of the element that change how it runs and that the engine cannot
    honour, with the reason; `mappings` False where I/O mappings are not run at all (an
    event's are judged by direction: `event_mappings_refused`)."""
    found: list[tuple[etree._Element, str]] = []  # listeners: parse/listeners.py
    if not mappings and ext.has_extensions:
        for io in _mapping_elements(ext):
            found.append(
                (io, "input/output mappings are not run on gateways (Camunda 7 rejects them)")
            )
    return found


def _mapping_elements(ext: ElementIndex) -> list[etree._Element]:
    found = [io for ns in CAMUNDA_LIKE for io in ext.extension_children(ns, "inputOutput")]
    return found + list(ext.extension_children(ZEEBE, "ioMapping"))


# end events whose token never completes there: no engine maps outputs after them
_NO_OUTPUTS_AT_END = ("error", "terminate", "cancel", "compensate")
_ENDING = {
    "error": "an error",
    "terminate": "a terminate",
    "cancel": "a cancel",
    "compensate": "a compensation",
}


def event_mappings_refused(
    ext: ElementIndex, kind: str, definition_kinds: tuple[str, ...], io: IoMapping | None
) -> list[tuple[etree._Element, str]]:
    """The mappings of an event that Camunda 7 and Zeebe do not run either, with the reason
    and where the values can be mapped instead (docs/events.md, "Payload").

    Throw events (intermediate, end) take input mappings: the event's locals, which its
    listeners and payload expressions see (and a message, or a Zeebe signal, carries). Every
    event but an error, terminate, cancel or compensation end event and a compensation
    boundary event takes output mappings: what it sets when it completes (a throw) or fires
    (a catch: over what came with it)."""
    if io is None:
        return []
    reasons: list[str] = []
    if io.inputs and kind == "intermediateCatchEvent":
        reasons.append(
            "input mappings on an intermediate catch event are not run yet (Camunda 7 and "
            "Zeebe map them before it waits, for its timer, condition or correlation key): "
            "set the values before the event, or map them on a task"
        )
    elif io.inputs and kind == "boundaryEvent":
        reasons.append(
            "input mappings on a boundary event: neither Camunda 7 (which rejects any "
            "mapping there) nor Zeebe (outputs only) runs them; map the values on the activity"
        )
    elif io.inputs and kind == "startEvent":
        reasons.append(
            "input mappings on a start event: neither Camunda 7 (which rejects any mapping "
            "there) nor Zeebe (outputs only) runs them; use output mappings"
        )
    ending = [k for k in definition_kinds if k in _NO_OUTPUTS_AT_END]
    if io.outputs and kind == "endEvent" and ending:
        reasons.append(
            f"output mappings on {_ENDING[ending[0]]} end event: the token does not "
            "complete there, so neither Camunda 7 nor Zeebe maps them; set the values before "
            "the event"
        )
    if io.outputs and kind == "boundaryEvent" and "compensate" in definition_kinds:
        reasons.append(
            "output mappings on a compensation boundary event: no token leaves it (it only "
            "names its handler), so nothing would map them; map them in the handler"
        )
    return [(element, reason) for element in _mapping_elements(ext)[:1] for reason in reasons]


def form_fields(ext: ElementIndex) -> tuple[FormField, ...]:
    if not ext.has_extensions:
        return ()
    fields = [
        FormField(
            f.get("id", ""),
            f.get("label"),
            f.get("type"),
            f.get("defaultValue"),
            _enum_values(f, ns),
            tuple(
                (c.get("name", ""), c.get("config"))
                for c in f.iter(f"{{{ns}}}constraint")
                if c.get("name")
            ),
        )
        for ns in CAMUNDA_LIKE
        for f in ext.extension_children(ns, "formField")
    ]
    fields += [
        FormField(
            p.get("id", ""),
            p.get("name"),
            p.get("type"),
            p.get("default"),
            _enum_values(p, ns),
            ((("required", None),) if p.get("required") == "true" else ())
            + ((("readonly", None),) if p.get("writable") == "false" else ()),
        )
        for ns in (ACTIVITI, FLOWABLE)
        for p in ext.extension_children(ns, "formProperty")
    ]
    return tuple(f for f in fields if f.id)


def _enum_values(field: etree._Element, ns: str) -> tuple[str, ...]:
    """The ids of an enum field's `value` children (not `camunda:list` values elsewhere)."""
    return tuple(v.get("id", "") for v in field if v.tag == f"{{{ns}}}value" and v.get("id"))


def io_mapping(ext: ElementIndex) -> IoMapping | None:
    if not ext.has_extensions:
        return None
    inputs: list[IoParameter] = []
    outputs: list[IoParameter] = []
    for ns in CAMUNDA_LIKE:
        for io in ext.extension_children(ns, "inputOutput"):
            inputs += [_camunda_parameter(p) for p in io if _local(p) == "inputParameter"]
            outputs += [_camunda_parameter(p) for p in io if _local(p) == "outputParameter"]
    for mapping in ext.extension_children(ZEEBE, "ioMapping"):
        for p in mapping:
            if _local(p) in ("input", "output") and p.get("target"):
                param = _zeebe_parameter(p)
                (inputs if _local(p) == "input" else outputs).append(param)
    if not inputs and not outputs:
        return None
    zeebe = bool(ext.extension_children(ZEEBE, "ioMapping"))
    return IoMapping(tuple(inputs), tuple(outputs), zeebe)


def is_expression(text: str) -> bool:
    """A JUEL `${...}`/`#{...}` or FEEL `=...` expression rather than a plain name."""
    text = text.strip()
    return text.startswith("=") or "${" in text or "#{" in text


class CallBinding(NamedTuple):
    """Which definitions of the called process a call activity calls, and what of the
    diagram's binding the engine cannot honour (element, reason)."""

    kind: str = "latest"  # "latest", "deployment" or "version"
    version: int | None = None
    refused: tuple[tuple[etree._Element, str], ...] = ()


_NO_VERSION_TAGS = (
    "version tags are not kept for deployed processes; use the binding latest, deployment "
    "or version"
)


def call_binding(ext: ElementIndex) -> CallBinding:
    """Camunda 7's `calledElementBinding` (with `calledElementVersion`), and the attributes
    of a call activity that pick or compute its callee in ways the engine cannot follow."""
    element = ext.element
    refused: list[tuple[etree._Element, str]] = []
    for attr, why in (
        ("calledElementTenantId", "there are no tenants: every process is one tenant's"),
        ("variableMappingClass", "delegate code is not run; use camunda:in and camunda:out"),
        (
            "variableMappingDelegateExpression",
            "delegate code is not run; use camunda:in and camunda:out",
        ),
        ("caseRef", "CMMN cases are not run"),
    ):
        if ext.vendor_attr(attr) is not None:
            refused.append((element, f"{attr}: {why}"))
    kind = (ext.vendor_attr("calledElementBinding") or "latest").strip()
    version_text = (ext.vendor_attr("calledElementVersion") or "").strip()
    version = None
    if kind == "version":
        if version_text.isdigit() and int(version_text) > 0:
            version = int(version_text)
        elif is_expression(version_text):
            refused.append(
                (
                    element,
                    f"calledElementVersion {version_text!r}: an expression is not "
                    "supported; give the version number",
                )
            )
        else:
            refused.append(
                (
                    element,
                    f"calledElementBinding 'version' needs calledElementVersion, a "
                    f"version number of 1 or more (got {version_text!r})",
                )
            )
    elif kind == "versionTag":
        refused.append((element, f"calledElementBinding 'versionTag': {_NO_VERSION_TAGS}"))
    elif kind not in ("latest", "deployment"):
        refused.append(
            (
                element,
                f"calledElementBinding {kind!r}: expected latest, deployment, version "
                "or versionTag",
            )
        )
    elif version_text:
        refused.append(
            (
                element,
                f"calledElementVersion {version_text!r} is used only with "
                "calledElementBinding 'version'",
            )
        )
    if kind not in ("latest", "deployment", "version"):
        kind = "latest"
    return CallBinding(kind, version, tuple(refused))


def zeebe_binding(definition: etree._Element) -> CallBinding | None:
    """Zeebe's `bindingType` on `zeebe:calledElement`; None when it is not given."""
    kind = definition.get("bindingType")
    if kind is None:
        return None
    kind = kind.strip()
    if kind in ("latest", "deployment"):
        return CallBinding(kind)
    if kind == "versionTag":
        return CallBinding(refused=((definition, f"bindingType 'versionTag': {_NO_VERSION_TAGS}"),))
    why = f"bindingType {kind!r}: expected latest, deployment or versionTag"
    return CallBinding(refused=((definition, why),))


def business_key(ext: ElementIndex) -> Expression | None:
    """`<camunda:in businessKey="..."/>`: what the called instance's business key is."""
    for ns in CAMUNDA_LIKE if ext.has_extensions else ():
        for mapping in ext.extension_children(ns, "in"):
            text = mapping.get("businessKey")
            if text is not None and text.strip():
                return Expression(text.strip(), None, mapping.sourceline)
    return None


def call_mappings(ext: ElementIndex, direction: str) -> tuple[CallMapping, ...]:
    """A call activity's `camunda:in` (direction "in") or `camunda:out` elements, in order;
    a `businessKey` mapping is not a variable (`business_key`)."""
    found: list[CallMapping] = []
    for ns in CAMUNDA_LIKE:
        for mapping in ext.extension_children(ns, direction):
            if mapping.get("businessKey") is not None:
                continue
            expression = mapping.get("sourceExpression")
            found.append(
                CallMapping(
                    source=mapping.get("source"),
                    target=mapping.get("target"),
                    expression=Expression(expression, None, mapping.sourceline)
                    if expression
                    else None,
                    all=mapping.get("variables") == "all",
                    local=mapping.get("local") == "true",
                )
            )
    return tuple(found)


def zeebe_script(ext: ElementIndex) -> tuple[str, str | None] | None:
    """Camunda 8 script tasks keep a FEEL expression and its result variable here."""
    if not ext.has_extensions:
        return None
    for script in ext.extension_children(ZEEBE, "script"):
        expression = script.get("expression")
        if expression:
            return expression, script.get("resultVariable")
    return None


def _camunda_parameter(p: etree._Element) -> IoParameter:
    name = p.get("name", "")
    line = p.sourceline
    for child in p:
        tag = _local(child)
        if tag == "script":
            text = (child.text or "").strip()
            return IoParameter(name, Expression(text, child.get("scriptFormat"), line))
        if tag == "list":
            return IoParameter(name, value=[(c.text or "") for c in child])
        if tag == "map":
            return IoParameter(name, value={e.get("key", ""): (e.text or "") for e in child})
    text = (p.text or "").strip()
    if "${" in text or "#{" in text:
        return IoParameter(name, Expression(text, None, line))
    return IoParameter(name, value=text if text else None)


def _zeebe_parameter(p: etree._Element) -> IoParameter:
    """Zeebe sources are FEEL when they start with `=`, else a literal string."""
    source = p.get("source", "")
    target = p.get("target", "")
    if source.startswith("="):
        return IoParameter(target, Expression(source, "feel", p.sourceline))
    return IoParameter(target, value=source)


def zeebe_loop(characteristics: etree._Element) -> dict[str, str] | None:
    """Zeebe keeps a multi-instance's collections in `zeebe:loopCharacteristics`."""
    for loop in extension_children(characteristics, ZEEBE, "loopCharacteristics"):
        return {k: v for k, v in loop.attrib.items() if isinstance(k, str) and v}
    return None


MODELER = "http://camunda.org/schema/modeler/1.0"


def platform(root: etree._Element) -> str:
    """The engine a file was drawn for, where that decides what an element means:
    "camunda8" (Zeebe's namespace, or the modeler's execution platform says "Camunda Cloud"),
    "camunda7" (Camunda 7's namespace, or "Camunda Platform"), else "" (the spec's reading)."""
    declared = set(root.nsmap.values())
    execution = (root.get(f"{{{MODELER}}}executionPlatform") or "").strip()
    if ZEEBE in declared or execution == "Camunda Cloud":
        return "camunda8"
    if CAMUNDA in declared or execution == "Camunda Platform":
        return "camunda7"
    return ""


def uses_camunda_7(*elements: etree._Element) -> bool:
    """Whether the elements carry Camunda 7 (or Activiti/Flowable) attributes or extensions:
    then a multi-instance counts its `loopCounter` from 0, as those engines do."""
    for element in elements:
        for name in element.attrib:
            if any(name.startswith(f"{{{ns}}}") for ns in CAMUNDA_LIKE):
                return True
        extensions = [e for e in element if str(e.tag).endswith("}extensionElements")]
        for child in (c for ext in extensions for c in ext):
            if any(str(child.tag).startswith(f"{{{ns}}}") for ns in CAMUNDA_LIKE):
                return True
    return False


MAPPINGS = ("singleEntry", "singleResult", "collectEntries", "resultList")


def has_handler(ext: ElementIndex) -> bool:
    """Whether the task names a handler implementation (class, delegate, expression, external
    topic, Zeebe job type): such a business rule task keeps calling handlers."""
    if ext.extension_children(ZEEBE, "taskDefinition"):
        return True
    return any(ext.vendor_attr(a) for a in ("class", "delegateExpression", "expression")) or (
        ext.vendor_attr("type") == "external"
    )


def decision_call(ext: ElementIndex) -> tuple[DecisionCall | None, str | None]:
    """A business rule task's DMN decision, or why it is refused (one of the two, or neither
    when the task has none or calls a handler)."""
    if has_handler(ext):
        return None, None
    line = ext.element.sourceline or 0
    called = ext.extension_children(ZEEBE, "calledDecision")
    if called:
        decision = (called[0].get("decisionId") or "").strip()
        result = (called[0].get("resultVariable") or "").strip()
        if not decision:
            return None, "zeebe:calledDecision has no decisionId"
        if is_expression(decision):
            return None, f"decisionId {decision!r}: a computed decision id is not supported yet"
        if not result:
            return None, "zeebe:calledDecision has no resultVariable to hold the decision's value"
        return DecisionCall(decision, result, "value", line), None
    spiff = ext.extension_children(SPIFF, "calledDecisionId") if ext.has_extensions else []
    if spiff:  # SpiffWorkflow's: the outputs become variables (`runtime/data/decisions.py`)
        decision = "".join(spiff[0].itertext()).strip()
        if not decision:
            return None, "spiffworkflow:calledDecisionId names no decision"
        return DecisionCall(decision, None, "spiff", line), None
    ref = (ext.vendor_attr("decisionRef") or "").strip()
    if not ref:
        return None, None
    if is_expression(ref):
        return None, f"decisionRef {ref!r}: a computed decision reference is not supported yet"
    binding = ext.vendor_attr("decisionRefBinding") or "latest"
    if binding != "latest":
        return None, (
            f"decisionRefBinding {binding!r}: only 'latest' is supported (the decision is "
            "taken from the DMN files given, else the newest deployed)"
        )
    mapping = ext.vendor_attr("mapDecisionResult") or "resultList"
    if mapping not in MAPPINGS:
        return None, f"mapDecisionResult {mapping!r}: not one of {', '.join(MAPPINGS)}"
    return DecisionCall(ref, ext.vendor_attr("resultVariable"), mapping, line), None
