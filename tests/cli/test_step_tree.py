"""`bpmn step` over a call tree: the children's tokens are listed, stepped and rewound with
the root's, each naming its instance; going back across a call is refused, not corrupted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bpmn_engine import Engine, UsageError
from bpmn_engine.cli.step import Stepper
from tests.cli.conftest import Bpmn

TREE = """<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"
  targetNamespace="t">
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    <callActivity id="call" calledElement="child"/>
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>y = x * 2</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="work" targetRef="approve"/>
    <userTask id="approve"/>
    <sequenceFlow id="c3" sourceRef="approve" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
</definitions>"""


def stepper(tmp_path: Path) -> Stepper:
    path = tmp_path / "tree.bpmn"
    path.write_text(TREE)
    engine = Engine(tmp_path / "step.db")
    return Stepper(engine, engine.start(path, "parent", {"x": 2}))


def tree_state(s: Stepper) -> list[dict]:
    """Everything observable about every instance of the tree, from its rows alone."""
    return [s.engine.instance(i).to_json() for i in s.engine.family(s.instance.id)]


def test_next_steps_into_the_child_one_element_at_a_time(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    moved = []
    for _ in range(5):
        report = s.execute("next")
        assert report.ok, report.message
        moved.append(report.message)
    child = s.engine.family(s.instance.id)[1]
    assert moved == [
        "enter ps (track #1)",
        "enter call (track #1)",  # the call: the child is started, and waits to be stepped
        f"enter cs (track #1) in {child}",
        f"enter work (track #1) in {child}",
        f"enter approve (track #1) in {child}",
    ]
    assert s.engine.instance(child).variables == {"x": 2, "y": 4}
    tokens = {(t.instance.id, t.element) for t in s.actions()}
    assert tokens == {(child, "approve")}  # the person's task in the child


def test_the_whole_tree_completes_through_complete_and_continue(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    assert s.execute("continue").ok
    child = s.engine.family(s.instance.id)[1]
    assert [(a.instance.id, a.element) for a in s.actions()] == [(child, "approve")]
    report = s.execute("complete approve ok=true")
    assert report.ok and report.message == f"completed approve in {child}"
    assert s.execute("continue").ok
    assert s.instance.outcome().state == "completed"
    assert s.instance.variables == {"ok": True, "x": 2, "y": 4}


def test_back_rewinds_a_childs_completion_and_the_parents_receipt_together(
    tmp_path: Path,
) -> None:
    s = stepper(tmp_path)
    s.execute("continue")
    s.execute("complete approve")
    before_end = tree_state(s)
    report = s.execute("next")  # the child's end event: it completes, the root hears it
    assert report.ok and report.message.startswith("enter ce")
    assert [str(i.state) for i in s.tree()] == ["active", "completed"]
    assert s.execute("back").ok
    assert tree_state(s) == before_end  # both instances, exactly
    assert s.execute("next").ok  # and it goes forward again the same way
    assert s.execute("continue").ok
    assert s.instance.outcome().state == "completed"


def test_back_within_the_child_and_then_past_the_call_is_refused(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    for _ in range(3):
        s.execute("next")  # ps, call (starts the child), the child's start event
    after_call = tree_state(s)
    s.execute("next")  # the child's script
    assert s.execute("back").ok
    assert tree_state(s) == after_call
    assert s.execute("back").ok  # the child's start event
    refused = s.execute("back")  # the call that started the child
    assert not refused.ok
    assert "cannot be un-started" in refused.message
    assert len(s.engine.family(s.instance.id)) == 2


def test_rewinding_a_parents_receipt_without_the_childs_step_is_refused(tmp_path: Path) -> None:
    s = stepper(tmp_path)
    s.execute("continue")
    s.execute("complete approve")
    s.execute("next")
    before = tree_state(s)
    with pytest.raises(UsageError, match="would never come again"):
        s.engine.rewind(s.instance.id, 1)  # the root alone: the completion would be lost
    assert tree_state(s) == before


def test_piped_json_names_the_instance_of_each_token_and_action(bpmn: Bpmn) -> None:
    path = bpmn.cwd / "tree.bpmn"
    path.write_text(TREE)
    done = bpmn("step", str(path), "--var", "x=2", "--json", input="continue\nback\n")
    assert done.returncode == 3, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    root = lines[0]["result"].split()[1]
    tokens = {(t["instance"] == root, t["element"], t["process"]) for t in lines[1]["tokens"]}
    assert tokens == {(True, "call", "parent"), (False, "approve", "child")}
    [action] = lines[1]["actions"]
    assert (action["kind"], action["element"]) == ("complete-task", "approve")
    assert action["instance"] != root
    assert not lines[2]["ok"] and "cannot be un-started" in lines[2]["result"]
