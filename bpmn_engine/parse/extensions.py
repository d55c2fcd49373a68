"""Execution facts kept in vendor namespaces (Camunda 7/8, Activiti, Flowable, Spiff).

Only facts that change how an element runs are read: service task types, I/O mappings, form
fields and scripts. Everything else in `extensionElements` is ignored.
"""

from __future__ import annotations

import re

from lxml import etree

from bpmn_engine.model.elements import (
    CallMapping,
    Expression,
    FormField,
    IoMapping,
    IoParameter,
)

CAMUNDA = "http://camunda.org/schema/1.0/bpmn"
ZEEBE = "http://camunda.org/schema/zeebe/1.0"
ACTIVITI = "http://activiti.org/bpmn"
FLOWABLE = "http://flowable.org/bpmn"
SPIFF = "http://spiffworkflow.org/bpmn/schema/1.0/core"
CAMUNDA_LIKE = (CAMUNDA, ACTIVITI, FLOWABLE)

_BEAN = re.compile(r"^[$#]\{\s*([A-Za-z_][\w]*)")


def vendor_attr(element: etree._Element, name: str) -> str | None:
    """`camunda:name` (or the Activiti/Flowable twin) on the element."""
    for ns in CAMUNDA_LIKE:
        value = element.get(f"{{{ns}}}{name}")
        if value:
            return value
    return None


def extension_children(element: etree._Element, ns: str, name: str) -> list[etree._Element]:
    found: list[etree._Element] = []
    for ext in element:
        if isinstance(ext.tag, str) and ext.tag.endswith("}extensionElements"):
            found.extend(ext.iter(f"{{{ns}}}{name}"))
    return found


def handler_names(element: etree._Element) -> tuple[str, ...]:
    """The names a service handler may be registered under, most specific first."""
    names: list[str] = []
    for definition in extension_children(element, ZEEBE, "taskDefinition"):
        names.append(definition.get("type", "").lstrip("="))
    names.append(vendor_attr(element, "topic") or "")
    task_type = vendor_attr(element, "type")
    if task_type and task_type != "external":
        names.append(task_type)
    for attr in ("delegateExpression", "expression"):
        match = _BEAN.match(vendor_attr(element, attr) or "")
        if match:
            names.append(match.group(1))
    names.append((vendor_attr(element, "class") or "").rsplit(".", 1)[-1])
    names.append(vendor_attr(element, "decisionRef") or "")
    for operator in extension_children(element, SPIFF, "serviceTaskOperator"):
        names.append(operator.get("id", ""))
    implementation = element.get("implementation", "")
    if implementation and not implementation.startswith("##") and "://" not in implementation:
        names.append(implementation)
    names.append(element.get("id", ""))
    unique: list[str] = []
    for name in names:
        name = name.strip()
        if name and name not in unique:
            unique.append(name)
    return tuple(unique)


def form_fields(element: etree._Element) -> tuple[FormField, ...]:
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
        for f in extension_children(element, ns, "formField")
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
        for p in extension_children(element, ns, "formProperty")
    ]
    return tuple(f for f in fields if f.id)


def _enum_values(field: etree._Element, ns: str) -> tuple[str, ...]:
    """The ids of an enum field's `value` children (not `camunda:list` values elsewhere)."""
    return tuple(v.get("id", "") for v in field if v.tag == f"{{{ns}}}value" and v.get("id"))


def io_mapping(element: etree._Element) -> IoMapping | None:
    inputs: list[IoParameter] = []
    outputs: list[IoParameter] = []
    for ns in CAMUNDA_LIKE:
        for io in extension_children(element, ns, "inputOutput"):
            inputs += [_camunda_parameter(p) for p in io if _local(p) == "inputParameter"]
            outputs += [_camunda_parameter(p) for p in io if _local(p) == "outputParameter"]
    for mapping in extension_children(element, ZEEBE, "ioMapping"):
        for p in mapping:
            if _local(p) in ("input", "output") and p.get("target"):
                param = _zeebe_parameter(p)
                (inputs if _local(p) == "input" else outputs).append(param)
    if not inputs and not outputs:
        return None
    return IoMapping(tuple(inputs), tuple(outputs))


def is_expression(text: str) -> bool:
    """A JUEL `${...}`/`#{...}` or FEEL `=...` expression rather than a plain name."""
    text = text.strip()
    return text.startswith("=") or "${" in text or "#{" in text


def call_mappings(element: etree._Element, direction: str) -> tuple[CallMapping, ...]:
    """A call activity's `camunda:in` (direction "in") or `camunda:out` elements, in order;
    a `businessKey` mapping is not a variable and is left out."""
    found: list[CallMapping] = []
    for ns in CAMUNDA_LIKE:
        for mapping in extension_children(element, ns, direction):
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


def zeebe_script(element: etree._Element) -> tuple[str, str | None] | None:
    """Camunda 8 script tasks keep a FEEL expression and its result variable here."""
    for script in extension_children(element, ZEEBE, "script"):
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


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""
