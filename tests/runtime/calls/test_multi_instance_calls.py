"""Multi-instance and looped call activities: one child instance per inner instance.

Each inner instance of the body sends its own `call` row, so each child has its own id, its own
input element and its own counters; the outputs land in input order, a completion condition or
an interrupting boundary event cancels the children still running.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, Instance
from bpmn_engine.runtime.clock import VirtualClock

from ..conftest import HEADER, crash_with


def diagram(tmp_path: Path, body: str, name: str = "calls.bpmn") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + body + "</definitions>")
    return path


def mi(sequential: bool = False, extra: str = "") -> str:
    flag = "true" if sequential else "false"
    return (
        f'<multiInstanceLoopCharacteristics isSequential="{flag}">'
        "<loopDataInputRef>items</loopDataInputRef>"
        "<loopDataOutputRef>results</loopDataOutputRef>"
        f'<inputDataItem id="item"/><outputDataItem id="result"/>{extra}'
        "</multiInstanceLoopCharacteristics>"
    )


def parent(loop: str, boundaries: str = "", called: str = "child") -> str:
    return f"""
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    <callActivity id="call" calledElement="{called}">{loop}</callActivity>
    {boundaries}
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>
"""


CHILD_SCRIPT = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>result = item * 10
counter = loopCounter</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="work" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""

CHILD_WAITS = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="approve"/>
    <userTask id="approve"/>
    <sequenceFlow id="c2" sourceRef="approve" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


def children(engine: Engine, root: Instance) -> list[Instance]:
    return [engine.instance(i) for i in engine.family(root.id)[1:]]


@pytest.mark.parametrize("sequential", [False, True], ids=["parallel", "sequential"])
def test_each_item_calls_its_own_child_and_outputs_keep_input_order(
    tmp_path: Path, sequential: bool
) -> None:
    path = diagram(tmp_path, parent(mi(sequential)) + CHILD_SCRIPT)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": [3, 1, 2]})
    outcome = root.run()
    assert outcome.state == "completed"
    assert outcome.variables["results"] == [30, 10, 20]
    assert "item" not in outcome.variables and "loopCounter" not in outcome.variables
    called = children(engine, root)
    assert len({c.id for c in called}) == 3
    by_item = sorted((c.variables["item"], c.variables["loopCounter"]) for c in called)
    assert by_item == [(1, 2), (2, 3), (3, 1)]  # plain BPMN counts from 1
    assert all(c.state == "completed" and c.parent == root.id for c in called)


def test_a_sequential_body_starts_the_next_child_only_when_the_last_completed(
    tmp_path: Path,
) -> None:
    path = diagram(tmp_path, parent(mi(sequential=True)) + CHILD_WAITS)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": ["a", "b"]})
    assert root.run().state == "waiting"
    [first] = children(engine, root)
    assert first.variables["item"] == "a"
    first.complete_task("approve", {"result": "A"})
    first.run()
    assert [c.state for c in children(engine, root)] == ["completed", "active"]
    second = children(engine, root)[1]
    assert second.variables["item"] == "b"
    second.complete_task("approve", {"result": "B"})
    second.run()
    assert engine.instance(root.id).outcome().variables["results"] == ["A", "B"]


def test_the_childs_copy_of_the_counters_does_not_overwrite_the_bodys(tmp_path: Path) -> None:
    # given: every child gets the counters as they were when it was called (0 completed)
    condition = "<completionCondition>nrOfCompletedInstances &gt;= 3</completionCondition>"
    path = diagram(tmp_path, parent(mi(extra=condition)) + CHILD_WAITS)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": [1, 2, 3, 4]})
    root.run()
    called = children(engine, root)
    assert all(c.variables["nrOfCompletedInstances"] == 0 for c in called)
    # when: three complete, each handing back its stale copy of the counters
    for child, answer in zip(called[:3], ["x", "y", "z"], strict=True):
        child.complete_task("approve", {"result": answer})
        child.run()
    # then: the body counted three, so the condition held and the fourth was cancelled
    outcome = engine.instance(root.id).outcome()
    assert outcome.state == "completed"
    assert outcome.variables["results"] == ["x", "y", "z", None]
    assert [c.state for c in children(engine, root)] == ["completed"] * 3 + ["terminated"]


def test_a_completion_condition_cancels_the_children_still_running(tmp_path: Path) -> None:
    condition = "<completionCondition>result == 'enough'</completionCondition>"
    path = diagram(tmp_path, parent(mi(extra=condition)) + CHILD_WAITS)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": [1, 2, 3]})
    root.run()
    called = children(engine, root)
    assert [len(c.user_tasks()) for c in called] == [1, 1, 1]
    called[1].complete_task("approve", {"result": "enough"})
    called[1].run()
    outcome = engine.instance(root.id).outcome()
    assert (outcome.state, outcome.end_event) == ("completed", "pe")
    assert outcome.variables["results"] == [None, "enough", None]
    after = children(engine, root)
    assert [c.state for c in after] == ["terminated", "completed", "terminated"]
    assert all(c.user_tasks() == [] for c in after)


def test_an_interrupting_boundary_event_cancels_every_child(tmp_path: Path) -> None:
    boundary = """<boundaryEvent id="late" attachedToRef="call">
      <timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>
    </boundaryEvent>
    <sequenceFlow id="p4" sourceRef="late" targetRef="timeout"/>
    <endEvent id="timeout"/>"""
    path = diagram(tmp_path, parent(mi(), boundaries=boundary) + CHILD_WAITS)
    engine = Engine(tmp_path / "e.db", clock=VirtualClock())
    root = engine.start(path, "parent", {"items": [1, 2, 3]})
    outcome = root.run()  # the virtual clock fires the timer once every child waits
    assert (outcome.state, outcome.end_event) == ("completed", "timeout")
    called = children(engine, root)
    assert len(called) == 3
    assert all(c.state == "terminated" and c.user_tasks() == [] for c in called)


def test_cancelling_the_root_cancels_every_child_of_the_body(tmp_path: Path) -> None:
    path = diagram(tmp_path, parent(mi()) + CHILD_WAITS)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": [1, 2]})
    root.run()
    root.cancel()
    assert [c.state for c in children(engine, root)] == ["terminated", "terminated"]


def test_an_empty_collection_calls_nobody(tmp_path: Path) -> None:
    path = diagram(tmp_path, parent(mi()) + CHILD_SCRIPT)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": []})
    assert root.run().variables["results"] == []
    assert children(engine, root) == []


def test_camunda_collection_and_in_mapping_per_child(tmp_path: Path) -> None:
    # given: Camunda 7 spelling, the element variable passed by a camunda:in
    loop = (
        '<multiInstanceLoopCharacteristics camunda:collection="${items}" '
        'camunda:elementVariable="item"/>'
    )
    call = f"""
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    <callActivity id="call" calledElement="child"><extensionElements>
      <camunda:in source="item" target="item"/>
      <camunda:in source="loopCounter" target="loopCounter"/>
    </extensionElements>{loop}</callActivity>
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>"""
    path = diagram(tmp_path, call + CHILD_SCRIPT)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": [5, 6]})
    outcome = root.run()
    assert outcome.state == "completed"
    assert "result" not in outcome.variables  # no camunda:out: nothing comes back
    counters = sorted(c.variables["loopCounter"] for c in children(engine, root))
    assert counters == [0, 1]  # Camunda 7 counts from 0


def test_a_standard_loop_calls_a_new_child_per_iteration(tmp_path: Path) -> None:
    loop = '<standardLoopCharacteristics loopMaximum="3"/>'
    child = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>total = total + 1</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="work" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>"""
    path = diagram(tmp_path, parent(loop) + child)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"total": 0})
    assert root.run().variables["total"] == 3
    assert len(children(engine, root)) == 3


CHILD_WITH_MI = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="lines"/>
    <scriptTask id="lines" scriptFormat="python">
      <multiInstanceLoopCharacteristics>
        <loopDataInputRef>item</loopDataInputRef>
        <loopDataOutputRef>result</loopDataOutputRef>
        <inputDataItem id="line"/><outputDataItem id="price"/>
      </multiInstanceLoopCharacteristics>
      <script>price = line * 2</script>
    </scriptTask>
    <sequenceFlow id="c2" sourceRef="lines" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


def test_a_called_process_with_a_multi_instance_inside(tmp_path: Path) -> None:
    body = """
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    <callActivity id="call" calledElement="child"/>
    <sequenceFlow id="p2" sourceRef="call" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>"""
    path = diagram(tmp_path, body + CHILD_WITH_MI)
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"item": [1, 2, 3]}).run()
    assert outcome.state == "completed"
    assert outcome.variables["result"] == [2, 4, 6]


def test_a_multi_instance_call_whose_child_has_a_multi_instance_inside(tmp_path: Path) -> None:
    # given: one child per order, each pricing its own lines with a multi-instance task
    path = diagram(tmp_path, parent(mi()) + CHILD_WITH_MI)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": [[1, 2], [], [5]]})
    outcome = root.run()
    assert outcome.state == "completed"
    assert outcome.variables["results"] == [[2, 4], [], [10]]
    assert len(children(engine, root)) == 3


CRASHING = """
import os, sys
from bpmn_engine import Engine
from bpmn_engine.runtime.engine import outbox
db, path, crash = sys.argv[1], sys.argv[2], sys.argv[3]
engine = Engine(db)
real_call = outbox.Postman.call
delivered = []
def die_midway(self, row, *args, **kwargs):
    delivered.append(row.kind)
    if delivered.count(crash) == 2:  # the second child's call, or its completion
        os._exit(0)
    return real_call(self, row, *args, **kwargs)
outbox.Postman.call = die_midway
engine.start(path, "parent", {"items": [1, 2, 3]}).run()
"""


@pytest.mark.parametrize("crash", ["call", "completion"])
def test_a_crash_midway_through_the_children_loses_and_doubles_nothing(
    tmp_path: Path, crash: str
) -> None:
    path = diagram(tmp_path, parent(mi()) + CHILD_SCRIPT)
    engine = Engine(crash_with(tmp_path, CRASHING, path, crash))
    assert engine.store.pending_outbox(), "the crash left rows undelivered"
    [root_id] = [r["id"] for r in engine.instances() if r["parent_instance"] is None]
    outcome = engine.instance(root_id).run()  # what `bpmn resume` does
    assert outcome.state == "completed" and outcome.variables["results"] == [10, 20, 30]
    family = engine.family(root_id)
    assert len(family) == 4  # three children, each started once
    assert all(engine.instance(i).state == "completed" for i in family)
    completed = [e for e in engine.instance(root_id).history() if e.event == "call.completed"]
    assert len(completed) == 3


def test_a_childs_error_is_caught_at_the_body_and_cancels_the_other_children(
    tmp_path: Path,
) -> None:
    boundary = """<boundaryEvent id="caught" attachedToRef="call">
      <errorEventDefinition errorRef="E"/>
    </boundaryEvent>
    <sequenceFlow id="p4" sourceRef="caught" targetRef="handled"/>
    <endEvent id="handled"/>"""
    child = """
  <error id="E" errorCode="BROKEN"/>
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="gw"/>
    <exclusiveGateway id="gw" default="c3"/>
    <sequenceFlow id="c2" sourceRef="gw" targetRef="fail">
      <conditionExpression>${item == 2}</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="c3" sourceRef="gw" targetRef="approve"/>
    <userTask id="approve"/>
    <sequenceFlow id="c4" sourceRef="approve" targetRef="ce"/>
    <endEvent id="ce"/>
    <endEvent id="fail"><errorEventDefinition errorRef="E"/></endEvent>
  </process>"""
    path = diagram(tmp_path, parent(mi(), boundaries=boundary) + child)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": [1, 3, 2]})  # the last one fails
    outcome = root.run()
    assert (outcome.state, outcome.end_event) == ("completed", "handled")
    states = [(c.variables["item"], str(c.state)) for c in children(engine, root)]
    assert states == [(1, "terminated"), (3, "terminated"), (2, "terminated")]


CHILD_TIMER = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="pause"/>
    <intermediateCatchEvent id="pause">
      <timerEventDefinition><timeDuration>PT0.05S</timeDuration></timerEventDefinition>
    </intermediateCatchEvent>
    <sequenceFlow id="c2" sourceRef="pause" targetRef="work"/>
    <scriptTask id="work" scriptFormat="python"><script>result = item + 1</script></scriptTask>
    <sequenceFlow id="c3" sourceRef="work" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


@pytest.mark.parametrize("policy", ["step", "wait"])
def test_waiting_for_timers_waits_for_the_childrens_timers_too(tmp_path: Path, policy: str) -> None:
    # given: two children (and, through a nested call, a grandchild) that each wait on a timer
    middle = """
  <process id="middle" isExecutable="true">
    <startEvent id="ms"/>
    <sequenceFlow id="m1" sourceRef="ms" targetRef="inner"/>
    <callActivity id="inner" calledElement="child"/>
    <sequenceFlow id="m2" sourceRef="inner" targetRef="me"/>
    <endEvent id="me"/>
  </process>"""
    path = diagram(tmp_path, parent(mi(), called="middle") + middle + CHILD_TIMER)
    engine = Engine(tmp_path / "e.db", checkpoint=policy)
    root = engine.start(path, "parent", {"items": [1, 2]})
    # when: the run may wait for timers due within a minute
    outcome = root.run(wait_timers=60)
    # then: the real clock passed the grandchildren's timers, and the whole tree completed
    assert outcome.state == "completed"
    assert outcome.variables["results"] == [2, 3]
    assert all(engine.instance(i).state == "completed" for i in engine.family(root.id))


def test_without_waiting_for_timers_a_childs_timer_leaves_the_tree_waiting(
    tmp_path: Path,
) -> None:
    path = diagram(tmp_path, parent(mi()) + CHILD_TIMER)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"items": [1]})
    assert root.run().state == "waiting"
    [child] = children(engine, root)
    assert [w["reason"] for w in child.outcome().waiting_for] == ["timer"]
