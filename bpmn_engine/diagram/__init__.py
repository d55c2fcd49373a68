"""Pictures of diagrams: BPMN DI read (`di`), drawn as SVG (`svg`), laid out when missing
(`layout`). `bpmn render` is the command over it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lxml import etree

if TYPE_CHECKING:
    from bpmn_engine import Instance
from bpmn_engine.diagram.di import Drawing, Plane, read_drawing
from bpmn_engine.diagram.layout import laid_out
from bpmn_engine.diagram.overlay import Marks, coverage_marks, instance_marks, page, paint
from bpmn_engine.diagram.svg import draw, to_svg
from bpmn_engine.errors import UsageError

__all__ = [
    "Drawing",
    "Marks",
    "Picture",
    "Plane",
    "coverage_marks",
    "draw",
    "instance_marks",
    "instance_page",
    "instance_svg",
    "laid_out",
    "of_instance",
    "page",
    "paint",
    "picture",
    "read_drawing",
    "to_svg",
]


class Picture:
    """One diagram of a file, ready to draw; `automatic` when the file had no DI for it."""

    def __init__(self, drawing: Drawing, plane: int, automatic: bool) -> None:
        self.drawing = drawing
        self.plane = plane
        self.automatic = automatic

    def svg(self) -> str:
        return to_svg(self.drawing, self.plane)

    def element(self) -> etree._Element:
        return draw(self.drawing, self.plane)


def of_instance(instance: Instance, file: str | Path | None = None) -> Picture:
    """The diagram an instance runs: from `file` (the same diagram with a layout of its
    own, say), else from the definitions the instance is pinned to."""
    if file is not None:
        return picture(file, instance.process_id)
    definitions = instance.definitions
    return picture(definitions.path, instance.process_id, source=definitions.source)


def instance_svg(instance: Instance, file: str | Path | None = None) -> etree._Element:
    """The instance's diagram with its tokens, history, waits and incident painted on."""
    outcome = instance.outcome()
    waiting = [w["element"] for w in outcome.waiting_for]
    marks = instance_marks(instance.tokens(), instance.history(), outcome.incident, waiting)
    return paint(of_instance(instance, file).element(), marks)


def instance_page(
    instance: Instance, reload_seconds: float | None = None, file: str | Path | None = None
) -> str:
    """A self-contained HTML page: the painted diagram, a legend, the variables, the history."""
    outcome = instance.outcome()
    summary = [f"state: {outcome.state}"]
    if outcome.end_event:
        summary.append(f"ended at {outcome.end_event}")
    if outcome.incident:
        summary.append(f"incident: {outcome.incident}")
    return page(
        f"instance {instance.id} of {instance.process_id}",
        instance_svg(instance, file),
        summary=summary,
        variables=outcome.variables,
        history=instance.history(),
        reload_seconds=reload_seconds,
    )


def picture(
    path: str | Path, process: str | None = None, *, source: bytes | None = None
) -> Picture:
    """The diagram of `process` in the file (the plane that shows it, alone or as a pool of
    a collaboration), else the file's first; laid out automatically when the file has no
    DI for it. `source`: the file's text as the store keeps it (the file may be gone)."""
    drawing = read_drawing(path, source)
    index = _plane_of(drawing, process)
    if index is not None:
        return Picture(drawing, index, automatic=False)
    automatic = laid_out(drawing)
    index = _plane_of(automatic, process)
    if index is None:
        known = ", ".join(e.id for e in drawing.elements.values() if e.kind == "process")
        what = f"no process {process!r}" if process else "no process with flow nodes"
        raise UsageError(f"{path}: {what} to draw (processes: {known or 'none'})")
    return Picture(automatic, index, automatic=True)


def _plane_of(drawing: Drawing, process: str | None) -> int | None:
    for index, plane in enumerate(drawing.planes):
        if not plane.shapes:
            continue
        if process is None or plane.element == process:
            return index
        if any(s.element.attributes.get("processRef") == process for s in plane.shapes):
            return index
    return None
