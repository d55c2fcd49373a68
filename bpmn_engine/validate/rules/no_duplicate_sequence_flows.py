"""`no-duplicate-sequence-flows`: no two flows share source, target and condition.

A duplicate flow doubles the token it carries (two tokens arrive where one was meant) and is
invisible in the diagram, as the two edges are drawn on top of each other.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import condition, issue, model


class NoDuplicateSequenceFlows:
    id = "no-duplicate-sequence-flows"
    levels = {"recommended": "error", "correctness": "warn", "all": "error"}
    summary = "No two sequence flows have the same source, target and condition."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        seen: set[tuple[str, str, str]] = set()
        sources: set[str] = set()
        targets: set[str] = set()
        for flow in bpmn.by_local.get("sequenceFlow", []):
            expression = condition(flow)
            flow_id = flow.get("id") or ""
            source = (flow.get("sourceRef") or "").strip() or flow_id
            target = (flow.get("targetRef") or "").strip() or flow_id
            body = "" if expression is None else (expression.text or "").strip()
            key = (source, target, body)
            if key not in seen:
                seen.add(key)
                continue
            yield issue("SequenceFlow is a duplicate", flow)
            if source not in sources:
                sources.add(source)
                node = bpmn.by_id.get(source, flow)
                yield Issue("Duplicate outgoing sequence flows", source, node.sourceline)
            if target not in targets:
                targets.add(target)
                node = bpmn.by_id.get(target, flow)
                yield Issue("Duplicate incoming sequence flows", target, node.sourceline)


RULE = NoDuplicateSequenceFlows()
