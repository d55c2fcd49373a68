"""An incident in a called instance travels up (docs/call-activities.md#errors-...).

The caller's call-activity token fails with an incident naming the child and its failing
element, up to the root; resuming the child clears it, and the caller goes on when the child
completes. A BPMN error is not an incident: it is thrown at the call activity as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine, Instance, UsageError

from ..conftest import HEADER


def diagram(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "incidents.bpmn"
    path.write_text(HEADER + body + "</definitions>")
    return path


def caller(process: str, calls: str) -> str:
    return f"""
  <process id="{process}" isExecutable="true">
    <startEvent id="{process}_s"/>
    <sequenceFlow id="{process}_1" sourceRef="{process}_s" targetRef="{process}_call"/>
    <callActivity id="{process}_call" calledElement="{calls}"/>
    <sequenceFlow id="{process}_2" sourceRef="{process}_call" targetRef="{process}_e"/>
    <endEvent id="{process}_e"/>
  </process>
"""


def child(work: str) -> str:
    return f"""
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="boom"/>
    {work}
    <sequenceFlow id="c2" sourceRef="boom" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


DIVIDES = child(
    '<scriptTask id="boom" scriptFormat="python"><script>y = 1 / x</script></scriptTask>'
)


def family(engine: Engine, root: Instance) -> list[Instance]:
    return [engine.instance(i) for i in engine.family(root.id)]


def test_a_failing_script_in_the_child_fails_the_caller(tmp_path: Path) -> None:
    path = diagram(tmp_path, caller("parent", "child") + DIVIDES)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"x": 0})
    outcome = root.run()
    [_, called] = family(engine, root)
    assert called.state == "failed"
    assert outcome.state == "failed"  # it was "waiting": the failure stayed in the child
    assert outcome.incident == (
        f"parent_call: called instance {called.id} (process 'child') failed at boom: "
        "script failed: division by zero"
    )
    [token] = [t for t in root.tokens() if t["element"] == "parent_call"]
    assert token["state"] == "failed"
    assert root.incident_origin == called.id


def test_a_failing_handler_in_the_child_fails_the_caller(tmp_path: Path) -> None:
    def crash(variables: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("card declined")

    work = '<serviceTask id="boom" camunda:type="external" camunda:topic="charge"/>'
    path = diagram(tmp_path, caller("parent", "child") + child(work))
    engine = Engine(tmp_path / "e.db", handlers={"charge": crash}, retries=1)
    root = engine.start(path, "parent")
    outcome = root.run()
    [_, called] = family(engine, root)
    assert outcome.state == "failed"
    assert outcome.incident == (
        f"parent_call: called instance {called.id} (process 'child') failed at boom: "
        "handler raised RuntimeError: card declined"
    )


def test_a_failing_expression_in_the_child_fails_the_caller(tmp_path: Path) -> None:
    work = """<exclusiveGateway id="boom"/>
    <sequenceFlow id="c3" sourceRef="boom" targetRef="ce">
      <conditionExpression>${missing > 1}</conditionExpression>
    </sequenceFlow>"""
    body = caller("parent", "child") + child(work).replace(
        '<sequenceFlow id="c2" sourceRef="boom" targetRef="ce"/>', ""
    )
    engine = Engine(tmp_path / "e.db")
    root = engine.start(diagram(tmp_path, body), "parent")
    outcome = root.run()
    [_, called] = family(engine, root)
    assert outcome.state == "failed" and outcome.incident is not None
    assert outcome.incident.startswith(
        f"parent_call: called instance {called.id} (process 'child') failed at boom: "
        "expression '${missing > 1}'"
    )


def test_the_failure_reaches_the_root_through_every_caller(tmp_path: Path) -> None:
    body = caller("root", "mid") + caller("mid", "child") + DIVIDES
    engine = Engine(tmp_path / "e.db")
    root = engine.start(diagram(tmp_path, body), "root", {"x": 0})
    outcome = root.run()
    [_, mid, leaf] = family(engine, root)
    assert [i.state for i in (mid, leaf)] == ["failed", "failed"]
    assert mid.outcome().incident == (
        f"mid_call: called instance {leaf.id} (process 'child') failed at boom: "
        "script failed: division by zero"
    )
    assert outcome.state == "failed"
    assert outcome.incident == (
        f"root_call: called instance {mid.id} (process 'mid') failed at mid_call, because "
        f"instance {leaf.id} (process 'child') failed at boom: script failed: division by zero"
    )
    assert root.incident_origin == leaf.id and mid.incident_origin == leaf.id
    # resuming the leaf clears every incident on the way up, and the tree completes
    assert engine.instance(leaf.id).retry(variables={"x": 4}) == 1
    assert engine.instance(leaf.id).run().state == "completed"
    done = engine.instance(root.id).outcome()
    assert done.state == "completed" and done.incident is None
    assert done.variables == {"x": 4, "y": 0.25}
    assert engine.instance(mid.id).state == "completed"


def test_resuming_the_child_clears_the_callers_incident_before_it_completes(
    tmp_path: Path,
) -> None:
    checked = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="boom"/>
    <scriptTask id="boom" scriptFormat="python"><script>y = 1 / x</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="boom" targetRef="check"/>
    <userTask id="check"/>
    <sequenceFlow id="c3" sourceRef="check" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""
    body = caller("parent", "child") + checked
    engine = Engine(tmp_path / "e.db")
    root = engine.start(diagram(tmp_path, body), "parent", {"x": 0})
    assert root.run().state == "failed"
    [_, called] = family(engine, root)
    called.retry(variables={"x": 1})
    assert called.run().state == "waiting"  # at its user task
    waiting = engine.instance(root.id)
    assert waiting.outcome().state == "waiting" and waiting.outcome().incident is None
    [token] = [t for t in waiting.tokens() if t["element"] == "parent_call"]
    assert token["state"] != "failed"
    called = engine.instance(called.id)
    called.complete_task("check")
    assert called.run().state == "completed"
    assert engine.instance(root.id).state == "completed"


def test_resuming_the_caller_itself_is_refused_naming_the_child(tmp_path: Path) -> None:
    body = caller("root", "mid") + caller("mid", "child") + DIVIDES
    engine = Engine(tmp_path / "e.db")
    root = engine.start(diagram(tmp_path, body), "root", {"x": 0})
    root.run()
    [_, mid, leaf] = family(engine, root)
    with pytest.raises(UsageError) as refused:
        engine.instance(root.id).retry()
    assert str(refused.value) == (
        f"instance {root.id} failed because instance {mid.id}, called by its call activity "
        f"'root_call', failed: fix and resume {leaf.id}, where the incident is (this instance "
        "goes on when it completes)"
    )
    assert len(engine.family(root.id)) == 3  # no second child was called
    assert engine.instance(root.id).state == "failed"


def test_cancelling_a_root_whose_child_failed_ends_the_child_too(tmp_path: Path) -> None:
    path = diagram(tmp_path, caller("parent", "child") + DIVIDES)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"x": 0})
    root.run()
    assert root.cancel().state == "terminated"
    engine.deliver_outbox()
    assert [i.state for i in family(engine, root)] == ["terminated", "terminated"]


def test_a_bpmn_error_in_the_child_is_still_thrown_at_the_call_activity(tmp_path: Path) -> None:
    work = """<endEvent id="boom"><errorEventDefinition errorRef="E"/></endEvent>"""
    body = (
        '<error id="E" errorCode="NOPE"/>'
        + caller("parent", "child").replace(
            "</process>",
            """<boundaryEvent id="caught" attachedToRef="parent_call">
      <errorEventDefinition errorRef="E"/></boundaryEvent>
    <sequenceFlow id="h" sourceRef="caught" targetRef="handled"/>
    <endEvent id="handled"/></process>""",
        )
        + child(work).replace('<sequenceFlow id="c2" sourceRef="boom" targetRef="ce"/>', "")
    )
    outcome = Engine(tmp_path / "e.db").start(diagram(tmp_path, body), "parent").run()
    assert (outcome.state, outcome.end_event) == ("completed", "handled")
