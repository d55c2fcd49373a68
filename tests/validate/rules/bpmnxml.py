"""Tiny builders for inline BPMN diagrams, one element per line so that lines are easy to check."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue, Rule

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"'
    ' xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI"'
    ' xmlns:dc="http://www.omg.org/spec/DD/20100524/DC"'
    ' xmlns:di="http://www.omg.org/spec/DD/20100524/DI"'
    ' id="Definitions" targetNamespace="http://example.com/bpmn-engine/tests">'
)


def definitions(*parts: str) -> str:
    return "\n".join([HEAD, *parts, "</definitions>", ""])


def process(*lines: str, pid: str = "Process", executable: bool = False) -> str:
    flag = "true" if executable else "false"
    return "\n".join([f'<process id="{pid}" isExecutable="{flag}">', *lines, "</process>"])


def flow(fid: str, source: str, target: str, condition: str | None = None) -> str:
    opening = f'<sequenceFlow id="{fid}" sourceRef="{source}" targetRef="{target}"'
    if condition is None:
        return opening + "/>"
    return (
        f'{opening}><conditionExpression xsi:type="tFormalExpression" '
        f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">{condition}'
        "</conditionExpression></sequenceFlow>"
    )


def chain(*ids: str, prefix: str = "Flow") -> list[str]:
    """Sequence flows linking the given nodes in a row."""
    return [flow(f"{prefix}_{a}_{b}", a, b) for a, b in itertools.pairwise(ids)]


def event(tag: str, eid: str, definition: str, attributes: str = "") -> str:
    """An event with one definition, e.g. `event("intermediateCatchEvent", "E", "timer")`."""
    return f'<{tag} id="{eid}"{attributes}><{definition}EventDefinition/></{tag}>'


def shape(element: str, x: float, y: float, w: float, h: float, extra: str = "") -> str:
    return (
        f'<bpmndi:BPMNShape id="{element}_di" bpmnElement="{element}"{extra}>'
        f'<dc:Bounds x="{x}" y="{y}" width="{w}" height="{h}"/></bpmndi:BPMNShape>'
    )


def edge(element: str) -> str:
    return (
        f'<bpmndi:BPMNEdge id="{element}_di" bpmnElement="{element}">'
        '<di:waypoint x="0" y="0"/><di:waypoint x="10" y="0"/></bpmndi:BPMNEdge>'
    )


def diagram(*elements: str, plane: str = "Process") -> str:
    return "\n".join(
        [
            '<bpmndi:BPMNDiagram id="Diagram">',
            f'<bpmndi:BPMNPlane id="Plane" bpmnElement="{plane}">',
            *elements,
            "</bpmndi:BPMNPlane>",
            "</bpmndi:BPMNDiagram>",
        ]
    )


def read(tmp_path: Path, xml: str, name: str = "diagram.bpmn") -> Document:
    path = tmp_path / name
    path.write_text(xml, encoding="utf-8")
    document = Document.read(str(path))
    assert document.root is not None, document.read_error
    return document


def run(tmp_path: Path, rule: Rule, xml: str) -> list[Issue]:
    return list(rule.check(read(tmp_path, xml)))


def line_of(xml: str, element_id: str) -> int:
    """The line of the element whose `id` is `element_id`."""
    match = re.search(rf'\bid="{re.escape(element_id)}"', xml)
    assert match is not None, element_id
    return xml.count("\n", 0, match.start()) + 1
