"""Pictures of diagrams: BPMN DI read (`di`), drawn as SVG (`svg`), laid out when missing
(`layout`). `bpmn render` is the command over it."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.diagram.di import Drawing, Plane, read_drawing
from bpmn_engine.diagram.layout import laid_out
from bpmn_engine.diagram.svg import draw, to_svg
from bpmn_engine.errors import UsageError

__all__ = ["Drawing", "Picture", "Plane", "draw", "laid_out", "picture", "read_drawing", "to_svg"]


class Picture:
    """One diagram of a file, ready to draw; `automatic` when the file had no DI for it."""

    def __init__(self, drawing: Drawing, plane: int, automatic: bool) -> None:
        self.drawing = drawing
        self.plane = plane
        self.automatic = automatic

    def svg(self) -> str:
        return to_svg(self.drawing, self.plane)


def picture(path: str | Path, process: str | None = None) -> Picture:
    """The diagram of `process` in the file (the plane that shows it, alone or as a pool of
    a collaboration), else the file's first; laid out automatically when the file has no
    DI for it."""
    drawing = read_drawing(path)
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
