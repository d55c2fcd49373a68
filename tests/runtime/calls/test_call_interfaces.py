"""A called process's `ioSpecification` is its interface (docs/call-activities.md#variables).

Without mappings on the call activity, only the called process's data inputs go in and only
its data outputs come back; every other variable of the child stays in the child. Explicit
mappings on the call activity come first.
"""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine, Instance

from ..conftest import HEADER


def diagram(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "interface.bpmn"
    path.write_text(HEADER + body + "</definitions>")
    return path


def parent(call: str = '<callActivity id="call" calledElement="child"/>') -> str:
    return f"""
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    {call}
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>
"""


def child(io: str, code: str) -> str:
    return f"""
  <process id="child" isExecutable="true">
    <ioSpecification>{io}</ioSpecification>
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>{code}</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="work" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


DOUBLES = child(
    '<dataInput id="x"/><dataOutput id="y"/>',
    "y = x * 2\nkeep = 'child'\ntmp = 1",
)


def called(engine: Engine, root: Instance) -> list[Instance]:
    return [engine.instance(i) for i in engine.family(root.id)[1:]]


def test_only_data_inputs_go_in_and_only_data_outputs_come_back(tmp_path: Path) -> None:
    path = diagram(tmp_path, parent() + DOUBLES)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"x": 21, "keep": "parent", "secret": "s"})
    outcome = root.run()
    assert outcome.state == "completed"
    # the child's own keep and tmp stay in the child
    assert outcome.variables == {"x": 21, "keep": "parent", "secret": "s", "y": 42}
    [instance] = called(engine, root)
    assert instance.variables == {"x": 21, "y": 42, "keep": "child", "tmp": 1}


def test_a_data_input_is_matched_by_its_name_too(tmp_path: Path) -> None:
    io = '<dataInput id="in_1" name="amount"/><dataOutput id="out_1" name="total"/>'
    path = diagram(tmp_path, parent() + child(io, "out_1 = in_1 + 1"))
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"amount": 5})
    assert root.run().variables == {"amount": 5, "out_1": 6}
    [instance] = called(engine, root)
    assert instance.variables == {"in_1": 5, "out_1": 6}


def test_a_direction_the_interface_declares_nothing_for_passes_everything(
    tmp_path: Path,
) -> None:
    """As SpiffWorkflow runs it: no data outputs, every variable comes back; no data inputs,
    every variable goes in."""
    path = diagram(tmp_path, parent() + child('<dataInput id="x"/>', "y = x"))
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"x": 1}).run()
    assert outcome.state == "completed" and outcome.variables == {"x": 1, "y": 1}
    path = diagram(tmp_path, parent() + child('<dataOutput id="y"/>', "y = x\nz = 2"))
    outcome = Engine(tmp_path / "f.db").start(path, "parent", {"x": 3, "w": 0}).run()
    assert outcome.state == "completed" and outcome.variables == {"x": 3, "w": 0, "y": 3}


def test_a_missing_data_input_is_an_incident_at_the_call_activity(tmp_path: Path) -> None:
    io = '<dataInput id="in_1" name="amount"/><dataOutput id="y"/>'
    path = diagram(tmp_path, parent() + child(io, "y = in_1"))
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"other": 1})
    outcome = root.run()
    assert outcome.state == "failed"
    assert outcome.incident == (
        "call: process 'child' requires data input 'in_1', and no variable 'in_1' (or "
        "'amount') is visible at the call activity: set it before the call, or map it with "
        "a data input association"
    )
    assert called(engine, root) == []  # refused before any child started


def test_a_data_output_the_child_never_set_is_an_incident(tmp_path: Path) -> None:
    io = '<dataInput id="x"/><dataOutput id="y"/><dataOutput id="z"/>'
    path = diagram(tmp_path, parent() + child(io, "y = x"))
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"x": 1}).run()
    assert outcome.state == "failed"
    assert outcome.incident == (
        "call: the called process's data output 'z' was not set by the called instance"
    )


def test_explicit_mappings_come_before_the_interface(tmp_path: Path) -> None:
    call = """<callActivity id="call"><extensionElements>
      <zeebe:calledElement processId="child"/>
      <zeebe:ioMapping><zeebe:output source="=tmp + y" target="result"/></zeebe:ioMapping>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + DOUBLES)
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"x": 2, "keep": "p"}).run()
    # in: no input mapping, so the interface (x only); out: the output mapping, over every
    # child variable
    assert outcome.variables == {"x": 2, "keep": "p", "result": 5}


def test_camunda_in_and_out_ignore_the_interface(tmp_path: Path) -> None:
    call = """<callActivity id="call" calledElement="child"><extensionElements>
      <camunda:in source="amount" target="x"/><camunda:out source="keep" target="theirs"/>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + DOUBLES)
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"amount": 3}).run()
    assert outcome.variables == {"amount": 3, "theirs": "child"}
