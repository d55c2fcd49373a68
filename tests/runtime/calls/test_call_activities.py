"""Call activities: the called process runs as a child instance, linked to its caller.

The parent's track waits at the call activity; the child starts from an outbox row of the
parent's step, and its end, uncaught error or escalation comes back as a step of the parent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, Instance, LoadError, UsageError
from bpmn_engine.runtime.clock import VirtualClock
from tests.postgresql_server import scratch_db

from ..conftest import HEADER, crash_with


def diagram(tmp_path: Path, body: str, name: str = "calls.bpmn") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + body + "</definitions>")
    return path


CHILD_DOUBLES = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="double"/>
    <scriptTask id="double" scriptFormat="python"><script>y = x * 2
z = 'child'</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="double" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


def parent(call: str, after: str = "", boundaries: str = "") -> str:
    return f"""
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="call"/>
    {call}
    {boundaries}
    <sequenceFlow id="p2" sourceRef="call" targetRef="after"/>
    <scriptTask id="after" scriptFormat="python"><script>seen = 1</script></scriptTask>
    <sequenceFlow id="p3" sourceRef="after" targetRef="pe"/>
    <endEvent id="pe"/>
    {after}
  </process>
"""


def children(engine: Engine, instance: Instance) -> list[Instance]:
    return [engine.instance(i) for i in engine.family(instance.id)[1:]]


def test_a_child_completes_and_every_variable_comes_back(tmp_path: Path) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_DOUBLES
    )
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"x": 21})
    outcome = root.run()
    assert outcome.state == "completed"
    assert outcome.variables == {"seen": 1, "x": 21, "y": 42, "z": "child"}
    [child] = children(engine, root)
    assert child.state == "completed" and child.process_id == "child"
    assert child.data.head.parent_instance == root.id
    assert child.data.head.call_depth == 1
    assert child.variables == {"x": 21, "y": 42, "z": "child"}


def test_camunda_in_and_out_pass_only_what_they_name(tmp_path: Path) -> None:
    call = """<callActivity id="call" calledElement="child"><extensionElements>
      <camunda:in source="amount" target="x"/>
      <camunda:in sourceExpression="${amount + 1}" target="next"/>
      <camunda:out source="y" target="doubled"/>
      <camunda:out sourceExpression="${z}" target="who"/>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + CHILD_DOUBLES)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"amount": 5, "secret": "s"})
    outcome = root.run()
    assert outcome.variables == {
        "amount": 5,
        "secret": "s",
        "doubled": 10,
        "who": "child",
        "seen": 1,
    }
    [child] = children(engine, root)
    assert child.variables == {"x": 5, "next": 6, "y": 10, "z": "child"}


def test_camunda_variables_all_in_and_out(tmp_path: Path) -> None:
    call = """<callActivity id="call" calledElement="child"><extensionElements>
      <camunda:in variables="all"/><camunda:out variables="all"/>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + CHILD_DOUBLES)
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"x": 1, "k": "v"}).run()
    assert outcome.variables == {"x": 1, "k": "v", "y": 2, "z": "child", "seen": 1}


def test_camunda_in_without_out_brings_nothing_back(tmp_path: Path) -> None:
    call = """<callActivity id="call" calledElement="child"><extensionElements>
      <camunda:in source="x" target="x"/>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + CHILD_DOUBLES)
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"x": 1}).run()
    assert outcome.variables == {"x": 1, "seen": 1}


def test_zeebe_io_mapping_and_propagation_flags(tmp_path: Path) -> None:
    call = """<callActivity id="call"><extensionElements>
      <zeebe:calledElement processId="child" propagateAllParentVariables="false"/>
      <zeebe:ioMapping>
        <zeebe:input source="=amount * 10" target="x"/>
        <zeebe:output source="=y" target="result"/>
      </zeebe:ioMapping>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + CHILD_DOUBLES)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"amount": 2, "other": True})
    assert root.run().variables == {"amount": 2, "other": True, "result": 40, "seen": 1}
    [child] = children(engine, root)
    assert child.variables == {"x": 20, "y": 40, "z": "child"}


def test_zeebe_propagate_all_child_variables_false_returns_nothing(tmp_path: Path) -> None:
    call = """<callActivity id="call"><extensionElements>
      <zeebe:calledElement processId="child" propagateAllChildVariables="false"/>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + CHILD_DOUBLES)
    assert Engine(tmp_path / "e.db").start(path, "parent", {"x": 3}).run().variables == {
        "x": 3,
        "seen": 1,
    }


def test_called_element_may_be_an_expression(tmp_path: Path) -> None:
    call = '<callActivity id="call" calledElement="${which}"/>'
    path = diagram(tmp_path, parent(call) + CHILD_DOUBLES)
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"which": "child", "x": 1}).run()
    assert outcome.state == "completed" and outcome.variables["y"] == 2
    feel = diagram(
        tmp_path,
        parent(
            '<callActivity id="call"><extensionElements><zeebe:calledElement '
            'processId="=&quot;ch&quot; + &quot;ild&quot;"/></extensionElements></callActivity>'
        )
        + CHILD_DOUBLES,
        "feel.bpmn",
    )
    assert Engine(tmp_path / "f.db").start(feel, "parent", {"x": 2}).run().variables["y"] == 4


def test_a_missing_called_process_is_refused_at_the_start(tmp_path: Path) -> None:
    path = diagram(tmp_path, parent('<callActivity id="call" calledElement="nowhere"/>'))
    with pytest.raises(LoadError) as refused:
        Engine(tmp_path / "e.db").start(path, "parent")
    assert str(refused.value).startswith(f"{path}:")
    assert "call: calls process 'nowhere', which is in none of the files" in str(refused.value)


def test_a_computed_missing_called_process_is_an_incident_at_the_call(tmp_path: Path) -> None:
    path = diagram(tmp_path, parent('<callActivity id="call" calledElement="${which}"/>'))
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"which": "nowhere"}).run()
    assert outcome.state == "failed"
    assert outcome.incident is not None and outcome.incident.startswith(
        "call: no process 'nowhere'"
    )


CHILD_FAILS = """
  <error id="E" errorCode="BROKEN"/>
  <escalation id="X" escalationCode="LATE"/>
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="gw"/>
    <exclusiveGateway id="gw" default="c3"/>
    <sequenceFlow id="c2" sourceRef="gw" targetRef="esc">
      <conditionExpression>${mode == 'escalate'}</conditionExpression>
    </sequenceFlow>
    <sequenceFlow id="c3" sourceRef="gw" targetRef="fail"/>
    <endEvent id="fail"><errorEventDefinition errorRef="E"/></endEvent>
    <intermediateThrowEvent id="esc">
      <escalationEventDefinition escalationRef="X"/>
    </intermediateThrowEvent>
    <sequenceFlow id="c4" sourceRef="esc" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


def test_a_child_error_is_caught_by_the_call_activitys_boundary(tmp_path: Path) -> None:
    boundary = """<boundaryEvent id="caught" attachedToRef="call">
      <errorEventDefinition errorRef="E"/>
    </boundaryEvent>
    <sequenceFlow id="p4" sourceRef="caught" targetRef="handled"/>
    <endEvent id="handled"/>"""
    path = diagram(
        tmp_path,
        parent('<callActivity id="call" calledElement="child"/>', boundaries=boundary)
        + CHILD_FAILS,
    )
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"mode": "fail"})
    outcome = root.run()
    assert (outcome.state, outcome.end_event) == ("completed", "handled")
    [child] = children(engine, root)
    assert child.state == "terminated"
    assert "error.propagated" in [e.event for e in child.history()]


def test_an_error_nobody_catches_is_an_incident_at_the_root_call_activity(tmp_path: Path) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_FAILS
    )
    engine = Engine(tmp_path / "e.db")
    outcome = engine.start(path, "parent", {"mode": "fail"}).run()
    assert outcome.state == "failed"
    assert outcome.incident is not None and "unhandled BPMN error 'BROKEN'" in outcome.incident
    assert outcome.incident.startswith("call:")


def test_a_child_escalation_reaches_the_call_activity(tmp_path: Path) -> None:
    boundary = """<boundaryEvent id="noted" attachedToRef="call" cancelActivity="false">
      <escalationEventDefinition escalationRef="X"/>
    </boundaryEvent>
    <sequenceFlow id="p4" sourceRef="noted" targetRef="note"/>
    <scriptTask id="note" scriptFormat="python"><script>noted = True</script></scriptTask>
    <sequenceFlow id="p5" sourceRef="note" targetRef="ne"/>
    <endEvent id="ne"/>"""
    path = diagram(
        tmp_path,
        parent('<callActivity id="call" calledElement="child"/>', boundaries=boundary)
        + CHILD_FAILS,
    )
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"mode": "escalate"}).run()
    assert outcome.state == "completed"
    assert outcome.variables["noted"] is True and outcome.variables["seen"] == 1


CHILD_WAITS = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="approve"/>
    <userTask id="approve" name="Approve"/>
    <sequenceFlow id="c2" sourceRef="approve" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


def test_cancelling_the_parent_cancels_the_child(tmp_path: Path) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_WAITS
    )
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent")
    assert root.run().state == "waiting"
    [child] = children(engine, root)
    assert [t.element for t in child.user_tasks()] == ["approve"]
    with pytest.raises(UsageError, match="cancel that one"):
        child.cancel()  # its caller would wait for it for ever
    root.cancel()
    [child] = children(engine, root)
    assert child.state == "terminated" and child.user_tasks() == []


def test_an_interrupting_timer_on_the_call_activity_cancels_the_child(tmp_path: Path) -> None:
    boundary = """<boundaryEvent id="late" attachedToRef="call">
      <timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>
    </boundaryEvent>
    <sequenceFlow id="p4" sourceRef="late" targetRef="timeout"/>
    <endEvent id="timeout"/>"""
    path = diagram(
        tmp_path,
        parent('<callActivity id="call" calledElement="child"/>', boundaries=boundary)
        + CHILD_WAITS,
    )
    engine = Engine(tmp_path / "e.db", clock=VirtualClock())
    root = engine.start(path, "parent")
    outcome = root.run()  # the virtual clock fires the timer once everything else waits
    assert (outcome.state, outcome.end_event) == ("completed", "timeout")
    [child] = children(engine, root)
    assert child.state == "terminated"


def test_completing_the_childs_task_moves_the_parent_on(tmp_path: Path) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_WAITS
    )
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent")
    root.run()
    [child] = children(engine, root)
    child.complete_task("approve", {"ok": True})
    child.run()
    again = engine.instance(root.id)
    assert again.outcome().state == "completed"
    assert again.variables == {"ok": True, "seen": 1}


def test_a_terminate_end_in_the_child_ends_only_the_child(tmp_path: Path) -> None:
    child = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="c2" sourceRef="fork" targetRef="wait"/>
    <sequenceFlow id="c3" sourceRef="fork" targetRef="stop"/>
    <userTask id="wait"/>
    <endEvent id="stop"><terminateEventDefinition/></endEvent>
  </process>"""
    path = diagram(tmp_path, parent('<callActivity id="call" calledElement="child"/>') + child)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent")
    outcome = root.run()
    assert (outcome.state, outcome.end_event) == ("completed", "pe")
    [called] = children(engine, root)
    assert (called.state, called.data.head.end_event) == ("completed", "stop")


def test_a_call_inside_a_call_is_a_grandchild(tmp_path: Path) -> None:
    middle = """
  <process id="middle" isExecutable="true">
    <startEvent id="ms"/>
    <sequenceFlow id="m1" sourceRef="ms" targetRef="inner"/>
    <callActivity id="inner" calledElement="child"/>
    <sequenceFlow id="m2" sourceRef="inner" targetRef="me"/>
    <endEvent id="me"/>
  </process>"""
    path = diagram(
        tmp_path,
        parent('<callActivity id="call" calledElement="middle"/>') + middle + CHILD_DOUBLES,
    )
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"x": 4})
    assert root.run().variables == {"x": 4, "y": 8, "z": "child", "seen": 1}
    tree = [engine.instance(i) for i in engine.family(root.id)]
    assert [(i.process_id, i.data.head.call_depth, i.state) for i in tree] == [
        ("parent", 0, "completed"),
        ("middle", 1, "completed"),
        ("child", 2, "completed"),
    ]
    assert tree[2].data.head.parent_instance == tree[1].id


def test_a_process_calling_itself_stops_at_the_depth_cap(tmp_path: Path) -> None:
    body = """
  <process id="loop" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="again"/>
    <callActivity id="again" calledElement="loop"/>
    <sequenceFlow id="f2" sourceRef="again" targetRef="e"/>
    <endEvent id="e"/>
  </process>"""
    path = diagram(tmp_path, body)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "loop")
    outcome = root.run()
    tree = engine.family(root.id)
    assert len(tree) == 101
    deepest = engine.instance(tree[-1])
    assert deepest.state == "failed" and deepest.data.head.call_depth == 100
    assert deepest.data.head.incident is not None and "at most 100" in deepest.data.head.incident
    # the failure travels up: every caller fails at its call activity, naming the deepest
    assert outcome.state == "failed" and outcome.incident is not None
    assert f"because instance {deepest.id} (process 'loop') failed at again" in outcome.incident
    assert root.incident_origin == deepest.id


def test_a_called_process_is_found_in_another_file_given_to_the_engine(tmp_path: Path) -> None:
    caller = diagram(tmp_path, parent('<callActivity id="call" calledElement="child"/>'), "a.bpmn")
    called = diagram(tmp_path, CHILD_DOUBLES, "b.bpmn")
    engine = Engine(tmp_path / "e.db")
    engine.deploy(called)
    assert engine.start(caller, "parent", {"x": 1}).run().variables["y"] == 2
    later = Engine(tmp_path / "e.db")  # a new session finds it among the stored definitions
    assert later.start(caller, "parent", {"x": 2}).run().variables["y"] == 4


@pytest.mark.parametrize("policy", ["step", "wait"])
def test_both_checkpoint_policies_run_the_tree(tmp_path: Path, policy: str) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_DOUBLES
    )
    engine = Engine(tmp_path / "e.db", checkpoint=policy)
    assert engine.start(path, "parent", {"x": 5}).run().variables["y"] == 10


CRASHING = """
import os, sys
from bpmn_engine import Engine
from bpmn_engine.runtime.engine import outbox
db, path, crash = sys.argv[1], sys.argv[2], sys.argv[3]
engine = Engine(db)
real_flush = outbox.Postman.flush
def die_with_rows_pending(self, *args, **kwargs):
    if self.engine.store.pending_outbox():  # a committed step's rows, not yet out
        os._exit(0)
    return real_flush(self, *args, **kwargs)
if crash == "before-the-child-starts":
    outbox.Postman.flush = die_with_rows_pending
elif crash == "after-the-child-started":
    engine.store.finish_outbox = lambda outbox_id: os._exit(0)
elif crash == "before-the-parent-hears":
    real = outbox.Postman.call
    def die_on_completion(self, row, *args, **kwargs):
        if row.kind == "completion":
            os._exit(0)
        return real(self, row, *args, **kwargs)
    outbox.Postman.call = die_on_completion
engine.start(path, "parent", {"x": 3}).run()
"""


@pytest.mark.parametrize(
    "crash", ["before-the-child-starts", "after-the-child-started", "before-the-parent-hears"]
)
def test_a_crash_between_parent_and_child_loses_and_doubles_nothing(
    tmp_path: Path, crash: str
) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_DOUBLES
    )
    db = crash_with(tmp_path, CRASHING, path, crash)
    engine = Engine(db)
    assert engine.store.pending_outbox(), "the crash left a row undelivered"
    [root_id] = [r["id"] for r in engine.instances() if r["parent_instance"] is None]
    outcome = engine.instance(root_id).run()  # what `bpmn resume` does
    assert outcome.state == "completed" and outcome.variables["y"] == 6
    assert Engine(db).deliver_outbox() == 0
    family = engine.family(root_id)
    assert len(family) == 2  # one child, started once
    assert [r["process"] for r in engine.instances()] == ["parent", "child"]
    assert engine.instance(family[1]).state == "completed"
    completed = [e for e in engine.instance(root_id).history() if e.event == "call.completed"]
    assert len(completed) == 1


def test_rewinding_past_the_call_a_child_received_is_refused(tmp_path: Path) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_WAITS
    )
    engine = Engine(tmp_path / "e.db", undo=True)
    root = engine.start(path, "parent")
    root.run()
    assert len(engine.family(root.id)) == 2
    with pytest.raises(UsageError):
        engine.rewind(root.id, 1)


def test_the_parents_event_subprocess_catches_a_child_error(tmp_path: Path) -> None:
    handler = """<subProcess id="on_error" triggeredByEvent="true">
      <startEvent id="es"><errorEventDefinition errorRef="E"/></startEvent>
      <sequenceFlow id="e1" sourceRef="es" targetRef="ee"/>
      <endEvent id="ee"/>
    </subProcess>"""
    call = '<callActivity id="call" calledElement="child"/>'
    path = diagram(tmp_path, parent(call, after=handler) + CHILD_FAILS)
    outcome = Engine(tmp_path / "e.db").start(path, "parent", {"mode": "fail"}).run()
    assert outcome.state == "completed" and "seen" not in outcome.variables


def test_a_grandchild_error_climbs_to_the_first_catcher(tmp_path: Path) -> None:
    middle = """
  <process id="middle" isExecutable="true">
    <startEvent id="ms"/>
    <sequenceFlow id="m1" sourceRef="ms" targetRef="inner"/>
    <callActivity id="inner" calledElement="child"/>
    <sequenceFlow id="m2" sourceRef="inner" targetRef="me"/>
    <endEvent id="me"/>
  </process>"""
    boundary = """<boundaryEvent id="caught" attachedToRef="call">
      <errorEventDefinition/>
    </boundaryEvent>
    <sequenceFlow id="p4" sourceRef="caught" targetRef="handled"/>
    <endEvent id="handled"/>"""
    call = '<callActivity id="call" calledElement="middle"/>'
    path = diagram(tmp_path, parent(call, boundaries=boundary) + middle + CHILD_FAILS)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"mode": "fail"})
    assert root.run().end_event == "handled"
    states = [engine.instance(i).state for i in engine.family(root.id)]
    assert states == ["completed", "terminated", "terminated"]


def test_resuming_an_uncaught_child_error_calls_again(tmp_path: Path) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_FAILS
    )
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"mode": "fail"})
    assert root.run().state == "failed"
    root.retry(variables={"mode": "escalate"})
    assert root.run().state == "completed"
    assert [engine.instance(i).state for i in engine.family(root.id)] == [
        "completed",
        "terminated",
        "completed",
    ]


def test_a_child_completing_while_its_parent_failed_elsewhere_is_kept(tmp_path: Path) -> None:
    body = """
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="p2" sourceRef="fork" targetRef="call"/>
    <sequenceFlow id="p3" sourceRef="fork" targetRef="broken"/>
    <callActivity id="call" calledElement="child"/>
    <scriptTask id="broken" scriptFormat="python"><script>x = missing</script></scriptTask>
    <sequenceFlow id="p4" sourceRef="call" targetRef="join"/>
    <sequenceFlow id="p5" sourceRef="broken" targetRef="join"/>
    <parallelGateway id="join"/>
    <sequenceFlow id="p6" sourceRef="join" targetRef="pe"/>
    <endEvent id="pe"/>
  </process>"""
    path = diagram(tmp_path, body + CHILD_WAITS)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent")
    assert root.run().state == "failed"
    [child] = children(engine, root)
    child.complete_task("approve")
    child.run()
    again = engine.instance(root.id)
    again.retry(variables={"missing": 1})
    assert again.run().state == "completed"


def test_a_worker_delivers_a_call_a_crash_left_pending(tmp_path: Path) -> None:
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_DOUBLES
    )
    engine = Engine(crash_with(tmp_path, CRASHING, path, "before-the-child-starts"))
    assert engine.deliver_outbox() >= 2  # the call, then the completion it led to
    [root] = [r["id"] for r in engine.instances() if r["parent_instance"] is None]
    assert engine.instance(root).outcome().state == "completed"


def test_camunda_local_passes_only_the_call_activitys_own_variables(tmp_path: Path) -> None:
    call = """<callActivity id="call" calledElement="child"><extensionElements>
      <camunda:inputOutput><camunda:inputParameter name="x">${base + 1}</camunda:inputParameter>
      </camunda:inputOutput>
      <camunda:in variables="all" local="true"/>
      <camunda:out source="y" target="y"/>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + CHILD_DOUBLES)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent", {"base": 1, "private": "p"})
    assert root.run().variables == {"base": 1, "private": "p", "y": 4, "seen": 1}
    [child] = children(engine, root)
    assert child.variables == {"x": 2, "y": 4, "z": "child"}


def test_a_terminate_end_in_the_parent_cancels_the_child(tmp_path: Path) -> None:
    body = """
  <process id="parent" isExecutable="true">
    <startEvent id="ps"/>
    <sequenceFlow id="p1" sourceRef="ps" targetRef="fork"/>
    <parallelGateway id="fork"/>
    <sequenceFlow id="p2" sourceRef="fork" targetRef="call"/>
    <sequenceFlow id="p3" sourceRef="fork" targetRef="stop"/>
    <callActivity id="call" calledElement="child"/>
    <endEvent id="stop"><terminateEventDefinition/></endEvent>
  </process>"""
    path = diagram(tmp_path, body + CHILD_WAITS)
    engine = Engine(tmp_path / "e.db")
    root = engine.start(path, "parent")
    outcome = root.run()
    assert (outcome.state, outcome.end_event) == ("completed", "stop")
    [child] = children(engine, root)
    assert child.state == "terminated" and child.user_tasks() == []


def full_id(instance: Instance, prefix: str) -> str:
    return next(n for n in instance.definitions.node_ids if n.startswith(prefix))


def full_flow(instance: Instance, gateway: str, prefix: str) -> str:
    node = instance.definitions.node(gateway)
    assert node is not None
    return next(f for f in node.outgoing if f.startswith(prefix))


CHILD_DELETES = """
  <process id="child" isExecutable="true">
    <startEvent id="cs"/>
    <sequenceFlow id="c1" sourceRef="cs" targetRef="clean"/>
    <scriptTask id="clean" scriptFormat="python"><script>del tmp
made = 1</script></scriptTask>
    <sequenceFlow id="c2" sourceRef="clean" targetRef="ce"/>
    <endEvent id="ce"/>
  </process>
"""


def test_a_variable_the_child_deleted_is_deleted_in_the_caller_when_everything_comes_back(
    tmp_path: Path,
) -> None:
    """As SpiffWorkflow gives the caller the child's data as it ends: `tmp` stayed."""
    path = diagram(
        tmp_path, parent('<callActivity id="call" calledElement="child"/>') + CHILD_DELETES
    )
    with Engine(scratch_db(), trust_scripts=True) as engine:
        outcome = engine.start(path, "parent", {"tmp": 1, "keep": 2}).run()
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables == {"keep": 2, "made": 1, "seen": 1}


def test_with_mappings_the_caller_keeps_what_the_child_deleted(tmp_path: Path) -> None:
    call = """<callActivity id="call" calledElement="child"><extensionElements>
      <camunda:in variables="all"/><camunda:out source="made" target="made"/>
    </extensionElements></callActivity>"""
    path = diagram(tmp_path, parent(call) + CHILD_DELETES)
    with Engine(scratch_db(), trust_scripts=True) as engine:
        outcome = engine.start(path, "parent", {"tmp": 1}).run()
    assert outcome.state == "completed", outcome.incident
    assert outcome.variables == {"tmp": 1, "made": 1, "seen": 1}
