"""Correct and incorrect diagrams for the rules about diagram interchange (BPMNDI)."""

from __future__ import annotations

from bpmn_engine.validate.rules import no_bpmndi, no_overlapping_elements, standard_size
from tests.validate.rules.bpmnxml import chain, definitions, diagram, edge, process, shape
from tests.validate.rules.case import Case

SEMANTIC = process(
    '<startEvent id="Start" name="Start"/>',
    '<task id="Task" name="Task"/>',
    '<endEvent id="End" name="End"/>',
    *chain("Start", "Task", "End"),
)
FLOWS = [edge("Flow_Start_Task"), edge("Flow_Task_End")]


def _drawn(task_x: float, task_w: float = 100, *, with_task: bool = True) -> str:
    task = [shape("Task", task_x, 100, task_w, 80)] if with_task else []
    return definitions(
        SEMANTIC,
        diagram(shape("Start", 100, 122, 36, 36), *task, shape("End", 400, 122, 36, 36), *FLOWS),
    )


CASES = [
    Case(
        no_bpmndi.RULE,
        good=_drawn(200),
        bad=_drawn(200, with_task=False),
        element="Task",
        message="Element is missing bpmndi",
    ),
    Case(
        no_overlapping_elements.RULE,
        good=_drawn(200),
        bad=_drawn(120),
        element="Task",
        message="Element overlaps with other element",
    ),
    Case(
        standard_size.RULE,
        good=_drawn(200),
        bad=_drawn(200, task_w=120),
        element="Task",
        message="Element has a non-standard size; expected 100x80",
    ),
]
