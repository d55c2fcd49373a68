"""`standard-size`: shapes have the modeller's default size for their type.

Same-type elements of the same size make a diagram calm to read. Defaults are bpmn-js's
(tasks 100x80, events 36x36, gateways 50x50, ...); `[level, {"bpmn:Task": {"width": 120,
"height": 80}}]` in the config changes them. Expanded subprocesses, pools with content and
lanes follow their content and are not checked; an empty pool only in its fixed breadth.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from lxml import etree

from bpmn_engine.model.kinds import EVENTS, GATEWAYS, SUB_PROCESSES, TASKS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    BPMNDI,
    DC,
    is_true,
    issue,
    local,
    model,
    plane_elements,
    reference,
)

Size = dict[str, float]
_SHAPE = f"{{{BPMNDI}}}BPMNShape"

DEFAULT_SIZES: dict[str, Size] = {
    "bpmn:Task": {"width": 100, "height": 80},
    "bpmn:CallActivity": {"width": 100, "height": 80},
    "bpmn:SubProcess": {"width": 100, "height": 80},  # collapsed
    "bpmn:Gateway": {"width": 50, "height": 50},
    "bpmn:Event": {"width": 36, "height": 36},
    "bpmn:DataObjectReference": {"width": 36, "height": 50},
    "bpmn:DataStoreReference": {"width": 50, "height": 50},
    "bpmn:Participant": {"width": 60, "height": 60},  # the breadth of an empty pool
}

# most specific first: a subprocess is an activity but has its own size
_TYPES: tuple[tuple[str, frozenset[str]], ...] = (
    ("bpmn:SubProcess", SUB_PROCESSES),
    ("bpmn:CallActivity", frozenset({"callActivity"})),
    ("bpmn:Task", TASKS),
    ("bpmn:Gateway", GATEWAYS),
    ("bpmn:Event", EVENTS),
    ("bpmn:DataObjectReference", frozenset({"dataObjectReference"})),
    ("bpmn:DataStoreReference", frozenset({"dataStoreReference"})),
)


def _number(value: Any) -> float | None:
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if is_number else None


def _expected(
    element: etree._Element, shape: etree._Element, sizes: Mapping[str, Any]
) -> Size | None:
    """The size the shape should have (maybe one dimension only); None: not checked."""
    kind = local(element)
    if kind == "participant":
        if reference(element, "processRef") is not None:
            return None
        size = sizes.get("bpmn:Participant")
        if not isinstance(size, Mapping):
            return None
        horizontal = is_true(shape, "isHorizontal", default=True)
        value = _number(size.get("height" if horizontal else "width"))
        if value is None:
            return None
        return {"height": value} if horizontal else {"width": value}
    if kind in SUB_PROCESSES and is_true(shape, "isExpanded"):
        return None
    for type_name, kinds in _TYPES:
        if kind in kinds:
            size = sizes.get(type_name)
            if not isinstance(size, Mapping):
                return None
            found = {k: v for k in ("width", "height") if (v := _number(size.get(k))) is not None}
            return found or None
    return None


def _size(shape: etree._Element) -> tuple[float, float] | None:
    """A shape's width and height (its position does not matter here)."""
    for bounds in shape.iterchildren(f"{{{DC}}}Bounds"):
        try:
            return float(bounds.get("width", "")), float(bounds.get("height", ""))
        except ValueError:
            return None
    return None


def _show(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _message(expected: Size) -> str:
    if "height" not in expected:
        return f"Element has a non-standard width; expected width of {_show(expected['width'])}"
    if "width" not in expected:
        return f"Element has a non-standard height; expected height of {_show(expected['height'])}"
    return (
        "Element has a non-standard size; expected "
        f"{_show(expected['width'])}x{_show(expected['height'])}"
    )


class StandardSize:
    id = "standard-size"
    levels = {"all": "error"}
    summary = "Diagram shapes have the standard size of their element type."

    def check(self, document: Document) -> Iterator[Issue]:
        if document.root is None:
            return
        options = document.rule_options.get(self.id)
        sizes = {**DEFAULT_SIZES, **(options if isinstance(options, Mapping) else {})}
        by_id = model(document).by_id
        for shape in plane_elements(document.root):
            target = reference(shape, "bpmnElement")
            element = by_id.get(target) if target is not None and shape.tag == _SHAPE else None
            size = _size(shape)
            if element is None or size is None:
                continue
            expected = _expected(element, shape, sizes)
            if expected is None:
                continue
            width, height = size
            if expected.get("width", width) != width or expected.get("height", height) != height:
                yield issue(_message(expected), element)


RULE = StandardSize()
