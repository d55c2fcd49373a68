"""A call tree holds at most `Engine.max_tree_size` instances (docs/call-activities.md).

The depth cap bounds how deep calls nest, not how wide a tree grows: a process that calls
itself under a multi-instance or a parallel fork doubles at each level. The call that would
start one instance too many gets an incident instead, whatever number of calls are on their
way at once; nothing is half-created, and a resume with room in the tree goes on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, UsageError
from tests.postgresql_server import shared_db

from ..conftest import HEADER, MakeEngine


def diagram(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "tree.bpmn"
    path.write_text(HEADER + body + "</definitions>")
    return path


TWICE = (
    '<multiInstanceLoopCharacteristics isSequential="false">'
    "<loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>"
)

CALLS_ITSELF_TWICE = f"""
  <process id="loop" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="again"/>
    <callActivity id="again" calledElement="loop">{TWICE}</callActivity>
    <sequenceFlow id="f2" sourceRef="again" targetRef="e"/>
    <endEvent id="e"/>
  </process>"""

FORKS_INTO_ITSELF = """
  <process id="fork" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <parallelGateway id="split"/>
    <sequenceFlow id="f2" sourceRef="split" targetRef="left"/>
    <sequenceFlow id="f3" sourceRef="split" targetRef="right"/>
    <callActivity id="left" calledElement="fork"/>
    <callActivity id="right" calledElement="fork"/>
    <sequenceFlow id="f4" sourceRef="left" targetRef="join"/>
    <sequenceFlow id="f5" sourceRef="right" targetRef="join"/>
    <parallelGateway id="join"/>
    <sequenceFlow id="f6" sourceRef="join" targetRef="e"/>
    <endEvent id="e"/>
  </process>"""

# calls itself twice while n > 0, with n - 1: 1 + 2 + 4 + ... + 2^n instances
HALVES = f"""
  <process id="tree" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="more"/>
    <exclusiveGateway id="more" default="done"/>
    <sequenceFlow id="deeper" sourceRef="more" targetRef="again">
      <conditionExpression>${{n &gt; 0}}</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="done" sourceRef="more" targetRef="join"/>
    <callActivity id="again" calledElement="tree">
      <extensionElements><camunda:in sourceExpression="${{n - 1}}" target="n"/></extensionElements>
      {TWICE}
    </callActivity>
    <sequenceFlow id="f2" sourceRef="again" targetRef="join"/>
    <exclusiveGateway id="join"/>
    <sequenceFlow id="f3" sourceRef="join" targetRef="e"/>
    <endEvent id="e"/>
  </process>"""


@pytest.mark.parametrize("policy", ["step", "wait"])
@pytest.mark.parametrize(
    ("body", "process", "limit"),
    [(CALLS_ITSELF_TWICE, "loop", 10), (FORKS_INTO_ITSELF, "fork", 7)],
    ids=["multi-instance", "parallel-gateway"],
)
def test_a_process_calling_itself_twice_stops_at_the_tree_limit(
    tmp_path: Path, make_engine: MakeEngine, policy: str, body: str, process: str, limit: int
) -> None:
    engine = make_engine(checkpoint=policy, max_tree_size=limit)
    root = engine.start(diagram(tmp_path, body), process)
    outcome = root.run()
    # exactly `limit` instances, though calls of several instances were on their way at once
    assert len(engine.instances()) == len(engine.family(root.id)) == limit
    assert outcome.state == "failed"
    origin = engine.instance(root.incident_origin)
    assert origin.data.head.incident is not None
    assert f"call tree of instance {root.id} has {limit} instances, the most one tree may have" in (
        origin.data.head.incident
    )
    assert "because" in (outcome.incident or "")  # the root fails with the deepest incident
    # nothing half-created: no call is still on its way, none was set aside
    assert engine.store.pending_outbox() == [] and engine.store.failed_outbox() == []


def test_a_tree_within_the_limit_runs_as_before(tmp_path: Path, make_engine: MakeEngine) -> None:
    path = diagram(tmp_path, HALVES)
    for engine in (make_engine(), make_engine(max_tree_size=15)):
        root = engine.start(path, "tree", {"n": 3})
        assert root.run().state == "completed"
        assert len(engine.family(root.id)) == 15
    short = make_engine(max_tree_size=14)
    assert short.start(path, "tree", {"n": 3}).run().state == "failed"
    assert len(short.instances()) == 14


def test_a_resume_with_room_in_the_tree_goes_on(tmp_path: Path) -> None:
    db = shared_db(tmp_path / "e.db")
    path = diagram(tmp_path, HALVES)
    with Engine(db, max_tree_size=2) as engine:
        root = engine.start(path, "tree", {"n": 1})
        outcome = root.run()
        assert outcome.state == "failed" and len(engine.family(root.id)) == 2
        assert outcome.incident == (
            f"again: call tree of instance {root.id} has 2 instances, the most one tree may "
            "have; calling 'tree' would start one more: does a process call itself under a "
            "multi-instance or a parallel gateway? (Engine(max_tree_size=...) sets the limit)"
        )
    with Engine(db, max_tree_size=3) as engine:
        resumed = engine.instance(root.id)
        resumed.retry()
        assert resumed.run().state == "completed"
        family = [engine.instance(i) for i in engine.family(root.id)]
        assert [i.state for i in family] == ["completed"] * 3
        assert len(engine.instances()) == 3
        assert {i.data.head.root for i in family} == {root.id}


def test_the_limit_is_a_whole_number_of_instances() -> None:
    for wrong in (0, -1, 2.5, True, "10"):
        with pytest.raises(UsageError, match="max_tree_size must be a whole number"):
            Engine(max_tree_size=wrong)
