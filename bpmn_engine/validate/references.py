"""Rule `references`: ids are unique and every reference names an element that exists.

libxml2 reports a duplicate `xsd:ID` with the same words as a malformed one, and it cannot
see across files, so both checks are done here. References resolve across the files validated
together and the BPMN files they `import`; a QName prefix (`tns:Message_1`) is ignored. A
sequence flow must stay inside one process or subprocess, and a `default` flow must leave the
element that names it.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from bpmn_engine.errors import LoadError
from bpmn_engine.model.kinds import ACTIVITIES, EVENTS, GATEWAYS
from bpmn_engine.validate.document import BPMN, Document
from bpmn_engine.validate.findings import Issue

# the flow nodes a process draws: no choreography activities, no implicit throw event
FLOW_NODES = ACTIVITIES | GATEWAYS | (EVENTS - {"implicitThrowEvent"})
CALLABLE = frozenset(
    {"process", "globalTask", "globalUserTask", "globalManualTask", "globalScriptTask"}
    | {"globalBusinessRuleTask"}
)
Siblings = dict[str, etree._Element]  # the id-carrying children of one parent, by id
# attribute -> the kinds of element it may name (None: any element)
GLOBAL_REFS: dict[str, frozenset[str] | None] = {
    "messageRef": frozenset({"message"}),
    "signalRef": frozenset({"signal"}),
    "errorRef": frozenset({"error"}),
    "escalationRef": frozenset({"escalation"}),
    "processRef": frozenset({"process"}),
    "calledElement": CALLABLE,
    "sourceRef": None,  # message flows, associations, conversation links
    "targetRef": None,
}


def local_name(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def strip_prefix(value: str) -> str:
    """`tns:Message_1` -> `Message_1` (URIs are left alone)."""
    value = value.strip()
    return value.split(":", 1)[1] if ":" in value and "://" not in value else value


def is_expression(value: str) -> bool:
    """Camunda and Zeebe allow `${...}` / `=...` where a called process id goes."""
    value = value.strip()
    return value.startswith(("${", "#{", "="))


class ReferencesRule:
    id = "references"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "ids are unique and every reference (flows, defaults, messages, calls) resolves"

    def check(self, document: Document) -> Iterator[Issue]:
        yield from problems(document)


def problems(document: Document) -> list[Issue]:
    """The findings for one document, computed once (the `executable` rule reads them too)."""
    if "references" not in document.memo:
        found: list[Issue] = []
        if document.is_bpmn:
            found.extend(_duplicates(document))
            found.extend(_imports(document))
            scopes: dict[etree._Element, Siblings] = {}
            for element in document.bpmn_elements():
                found.extend(_element_references(document, element, scopes))
        document.memo["references"] = found
    return document.memo["references"]


def _issue(document: Document, element: etree._Element, message: str) -> Issue:
    line, column = document.where(element)
    return Issue(message, element=document.owner_id(element), line=line, column=column)


def _duplicates(document: Document) -> Iterator[Issue]:
    first: dict[str, etree._Element] = {}
    for element in document.bpmn_elements():
        element_id = element.get("id")
        if not element_id:
            continue
        if element_id not in first:
            first[element_id] = element
            continue
        where, _ = document.locate(element_id, first[element_id].sourceline)
        yield _issue(document, element, f"duplicate id {element_id!r} (first used on line {where})")


def _imports(document: Document) -> Iterator[Issue]:
    if document.workspace is None:
        return
    for element, imported in document.workspace.imported(document):
        if imported is None:
            location = element.get("location") or ""
            reason = document.workspace.import_error(document, location)
            yield _issue(
                document,
                element,
                f"imported file {location!r} is not a readable BPMN file"
                + (f" ({reason})" if reason else ""),
            )


def _element_references(
    document: Document, element: etree._Element, scopes: dict[etree._Element, Siblings]
) -> Iterator[Issue]:
    kind = local_name(element)
    parent = element.getparent()
    if parent is not None and parent not in scopes:
        scopes[parent] = {c.get("id"): c for c in parent if isinstance(c.tag, str) and c.get("id")}
    siblings = scopes.get(parent, {}) if parent is not None else {}
    for attribute in element.attrib:
        if not isinstance(attribute, str) or attribute.startswith("{"):
            continue  # vendor attributes (camunda:..., zeebe:...) are not BPMN references
        value = element.get(attribute) or ""
        if attribute in ("sourceRef", "targetRef") and kind == "sequenceFlow":
            message = _flow_end(element, siblings, attribute, strip_prefix(value))
        elif attribute == "default":
            message = _default_flow(element, siblings, strip_prefix(value))
        elif attribute == "attachedToRef":
            message = _attached_to(element, siblings, strip_prefix(value))
        elif attribute in GLOBAL_REFS:
            message = _global(document, attribute, value)
        else:
            continue
        if message:
            yield _issue(document, element, message)


def _flow_end(flow: etree._Element, siblings: Siblings, attribute: str, ref: str) -> str | None:
    if not ref:
        return f"sequence flow has no {attribute}"
    target = siblings.get(ref)
    if target is not None and target.tag.startswith(f"{{{BPMN}}}"):
        if local_name(target) in FLOW_NODES:
            return None
        return f"{attribute} {ref!r} is {_a(local_name(target))}, not a flow node"
    root = flow.getroottree().getroot()
    elsewhere = root.xpath("//*[@id=$ref]", ref=ref)
    if elsewhere:
        return (
            f"{attribute} {ref!r} is in another process or subprocess: a sequence flow "
            "connects flow nodes of the same scope"
        )
    return f"{attribute} {ref!r} is not defined"


def _default_flow(element: etree._Element, siblings: Siblings, ref: str) -> str | None:
    if not ref:
        return "default is empty: name one of the element's outgoing sequence flows"
    flow = siblings.get(ref)
    if flow is None or local_name(flow) != "sequenceFlow":
        return f"default flow {ref!r} is not a sequence flow of this process or subprocess"
    source = strip_prefix(flow.get("sourceRef") or "")
    if source != element.get("id"):
        return f"default flow {ref!r} starts at {source!r}, not at this element"
    return None


def _attached_to(element: etree._Element, siblings: Siblings, ref: str) -> str | None:
    if not ref:
        return "boundary event has no attachedToRef"
    host = siblings.get(ref)
    if host is None:
        return f"attachedToRef {ref!r} is not an activity of the same process or subprocess"
    if local_name(host) not in ACTIVITIES:
        return f"attachedToRef {ref!r} is {_a(local_name(host))}, not an activity"
    return None


def _global(document: Document, attribute: str, value: str) -> str | None:
    if attribute == "calledElement" and is_expression(value):
        return None  # resolved at run time
    ref = strip_prefix(value)
    if not ref:
        return f"{attribute} is empty"
    candidates = _candidates(document, ref)
    if not candidates and attribute == "calledElement" and document.workspace is not None:
        found = document.workspace.called_elsewhere(document, ref)
        if isinstance(found, LoadError):  # two files beside it define the process...
            return found.message
        if found is not None:  # a file beside the caller's, as `bpmn run` finds it
            return None
        return (
            f"{attribute} {ref!r} is not defined (in this file, the files validated with it, "
            "the files it imports, or the BPMN files beside it or in the search path)"
        )
    if not candidates:
        return (
            f"{attribute} {ref!r} is not defined (in this file, the files validated with it, "
            "or the files it imports)"
        )
    expected = GLOBAL_REFS[attribute]
    if expected is None or any(local_name(c) in expected for c in candidates):
        return None
    names = " or ".join(sorted(expected))
    return f"{attribute} {ref!r} names {_a(local_name(candidates[0]))}, not {_a(names)}"


def _candidates(document: Document, ref: str) -> list[etree._Element]:
    own = document.elements_by_id.get(ref)
    if own is not None:
        return [own]
    if document.workspace is None:
        return []
    return document.workspace.ids.get(ref, [])


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


RULE = ReferencesRule()
