"""Listeners and pre-/post-scripts kept in vendor namespaces, compiled to `model.Listener`.

Camunda 7 (and Activiti/Flowable) `executionListener` and `taskListener`, Zeebe
`executionListeners` and `taskListeners`, SpiffWorkflow `preScript`/`postScript` and jBPM
`onEntry-script`/`onExit-script` run code on an element's lifecycle events. What the engine
can run becomes a `Listener`; what it cannot (an event it has no moment for, a script kept in
another file) is handed to `refuse` with the reason, so runs and `bpmn validate` refuse it
before the first step.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from bpmn_engine.expressions.javascript import is_javascript
from bpmn_engine.expressions.jvm_scripts import UnsupportedScript, compile_jvm_script, jvm_dialect
from bpmn_engine.model.elements import Expression, Listener
from bpmn_engine.parse.extensions import CAMUNDA_LIKE, SPIFF, ZEEBE, ElementIndex
from bpmn_engine.parse.jbpm import DEFAULT_LANGUAGE, DROOLS
from bpmn_engine.parse.xml import local_name as _local

Refuse = Callable[[etree._Element, str], None]

# a bean method call `${audit.log(execution)}`: the bean is a handler's name
_BEAN_CALL = re.compile(r"^[$#]\{\s*([A-Za-z_]\w*)\s*\.\s*\w+\s*\(")
_BEAN = re.compile(r"^[$#]\{\s*([A-Za-z_]\w*)\s*\}$")
_EXECUTION_OBJECTS = ("execution", "task")

# Camunda 7 task listener events without a moment here: why each is refused
_TASK_EVENTS_REFUSED = {
    "assignment": "bpmn-engine never assigns a task: its assignee is recorded as it is created",
    "update": "bpmn-engine never changes a task's properties after it is created",
    "timeout": "timeout task listeners (timers on a task) are not run yet",
}
# Zeebe task listener event types, as Camunda 8.8 names them (and the engine's moment)
_ZEEBE_TASK_EVENTS = {"creating": "create", "completing": "complete", "canceling": "delete"}
_ZEEBE_TASK_REFUSED = {
    "assigning": "bpmn-engine never assigns a task: its assignee is recorded as it is created",
    "updating": "bpmn-engine never changes a task's properties after it is created",
}


def read(ext: ElementIndex, kind: str, refuse: Refuse) -> tuple[Listener, ...]:
    """The listeners of a flow node (`kind` its tag), a `sequenceFlow` or a `process`, in
    document order; each one the engine cannot run goes to `refuse` instead."""
    if not ext.has_extensions:
        return ()  # no extension elements: nothing to listen with
    element = ext.element
    found: list[tuple[etree._Element, Listener | None]] = []
    for ns in CAMUNDA_LIKE:
        prefix = _prefix(ns)
        for child in ext.extension_children(ns, "executionListener"):
            found.append((child, _camunda(child, f"{prefix}:executionListener", kind, refuse)))
        for child in ext.extension_children(ns, "taskListener"):
            found.append((child, _camunda_task(child, f"{prefix}:taskListener", kind, refuse)))
    for tag in ("executionListener", "taskListener"):
        for group in ext.extension_children(ZEEBE, f"{tag}s"):
            for child in group.iter(f"{{{ZEEBE}}}{tag}"):
                found.append((child, _zeebe(child, f"zeebe:{tag}", kind, refuse)))
    for tag, event in (("preScript", "start"), ("postScript", "end")):
        for child in ext.extension_children(SPIFF, tag):
            found.append((child, _spiff(child, f"spiffworkflow:{tag}", event, kind, refuse)))
    for tag, event in (("onEntry-script", "start"), ("onExit-script", "end")):
        for child in ext.extension_children(DROOLS, tag):
            found.append((child, _jbpm(child, f"drools:{tag}", event, kind, refuse)))
    listeners = [(child, listener) for child, listener in found if listener is not None]
    if listeners and element.get("triggeredByEvent") == "true":
        refuse(element, "listeners on an event subprocess are not run yet")
        return ()
    if len(listeners) < 2:
        return tuple(listener for _, listener in listeners)
    # document order: every listener lies under one of the element's extensionElements
    order = {
        child: position
        for position, child in enumerate(
            inner
            for holder in element
            if isinstance(holder.tag, str) and holder.tag.endswith("}extensionElements")
            for inner in holder.iter()
        )
    }
    return tuple(listener for _, listener in sorted(listeners, key=lambda f: order[f[0]]))


def _prefix(ns: str) -> str:
    return {CAMUNDA_LIKE[1]: "activiti", CAMUNDA_LIKE[2]: "flowable"}.get(ns, "camunda")


def _camunda(child: etree._Element, source: str, kind: str, refuse: Refuse) -> Listener | None:
    event = (child.get("event") or ("take" if kind == "sequenceFlow" else "")).strip()
    allowed = ("take",) if kind == "sequenceFlow" else ("start", "end")
    if event not in allowed:
        where = "a sequence flow" if kind == "sequenceFlow" else f"a {kind}"
        refuse(
            child,
            f"{source} event={event!r}: on {where} only {' and '.join(allowed)} can be listened "
            "for",
        )
        return None
    return _body(child, source, event, refuse)


def _camunda_task(child: etree._Element, source: str, kind: str, refuse: Refuse) -> Listener | None:
    event = (child.get("event") or "").strip()
    if kind != "userTask":
        refuse(child, f"{source}: task listeners belong on user tasks, not on a {kind}")
        return None
    if event in _TASK_EVENTS_REFUSED:
        refuse(child, f"{source} event={event!r}: {_TASK_EVENTS_REFUSED[event]}")
        return None
    if event not in ("create", "complete", "delete"):
        refuse(child, f"{source} event={event!r}: expected create, complete or delete")
        return None
    return _body(child, source, event, refuse)


def _body(child: etree._Element, source: str, event: str, refuse: Refuse) -> Listener | None:
    """What a Camunda listener runs: a script, an expression, a class or a bean."""
    line = child.sourceline or 0
    scripts = [c for c in child if _local(c) == "script"]
    for script in scripts:
        resource = script.get("resource")
        if resource:
            refuse(
                script,
                f"{source}: script resource {resource!r}: scripts kept in other files are not "
                "loaded; write the script inline",
            )
            return None
        text = "".join(script.itertext()).strip()
        language = script.get("scriptFormat")
        return Listener(event, line, source, script=Expression(text, language, line))
    fields = _fields(child)
    class_name = (child.get("class") or "").strip()
    if class_name:
        names = _unique(class_name.rsplit(".", 1)[-1], class_name)
        return Listener(event, line, source, handler_names=names, fields=fields)
    delegate = (child.get("delegateExpression") or "").strip()
    if delegate:
        match = _BEAN.match(delegate)
        if match is None:
            refuse(
                child,
                f"{source} delegateExpression {delegate!r}: only a bean name (${{name}}) can "
                "be resolved to a handler",
            )
            return None
        return Listener(event, line, source, handler_names=(match.group(1),), fields=fields)
    expression = (child.get("expression") or "").strip()
    if expression:
        bean = _BEAN_CALL.match(expression)
        if bean is not None and bean.group(1) not in _EXECUTION_OBJECTS:
            return Listener(event, line, source, handler_names=(bean.group(1),), fields=fields)
        return Listener(event, line, source, expression=Expression(expression, "juel", line))
    refuse(child, f"{source}: names no class, expression, delegateExpression or script to run")
    return None


def _fields(child: etree._Element) -> tuple[tuple[str, Expression | str], ...]:
    """`camunda:field` children: a string value, or an expression evaluated at the call."""
    found: list[tuple[str, Expression | str]] = []
    for field in child:
        if _local(field) != "field" or not field.get("name"):
            continue
        name, line = field.get("name", ""), field.sourceline
        value: Expression | str = field.get("stringValue") or ""
        if field.get("expression"):
            value = Expression(field.get("expression", ""), "juel", line)
        for inner in field:
            text = "".join(inner.itertext()).strip()
            if _local(inner) == "string":
                value = text
            elif _local(inner) == "expression":
                value = Expression(text, "juel", line)
        found.append((name, value))
    return tuple(found)


def _zeebe(child: etree._Element, source: str, kind: str, refuse: Refuse) -> Listener | None:
    event_type = (child.get("eventType") or "").strip()
    job_type = (child.get("type") or "").strip()
    line = child.sourceline or 0
    if source == "zeebe:taskListener":
        if kind != "userTask":
            refuse(child, f"{source}: task listeners belong on user tasks, not on a {kind}")
            return None
        event = _ZEEBE_TASK_EVENTS.get(event_type)
        if event is None:
            reason = _ZEEBE_TASK_REFUSED.get(
                event_type, "expected creating, completing or canceling"
            )
            refuse(child, f"{source} eventType={event_type!r}: {reason}")
            return None
    else:
        if kind == "sequenceFlow":
            refuse(child, f"{source}: Zeebe listens to elements and processes, not to flows")
            return None
        if event_type not in ("start", "end"):
            refuse(child, f"{source} eventType={event_type!r}: expected start or end")
            return None
        event = event_type
    if not job_type or job_type.startswith("="):
        refuse(
            child,
            f"{source} type={job_type!r}: the job type must be a name (a FEEL expression for "
            "it is not supported)",
        )
        return None
    return Listener(event, line, source, handler_names=(job_type,))


def _spiff(
    child: etree._Element, source: str, event: str, kind: str, refuse: Refuse
) -> Listener | None:
    if kind in ("sequenceFlow", "process"):
        refuse(child, f"{source}: pre- and post-scripts belong on tasks and events")
        return None
    line = child.sourceline or 0
    text = "".join(child.itertext())
    if not text.strip():
        return None  # an empty script does nothing (Spiff's modeler writes them)
    return Listener(event, line, source, script=Expression(text, "python", line))


def _jbpm(
    child: etree._Element, source: str, event: str, kind: str, refuse: Refuse
) -> Listener | None:
    """jBPM's on-entry and on-exit scripts: run as start and end listeners when they only
    print and set variables (`expressions/jvm_scripts.py`); an on-entry script may not set
    any (jBPM runs it before the node reads its data inputs, a start listener runs after)."""
    if kind in ("sequenceFlow", "process"):
        refuse(child, f"{source}: on-entry and on-exit scripts belong on flow nodes")
        return None
    line = child.sourceline or 0
    text = "".join("".join(s.itertext()) for s in child if _local(s) == "script")
    if not text.strip():
        return None  # an empty script does nothing
    script_format = (child.get("scriptFormat") or "").strip() or DEFAULT_LANGUAGE
    dialect = jvm_dialect(script_format)
    way_on = "use a camunda:executionListener with a python or javascript script"
    if dialect is None:
        language = "JavaScript" if is_javascript(script_format) else script_format
        refuse(child, f"{source} ({language}): jBPM runs it with its kcontext API; {way_on}")
        return None
    try:
        compiled = compile_jvm_script(text, script_format)
    except UnsupportedScript as error:
        refuse(
            child,
            f"{source} ({dialect}): jBPM runs it with its kcontext API in a JVM, and of its "
            f"scripts only those that print and set variables run here; this one {error}: "
            f"{way_on}",
        )
        return None
    if event == "start" and compiled.sets_variables:
        refuse(
            child,
            f"{source} ({dialect}) sets variables: jBPM runs it before the node reads its data "
            "inputs, a start listener here runs after them, which is not imitated; set them "
            "in a script task before the node, or in its drools:onExit-script",
        )
        return None
    return Listener(event, line, source, script=Expression(text, script_format, line))


def _unique(*names: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n for n in names if n))
