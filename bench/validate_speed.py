"""How fast `bpmn validate` is: files per second on 1 000 generated diagrams and on MIWG.

Run: python bench/validate_speed.py [--files N] [--seed S]

The generated diagrams are structured (blocks of tasks, XOR and AND splits with their joins,
a few expanded subprocesses), with diagram interchange, so every layer has work to do. Prints
figures only; there is no pass or fail.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bpmn_engine.validate import validate  # noqa: E402

MIWG = ROOT / "tests" / "fixtures" / "miwg"
CELL_W, CELL_H = 160, 120
TASK = (100, 80)
GATEWAY = (50, 50)
EVENT = (36, 36)
HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI"
  xmlns:dc="http://www.omg.org/spec/DD/20100524/DC"
  xmlns:di="http://www.omg.org/spec/DD/20100524/DI"
  id="Definitions_{n}" targetNamespace="http://example.com/bench">
"""


@dataclass
class Diagram:
    """Semantic XML per scope, and shapes/edges for the one DI plane."""

    rng: random.Random
    counter: int = 0
    shapes: list[str] = field(default_factory=list)
    edges: list[str] = field(default_factory=list)
    centres: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)

    def new_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}_{self.counter}"

    def node(self, out: list[str], tag: str, col: int, row: int, size: tuple, **attrs: str) -> str:
        node_id = self.new_id(tag)
        extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
        out.append(f'<bpmn:{tag} id="{node_id}" name="{tag} {self.counter}"{extra}/>')
        self.shape(node_id, col, row, size)
        return node_id

    def shape(self, node_id: str, col: float, row: float, size: tuple, **bounds: float) -> None:
        w, h = bounds.get("w", size[0]), bounds.get("h", size[1])
        x = bounds.get("x", 100 + col * CELL_W + (CELL_W - w) / 2)
        y = bounds.get("y", 100 + row * CELL_H + (CELL_H - h) / 2)
        self.centres[node_id] = (x, y, w, h)
        self.shapes.append(
            f'<bpmndi:BPMNShape id="{node_id}_di" bpmnElement="{node_id}">'
            f'<dc:Bounds x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" height="{h:.0f}"/>'
            "</bpmndi:BPMNShape>"
        )

    def flow(self, out: list[str], source: str, target: str, condition: str | None = None) -> None:
        flow_id = self.new_id("Flow")
        if condition is None:
            out.append(
                f'<bpmn:sequenceFlow id="{flow_id}" sourceRef="{source}" targetRef="{target}"/>'
            )
        else:
            out.append(
                f'<bpmn:sequenceFlow id="{flow_id}" name="{condition}" sourceRef="{source}" '
                f'targetRef="{target}"><bpmn:conditionExpression>{condition}'
                "</bpmn:conditionExpression></bpmn:sequenceFlow>"
            )
        sx, sy, sw, sh = self.centres[source]
        tx, ty, _, th = self.centres[target]
        start, end = (sx + sw, sy + sh / 2), (tx, ty + th / 2)
        points = [start, (start[0] + 20, start[1]), (start[0] + 20, end[1]), end]
        waypoints = "".join(f'<di:waypoint x="{x:.0f}" y="{y:.0f}"/>' for x, y in points)
        self.edges.append(
            f'<bpmndi:BPMNEdge id="{flow_id}_di" bpmnElement="{flow_id}">'
            f"{waypoints}</bpmndi:BPMNEdge>"
        )

    def block(self, out: list[str], col: int, row: int, depth: int) -> tuple[str, str, int, int]:
        """Lay out one block at (col, row): (entry id, exit id, width, height) in cells."""
        choice = self.rng.random()
        if depth >= 2 or choice < 0.45:
            task = self.node(
                out, self.rng.choice(["task", "userTask", "serviceTask"]), col, row, TASK
            )
            return task, task, 1, 1
        if choice < 0.85:
            return self.gateways(out, col, row, depth)
        return self.subprocess(out, col, row)

    def gateways(self, out: list[str], col: int, row: int, depth: int) -> tuple[str, str, int, int]:
        kind = self.rng.choice(["exclusiveGateway", "parallelGateway"])
        split = self.node(out, kind, col, row, GATEWAY)
        branches, height, width = [], 0, 1
        for _ in range(self.rng.randint(2, 3)):
            entry, exit_, w, h = self.sequence(out, col + 1, row + height, depth + 1)
            branches.append((entry, exit_))
            height, width = height + h, max(width, w)
        join = self.node(out, kind, col + 1 + width, row, GATEWAY)
        for i, (entry, exit_) in enumerate(branches):
            condition = f"x == {i}" if kind == "exclusiveGateway" else None
            self.flow(out, split, entry, condition)
            self.flow(out, exit_, join)
        return split, join, width + 2, height

    def subprocess(self, out: list[str], col: int, row: int) -> tuple[str, str, int, int]:
        sub_id = self.new_id("SubProcess")
        inner: list[str] = []
        start = self.node(inner, "startEvent", col, row, EVENT)
        task = self.node(inner, "task", col + 1, row, TASK)
        end = self.node(inner, "endEvent", col + 2, row, EVENT)
        self.flow(inner, start, task)
        self.flow(inner, task, end)
        out.append(f'<bpmn:subProcess id="{sub_id}" name="sub {self.counter}">')
        out.extend(inner)
        out.append("</bpmn:subProcess>")
        x, y = 100 + col * CELL_W + 5, 100 + row * CELL_H + 5
        bounds = {"x": x, "y": y, "w": 3 * CELL_W - 10, "h": CELL_H - 10}
        self.shape(sub_id, col, row, TASK, **bounds)
        return sub_id, sub_id, 3, 1

    def sequence(self, out: list[str], col: int, row: int, depth: int) -> tuple[str, str, int, int]:
        first = last = None
        width = height = 0
        for _ in range(self.rng.randint(1, 3)):
            entry, exit_, w, h = self.block(out, col + width, row, depth)
            if last is not None:
                self.flow(out, last, entry)
            first = first or entry
            last, width, height = exit_, width + w, max(height, h)
        assert first is not None and last is not None
        return first, last, width, height


def generate(n: int, rng: random.Random) -> str:
    diagram = Diagram(rng)
    body: list[str] = []
    start = diagram.node(body, "startEvent", 0, 0, EVENT)
    entry, exit_, width, _ = diagram.sequence(body, 1, 0, 0)
    end = diagram.node(body, "endEvent", 1 + width, 0, EVENT)
    diagram.flow(body, start, entry)
    diagram.flow(body, exit_, end)
    return (
        HEADER.format(n=n)
        + f'<bpmn:process id="Process_{n}" isExecutable="true">\n'
        + "\n".join(body)
        + "\n</bpmn:process>\n"
        + f'<bpmndi:BPMNDiagram id="Diagram_{n}"><bpmndi:BPMNPlane id="Plane_{n}" '
        + f'bpmnElement="Process_{n}">\n'
        + "\n".join(diagram.shapes + diagram.edges)
        + "\n</bpmndi:BPMNPlane></bpmndi:BPMNDiagram>\n</bpmn:definitions>\n"
    )


def measure(label: str, path: Path) -> None:
    started = time.perf_counter()
    report = validate(path)
    seconds = time.perf_counter() - started
    files = len(report.files)
    rate = files / seconds if seconds else float("inf")
    print(
        f"{label}: {files} files in {seconds:.2f} s = {rate:.0f} files/s "
        f"({report.errors} errors, {report.warnings} warnings)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="bpmn-bench-") as folder:
        for n in range(args.files):
            Path(folder, f"generated-{n:04}.bpmn").write_text(generate(n, rng), encoding="utf-8")
        measure("generated", Path(folder))
    if MIWG.is_dir():
        measure("MIWG reference", MIWG)
    else:
        print(f"MIWG reference: not found at {MIWG}")


if __name__ == "__main__":
    main()
