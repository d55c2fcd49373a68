"""`bpmn render`: every element the DI places has its shape at its bounds, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from bpmn_engine.diagram import picture
from bpmn_engine.errors import LoadError
from tests.cli.conftest import Bpmn
from tests.conftest import MIWG, ROOT

SVG = "{http://www.w3.org/2000/svg}"
BPMNDI = "{http://www.omg.org/spec/BPMN/20100524/DI}"
DC = "{http://www.omg.org/spec/DD/20100524/DC}"
DIAGRAMS = sorted(MIWG.glob("*.bpmn")) + sorted((ROOT / "models").glob("*.bpmn"))


def first_plane(path: Path) -> etree._Element:
    root = etree.parse(str(path)).getroot()
    return next(root.iter(f"{BPMNDI}BPMNPlane"))


@pytest.mark.parametrize("path", DIAGRAMS, ids=lambda p: p.name)
def test_each_shape_is_drawn_at_its_di_bounds(path: Path) -> None:
    svg = etree.fromstring(picture(path).svg().encode())
    drawn = {
        g.get("data-element-id"): g
        for g in svg.iter(f"{SVG}g")
        if "shape" in (g.get("class") or "").split()
    }
    edges = {
        g.get("data-element-id")
        for g in svg.iter(f"{SVG}g")
        if "edge" in (g.get("class") or "").split()
    }
    plane = first_plane(path)
    ids = {e.get("id") for e in plane.getroottree().iter() if isinstance(e.tag, str)} - {None}
    expected_shapes = 0
    for shape in plane.iter(f"{BPMNDI}BPMNShape"):
        if shape.get("bpmnElement") not in ids:
            continue
        expected_shapes += 1
        bounds = shape.find(f"{DC}Bounds")
        group = drawn[shape.get("bpmnElement")]
        want = [float(bounds.get(k)) for k in ("x", "y", "width", "height")]
        got = [float(v) for v in group.get("data-bounds").replace(",", " ").split()]
        assert got == pytest.approx(want, abs=0.01), shape.get("bpmnElement")
        assert len(group), f"{shape.get('bpmnElement')} has an empty shape"
    assert len(drawn) == expected_shapes
    for edge in plane.iter(f"{BPMNDI}BPMNEdge"):
        if edge.get("bpmnElement") in ids:
            assert edge.get("bpmnElement") in edges


def test_event_and_gateway_kinds_get_their_symbols() -> None:
    svg = etree.fromstring(picture(ROOT / "models" / "order-payment.bpmn").svg().encode())
    groups = {g.get("data-element-id"): g for g in svg.iter(f"{SVG}g")}
    end = groups["EndEvent_OrderShipped"].find(f"{SVG}circle")
    assert "stroke-width: 4" in end.get("style")  # a thick end event
    timer = groups["Event_ThirtyMinutes"]
    assert len(timer.findall(f"{SVG}circle")) == 3  # double ring and the clock face
    boundary = groups["Event_OrderCancelled"]
    assert boundary.getparent().get("class") == "boundary-events"  # drawn over its subprocess
    flow = groups["Flow_Shipped"].find(f"{SVG}path")
    assert flow.get("marker-end") == "url(#arrow)"
    lines = [t.text for t in groups["Task_RefundAndRelease"].iter(f"{SVG}tspan")]
    assert lines == ["Refund and", "release"]


def test_names_are_text_never_markup(tmp_path: Path) -> None:
    source = (ROOT / "models" / "loan-approval.bpmn").read_text()
    hostile = "&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp; &quot;quoted&quot;"
    path = tmp_path / "hostile.bpmn"
    path.write_text(source.replace('name="Score application"', f'name="{hostile}"'))
    svg = picture(path).svg()
    tree = etree.fromstring(svg.encode())
    assert not list(tree.iter(f"{SVG}script"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg


def test_a_file_without_di_is_laid_out_and_says_so(bpmn: Bpmn, tmp_path: Path) -> None:
    source = (ROOT / "tests" / "fixtures" / "counter-loop.bpmn").read_text()
    assert "BPMNShape" not in source
    done = bpmn("render", str(ROOT / "tests" / "fixtures" / "counter-loop.bpmn"), "-o", "out.svg")
    assert done.returncode == 0, done.stderr
    assert "laid out automatically" in done.stderr
    svg = etree.parse(str(tmp_path / "out.svg")).getroot()
    drawn = {g.get("data-element-id") for g in svg.iter(f"{SVG}g")}
    flow_nodes = {
        e.get("id")
        for e in etree.fromstring(source.encode()).iter()
        if isinstance(e.tag, str) and e.tag.endswith(("Event", "Task", "task", "Gateway"))
    }
    assert flow_nodes and flow_nodes <= drawn


def test_bad_di_and_unknown_processes_are_refused(bpmn: Bpmn, tmp_path: Path) -> None:
    source = (ROOT / "models" / "loan-approval.bpmn").read_text()
    path = tmp_path / "bad.bpmn"
    path.write_text(source.replace('<dc:Bounds x="', '<dc:Bounds x="wide', 1))
    with pytest.raises(LoadError, match="DI bounds need numbers"):
        picture(path)
    done = bpmn("render", str(path))
    assert done.returncode == 2 and "bad.bpmn:" in done.stderr
    assert "Traceback" not in done.stderr
    done = bpmn("render", str(ROOT / "models" / "loan-approval.bpmn"), "--process", "Nope")
    assert done.returncode == 2 and "no process 'Nope'" in done.stderr
