"""Synthetic diagrams for the runtime benchmark, each stressing one part of the step loop.

Run: python bench/generate.py [--out DIR] NAME [NAME ...]   e.g. seq_1000 par_1000 loop_1000

- `seq_N`: a chain of N tasks (the plain step cost).
- `par_N`: a parallel split into N one-task branches and the join (fan-out and join bookkeeping).
- `loop_N`: a script task and an exclusive gateway that loops back N times (`n = n + 1`,
  back flow `n < N`, default flow to the end; start with n=0): expressions, and re-entering one
  element many times.
- `nested_N`: N embedded subprocesses, one inside the other, a task in the innermost (scopes).
- `wide_or_N`: an inclusive split into N branches all conditioned `${true}` and the inclusive
  join (the OR-join rule).
- `wait_N`: a user task `Approve`, then a chain of N tasks: an instance that waits, for the
  resume measurement.

The files are plain executable BPMN without diagram interchange: the runtime does not need it.
Conditions and scripts are written in plain Python so SpiffWorkflow can run the same files
(it cannot parse `${...}`, so `wide_or_N` is ours alone).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    ' id="Definitions_{name}" targetNamespace="http://example.com/bench">\n'
    '<bpmn:process id="{process}" isExecutable="true">\n'
)
FOOTER = "</bpmn:process>\n</bpmn:definitions>\n"

KINDS = ("seq", "par", "loop", "nested", "wide_or", "wait")


def process_id(name: str) -> str:
    """The process id used in a diagram's file (an XML id cannot start with a digit)."""
    return "Bench_" + name


def _flow(
    out: list[str], flow_id: str, source: str, target: str, condition: str | None = None
) -> None:
    if condition is None:
        out.append(f'<bpmn:sequenceFlow id="{flow_id}" sourceRef="{source}" targetRef="{target}"/>')
        return
    out.append(
        f'<bpmn:sequenceFlow id="{flow_id}" sourceRef="{source}" targetRef="{target}">'
        f'<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">{escape(condition)}'
        "</bpmn:conditionExpression></bpmn:sequenceFlow>"
    )


def _chain(out: list[str], first: str, n: int) -> None:
    """N tasks after `first`, then the end event."""
    previous = first
    for i in range(1, n + 1):
        out.append(f'<bpmn:task id="Task_{i}"/>')
        _flow(out, f"Flow_{i}", previous, f"Task_{i}")
        previous = f"Task_{i}"
    out.append('<bpmn:endEvent id="EndEvent"/>')
    _flow(out, "Flow_End", previous, "EndEvent")


def seq(n: int) -> list[str]:
    out = ['<bpmn:startEvent id="StartEvent"/>']
    _chain(out, "StartEvent", n)
    return out


def wait(n: int) -> list[str]:
    out = ['<bpmn:startEvent id="StartEvent"/>', '<bpmn:userTask id="Approve" name="Approve"/>']
    _flow(out, "Flow_Approve", "StartEvent", "Approve")
    _chain(out, "Approve", n)
    return out


def _split_join(n: int, gateway: str, condition: str | None) -> list[str]:
    out = [
        '<bpmn:startEvent id="StartEvent"/>',
        f'<bpmn:{gateway} id="Split"/>',
        f'<bpmn:{gateway} id="Join"/>',
        '<bpmn:endEvent id="EndEvent"/>',
    ]
    _flow(out, "Flow_Start", "StartEvent", "Split")
    for i in range(1, n + 1):
        out.append(f'<bpmn:task id="Task_{i}"/>')
        _flow(out, f"Flow_In_{i}", "Split", f"Task_{i}", condition)
        _flow(out, f"Flow_Out_{i}", f"Task_{i}", "Join")
    _flow(out, "Flow_End", "Join", "EndEvent")
    return out


def par(n: int) -> list[str]:
    return _split_join(n, "parallelGateway", None)


def wide_or(n: int) -> list[str]:
    return _split_join(n, "inclusiveGateway", "${true}")


def loop(n: int) -> list[str]:
    out = [
        '<bpmn:startEvent id="StartEvent"/>',
        '<bpmn:scriptTask id="Count" scriptFormat="python"><bpmn:script>n = n + 1'
        "</bpmn:script></bpmn:scriptTask>",
        '<bpmn:exclusiveGateway id="More" default="Flow_Done"/>',
        '<bpmn:endEvent id="EndEvent"/>',
    ]
    _flow(out, "Flow_Start", "StartEvent", "Count")
    _flow(out, "Flow_Check", "Count", "More")
    _flow(out, "Flow_Again", "More", "Count", f"n < {n}")
    _flow(out, "Flow_Done", "More", "EndEvent")
    return out


def nested(n: int) -> list[str]:
    def level(depth: int) -> list[str]:
        out = [f'<bpmn:startEvent id="Start_{depth}"/>', f'<bpmn:endEvent id="End_{depth}"/>']
        if depth == n:
            inner = f"Task_{depth}"
            out.append(f'<bpmn:task id="{inner}"/>')
        else:
            inner = f"Sub_{depth + 1}"
            out.append(f'<bpmn:subProcess id="{inner}">')
            out += level(depth + 1)
            out.append("</bpmn:subProcess>")
        _flow(out, f"Flow_In_{depth}", f"Start_{depth}", inner)
        _flow(out, f"Flow_Out_{depth}", inner, f"End_{depth}")
        return out

    return level(0)


BUILDERS: dict[str, Callable[[int], list[str]]] = {
    "seq": seq,
    "par": par,
    "loop": loop,
    "nested": nested,
    "wide_or": wide_or,
    "wait": wait,
}


def parse_name(name: str) -> tuple[str, int]:
    """`seq_1000` -> ("seq", 1000); the kind is everything before the last underscore."""
    kind, _, size = name.rpartition("_")
    if kind not in BUILDERS or not size.isdigit() or int(size) < 1:
        raise ValueError(f"unknown diagram {name!r}: use KIND_N with KIND in {', '.join(KINDS)}")
    return kind, int(size)


def render(name: str) -> str:
    """The BPMN XML of one named diagram."""
    kind, size = parse_name(name)
    body = "\n".join(BUILDERS[kind](size))
    return HEADER.format(name=name, process=process_id(name)) + body + "\n" + FOOTER


def write(name: str, out_dir: Path) -> Path:
    """Write `<out_dir>/<name>.bpmn` and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.bpmn"
    path.write_text(render(name), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+", metavar="NAME", help="e.g. seq_1000, wide_or_50")
    parser.add_argument("--out", type=Path, default=Path("bench-diagrams"))
    args = parser.parse_args(argv)
    try:
        for name in args.names:
            print(write(name, args.out))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
