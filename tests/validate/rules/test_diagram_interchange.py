"""The DI rules: which shapes bpmnlint expects, compares and measures."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.validate.rules import no_bpmndi, no_overlapping_elements, standard_size
from tests.validate.rules.bpmnxml import definitions, diagram, edge, process, read, run, shape

COLLABORATION = (
    '<collaboration id="Collab">'
    '<participant id="Pool" name="Pool" processRef="Process"/>'
    '<participant id="Partner" name="Partner"/>'
    '<messageFlow id="Mail" sourceRef="Task" targetRef="Partner"/>'
    "</collaboration>"
)
PROCESS = process(
    '<laneSet id="Lanes"><lane id="Lane" name="Lane"/></laneSet>',
    '<task id="Task" name="Task"/>',
    '<boundaryEvent id="Timer" attachedToRef="Task"><timerEventDefinition/></boundaryEvent>',
    '<dataObject id="Data"/>',
    '<dataStoreReference id="Store"/>',
    '<subProcess id="Sub"><task id="Inner" name="Inner"/></subProcess>',
    '<textAnnotation id="Note"><text>n</text></textAnnotation>',
)


def _diagram(*, store_x: float = 300, inner_x: float = 420, sub_extra: str = "") -> str:
    return definitions(
        COLLABORATION,
        PROCESS,
        diagram(
            shape("Pool", 0, 0, 800, 300, ' isHorizontal="true"'),
            shape("Partner", 0, 400, 800, 60),
            shape("Lane", 30, 0, 770, 300),
            shape("Task", 100, 100, 100, 80),
            shape("Timer", 182, 162, 36, 36),
            shape("Store", store_x, 100, 50, 50),
            shape("Sub", 400, 50, 350, 200, sub_extra or ' isExpanded="true"'),
            shape("Inner", inner_x, 100, 100, 80),
            shape("Note", 600, 260, 100, 30),
            edge("Mail"),
            plane="Collab",
        ),
    )


def test_every_drawn_element_needs_di_but_data_objects(tmp_path: Path) -> None:
    assert run(tmp_path, no_bpmndi.RULE, _diagram()) == []
    bare = definitions(COLLABORATION, PROCESS)
    missing = [i.element for i in run(tmp_path, no_bpmndi.RULE, bare)]
    assert missing == [
        "Pool", "Partner", "Mail", "Task", "Timer", "Store", "Sub", "Inner", "Note", "Lane",
    ]  # fmt: skip


def test_boundary_events_may_overlap_their_host(tmp_path: Path) -> None:
    assert run(tmp_path, no_overlapping_elements.RULE, _diagram()) == []


def test_overlap_and_leaving_the_parent(tmp_path: Path) -> None:
    overlapping = _diagram(store_x=150)
    found = {i.element for i in run(tmp_path, no_overlapping_elements.RULE, overlapping)}
    assert found == {"Task", "Store"}
    outside = _diagram(inner_x=700)  # sticks out of the expanded subprocess
    issues = run(tmp_path, no_overlapping_elements.RULE, outside)
    assert [(i.element, i.message) for i in issues] == [
        ("Inner", "Element is outside of parent boundary")
    ]
    # a data store may lie outside its pool, for historical reasons
    assert run(tmp_path, no_overlapping_elements.RULE, _diagram(store_x=900)) == []


def test_standard_size_skips_containers_that_follow_their_content(tmp_path: Path) -> None:
    # pool with content, lane and expanded subprocess are not measured; the empty pool
    # (60 high) and the 100x80 tasks are standard
    assert run(tmp_path, standard_size.RULE, _diagram()) == []
    collapsed = _diagram(sub_extra=' isExpanded="false"')
    issues = run(tmp_path, standard_size.RULE, collapsed)
    assert [(i.element, i.message) for i in issues] == [
        ("Sub", "Element has a non-standard size; expected 100x80")
    ]


def test_standard_size_empty_pool_and_configured_sizes(tmp_path: Path) -> None:
    xml = _diagram().replace('width="800" height="60"', 'width="800" height="80"')
    issues = run(tmp_path, standard_size.RULE, xml)
    assert [(i.element, i.message) for i in issues] == [
        ("Partner", "Element has a non-standard height; expected height of 60")
    ]
    document = read(tmp_path, _diagram())
    document.rule_options["standard-size"] = {"bpmn:Task": {"width": 120, "height": 80}}
    assert {i.element for i in standard_size.RULE.check(document)} == {"Task", "Inner"}
