"""Path coverage: which flow nodes and sequence flows of each diagram runs reached, how often.

An element counts as reached when a token arrived at it (it was activated, whether it then
completed, waited or was interrupted); a sequence flow when a token took it. Counted over
every process of the file, subprocess bodies included, as Camunda's process test coverage
counts flow nodes and sequence flows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bpmn_engine import Definitions, Event
from bpmn_engine.model import BoundaryEvent


@dataclass
class DiagramCoverage:
    path: str
    elements: tuple[str, ...]
    flows: tuple[str, ...]
    element_hits: Counter[str] = field(default_factory=Counter)
    flow_hits: Counter[str] = field(default_factory=Counter)

    @property
    def reached_elements(self) -> list[str]:
        return [e for e in self.elements if self.element_hits[e]]

    @property
    def reached_flows(self) -> list[str]:
        return [f for f in self.flows if self.flow_hits[f]]

    @property
    def missed_elements(self) -> list[str]:
        return [e for e in self.elements if not self.element_hits[e]]

    @property
    def missed_flows(self) -> list[str]:
        return [f for f in self.flows if not self.flow_hits[f]]

    @property
    def percent(self) -> float:
        """Elements and flows together, as Camunda's coverage reports one figure."""
        total = len(self.elements) + len(self.flows)
        reached = len(self.reached_elements) + len(self.reached_flows)
        return 100.0 * reached / total if total else 100.0

    def to_json(self) -> dict[str, Any]:
        return {
            "diagram": self.path,
            "percent": round(self.percent, 1),
            "elements": {"total": len(self.elements), "reached": len(self.reached_elements)},
            "flows": {"total": len(self.flows), "reached": len(self.reached_flows)},
            "missed_elements": self.missed_elements,
            "missed_flows": self.missed_flows,
            "element_hits": {e: self.element_hits[e] for e in self.reached_elements},
            "flow_hits": {f: self.flow_hits[f] for f in self.reached_flows},
        }


def _diagram(definitions: Definitions) -> DiagramCoverage:
    scopes = {id(scope): scope for scope in definitions.node_scopes.values()}
    flows = sorted({flow for scope in scopes.values() for flow in scope.flows})
    return DiagramCoverage(definitions.path, definitions.node_ids, tuple(flows))


def _compensation_boundaries(definitions: Definitions) -> dict[str, list[str]]:
    """activity id -> its compensation boundary events: no token ever arrives at one, it is
    reached when its activity is compensated."""
    found: dict[str, list[str]] = {}
    for element in definitions.node_ids:
        node = definitions.node(element)
        if isinstance(node, BoundaryEvent) and any(
            d.kind == "compensate" for d in node.definitions
        ):
            found.setdefault(node.attached_to, []).append(node.id)
    return found


@dataclass
class Coverage:
    """Per diagram file; runs of one file in several scenarios add up."""

    diagrams: dict[str, DiagramCoverage] = field(default_factory=dict)

    def add_run(self, definitions: Definitions, events: list[Event]) -> None:
        diagram = self.diagrams.get(definitions.path)
        if diagram is None:
            diagram = self.diagrams[definitions.path] = _diagram(definitions)
        activated = Counter(
            e.element for e in events if e.event == "element.activated" and e.element
        )
        completed = Counter(
            e.element for e in events if e.event == "element.completed" and e.element
        )
        for element in diagram.elements:  # some elements complete without a separate arrival
            hits = activated[element] or completed[element]
            if hits:
                diagram.element_hits[element] += hits
        boundaries = (
            _compensation_boundaries(definitions)
            if "compensation.started" in {e.event for e in events}
            else {}
        )
        for event in events:
            if event.event == "flow.taken" and event.data.get("flow") in diagram.flows:
                diagram.flow_hits[event.data["flow"]] += 1
            elif event.event == "compensation.started" and event.element:
                diagram.element_hits.update(boundaries.get(event.element, []))

    def merge(self, other: Coverage) -> None:
        for path, theirs in other.diagrams.items():
            mine = self.diagrams.get(path)
            if mine is None:
                mine = self.diagrams[path] = DiagramCoverage(path, theirs.elements, theirs.flows)
            mine.element_hits.update(theirs.element_hits)
            mine.flow_hits.update(theirs.flow_hits)

    @property
    def percent(self) -> float:
        total = sum(len(d.elements) + len(d.flows) for d in self.diagrams.values())
        reached = sum(
            len(d.reached_elements) + len(d.reached_flows) for d in self.diagrams.values()
        )
        return 100.0 * reached / total if total else 100.0
