"""jBPM's dialect: what its namespace (`http://www.jboss.org/drools`, written `drools:` or
`tns:`) says, and how jBPM reads a diagram where it reads BPMN its own way.

A document that declares and uses the namespace is read as jBPM reads it
(docs/dialects.md#jbpm):

- a task's data inputs and outputs are its work item's parameters and results, by their
  `name` (`TaskName`, `GroupId`, `Comment`...), not by their id;
- a data input association with no `sourceRef` gives its input the `from` text of its
  assignment (`expressions/jbpm.py`'s `ParameterText`), and an input no association fills
  is None;
- `drools:taskName` names the work item handler: a `task` with one calls it as a service task.
- a multi-instance's collections are the variables its loop data input and output are
  associated with; a `timeDuration` may be written `5m`, `1h 30m`, `500ms`.

Attributes and extension elements of the namespace that change nothing here are read past
(`packageName`, `version`, `adHoc="false"`, `selectable`, colours and icons, `drools:import`,
`drools:global`, `drools:metaData` labels); those that change how the diagram runs are
refused by name before the first step (`refused`, `priority_refusal`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

from lxml import etree

from bpmn_engine.expressions.jbpm import MVEL
from bpmn_engine.model.kinds import BPMN
from bpmn_engine.parse.extensions import ElementIndex

DROOLS = "http://www.jboss.org/drools"
DEFAULT_LANGUAGE = "http://www.mvel.org/2.0"  # of a condition or script that names none
_NS = f"{{{DROOLS}}}"
TASK_NAME = f"{_NS}taskName"
PRIORITY = f"{_NS}priority"
# `drools:metaData` names (lower case) that are labels or tuning, not behaviour, with the
# values that say so (None: any value)
_HARMLESS_METADATA: dict[str, str | None] = {
    "elementname": None,
    "customdescription": None,
    "customasync": None,  # a transaction boundary in jBPM: each step here is one anyway
    "customsladuedate": None,  # jBPM only flags a late node
    "customabortparent": "true",  # jBPM's default: a failed child fails its caller
    "customautostart": "false",  # jBPM's default: an ad-hoc fragment waits to be started
}


_USED = etree.XPath("boolean(//@*[namespace-uri()=$ns] | //*[namespace-uri()=$ns])")


def declared(root: etree._Element) -> bool:
    """Whether the document is drawn for jBPM: it declares jBPM's namespace and uses it (an
    attribute or element in it), or names MVEL its expression language. Other tools copy
    the declaration alone into files they write."""
    if DROOLS not in root.nsmap.values():
        return False
    language = (root.get("expressionLanguage") or "").strip().lower()
    return language in MVEL or bool(_USED(root, ns=DROOLS))


def work_item(attrs: Mapping[str, str]) -> str | None:
    """The work item handler a task names (`drools:taskName`), if any."""
    name = (attrs.get(TASK_NAME) or "").strip()
    return name or None


def handler_names(attrs: Mapping[str, str]) -> tuple[str, ...]:
    """The names jBPM gives a task's handler, most specific first: its work item
    (`drools:taskName`), and a Java service task's operation as `Interface.operation`
    (`drools:serviceinterface`'s simple name), then `operation` (`drools:serviceoperation`)."""
    names = [work_item(attrs) or ""]
    operation = (attrs.get(f"{_NS}serviceoperation") or "").strip()
    interface = (attrs.get(f"{_NS}serviceinterface") or "").strip().rsplit(".", 1)[-1]
    if operation:
        names += [f"{interface}.{operation}" if interface else "", operation]
    return tuple(n for n in names if n)


def loop_variable(activity: etree._Element, ref: str, *, output: bool) -> str | None:
    """The variable jBPM's multi-instance reads its collection from (`ref` the data input
    `loopDataInputRef` names: the `sourceRef` of the association into it) or writes its
    output collection to (`output`: the `targetRef` of the association out of `ref`)."""
    tag = "dataOutputAssociation" if output else "dataInputAssociation"
    for association in activity.iterchildren(f"{{{BPMN}}}{tag}"):
        sources = [_text(s) for s in association.iterchildren(f"{{{BPMN}}}sourceRef")]
        targets = [_text(t) for t in association.iterchildren(f"{{{BPMN}}}targetRef")]
        if len(sources) == 1 and len(targets) == 1:
            here, there = (sources[0], targets[0]) if output else (targets[0], sources[0])
            if here == ref and there:
                return there
    return None


def _text(element: etree._Element) -> str:
    return "".join(element.itertext()).strip()


# jBPM's own durations (`1d 2h`, `5m`, `30s`, `500ms`, a bare number of milliseconds), as its
# time utilities read them: days, hours, minutes (not ms), seconds, milliseconds, in order
_DURATION = re.compile(
    r"(?:(\d+)[dD])?\s*(?:(\d+)[hH])?\s*(?:(\d+)[mM](?![sS]))?\s*(?:(\d+)[sS])?"
    r"\s*(?:(\d+)(?:[mM][sS])?)?"
)


def iso_duration(text: str) -> str | None:
    """A jBPM duration (`5m`, `1h 30m`, `500ms`) as ISO 8601 (`PT5M`, `PT1H30M`,
    `PT0.5S`), or None when the text is not one (ISO itself, an expression, a date)."""
    stripped = text.strip()
    match = _DURATION.fullmatch(stripped) if stripped else None
    if match is None:
        return None
    days, hours, minutes, seconds, millis = (int(g) if g else 0 for g in match.groups())
    total = seconds + millis / 1000
    second_text = str(int(total)) if total == int(total) else f"{total:.3f}".rstrip("0")
    time = (
        (f"{hours}H" if hours else "")
        + (f"{minutes}M" if minutes else "")
        + (f"{second_text}S" if total else "")
    )
    iso = "P" + (f"{days}D" if days else "") + (f"T{time}" if time else "")
    return iso if iso != "P" else "PT0S"


def refused(ext: ElementIndex, kind: str) -> list[tuple[etree._Element, str]]:
    """What of jBPM's namespace on an element (`ext` its index, `kind` its BPMN tag) would
    change how it runs and is not run, with the reason."""
    found: list[tuple[etree._Element, str]] = []
    element = ext.element
    for key, value in ext.attrs.items():
        if not key.startswith(_NS):
            continue
        name, value = key[len(_NS) :], value.strip()
        if name == "adHoc" and value == "true":
            found.append(
                (
                    element,
                    'drools:adHoc="true": an ad-hoc process (its nodes '
                    "started on demand) is not run; draw an adHocSubProcess",
                )
            )
        elif name == "waitForCompletion" and value == "false" and kind == "callActivity":
            found.append(
                (
                    element,
                    'drools:waitForCompletion="false": a call that does not '
                    "wait for the called process is not run",
                )
            )
        elif name == "ruleFlowGroup":
            found.append(
                (
                    element,
                    f"drools:ruleFlowGroup {value!r}: Drools rules need the "
                    "Drools rule engine; give a DMN decision (camunda:decisionRef) or "
                    "a --handlers function for the task",
                )
            )
    if ext.has_extensions:  # (on-entry and on-exit scripts: `parse/listeners.py`)
        for meta in ext.extension_children(DROOLS, "metaData"):
            name = (meta.get("name") or "").strip()
            value = "".join(meta.itertext()).strip().lower()
            harmless = name.lower() in _HARMLESS_METADATA and _HARMLESS_METADATA[name.lower()] in (
                None,
                value,
            )
            if name.lower().startswith("custom") and not harmless:
                found.append(
                    (
                        meta,
                        f"drools:metaData {name!r} changes how jBPM runs the "
                        "element and is not run here",
                    )
                )
    return found


def priority_refusal(flows: Sequence[etree._Element]) -> str | None:
    """Why the `drools:priority` of an exclusive gateway's conditional outgoing flows (in
    document order) would make jBPM choose another flow, else None. jBPM takes the true
    flow of lowest priority (the first of them in document order on a tie), bpmn-engine
    the first true flow: the same as long as the priorities never go down."""
    given = [f.get(PRIORITY) for f in flows]
    if all(p is None for p in given):
        return None
    if any(p is None for p in given):
        return (
            "drools:priority is given on some of its conditional outgoing flows only: which "
            "flow jBPM tries first is unclear; give each one a priority"
        )
    try:
        numbers = [int((p or "").strip()) for p in given]
    except ValueError:
        return f"drools:priority values {given!r}: each must be a whole number"
    if all(a <= b for a, b in itertools.pairwise(numbers)):
        return None
    order = ", ".join(f"{f.get('id')}={n}" for f, n in zip(flows, numbers, strict=True))
    return (
        f"drools:priority on its outgoing flows ({order}): jBPM tries the flow of lowest "
        "priority first, bpmn-engine the first in document order; put the flows in priority "
        "order in the file, or give them one priority"
    )
