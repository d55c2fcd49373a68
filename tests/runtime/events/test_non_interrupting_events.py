"""Non-interrupting boundary events and event subprocess starts fire for as long as their
activity or scope is active: every message, signal, escalation and every change of a
condition from false to true adds one branch; interrupting ones fire once."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, Instance
from tests.postgresql_server import shared_db
from tests.runtime.conftest import Bpmn, MakeEngine

DEFINITIONS = (
    '<message id="Msg" name="ping"/><signal id="Sig" name="bell"/>'
    '<escalation id="Esc" escalationCode="LATE"/>'
)
MESSAGE = '<messageEventDefinition messageRef="Msg"/>'
SIGNAL = '<signalEventDefinition signalRef="Sig"/>'
CONDITION = (
    '<conditionalEventDefinition><condition xsi:type="tFormalExpression">flag</condition>'
    "</conditionalEventDefinition>"
)
# the branch a firing adds: it counts its runs
BRANCH = """
  <sequenceFlow id="b1" sourceRef="extra" targetRef="note"/>
  <scriptTask id="note" scriptFormat="python"><script>runs = runs + 1</script></scriptTask>
  <sequenceFlow id="b2" sourceRef="note" targetRef="noted"/>
  <endEvent id="noted"/>
"""


def boundary(trigger: str, interrupting: bool = False) -> str:
    """A user task `work` with a boundary event `extra` on it."""
    cancel = "true" if interrupting else "false"
    return f"""
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <userTask id="work"/>
  <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
  <endEvent id="e"/>
  <boundaryEvent id="extra" attachedToRef="work" cancelActivity="{cancel}">{trigger}</boundaryEvent>
  {BRANCH}"""


def event_subprocess(trigger: str) -> str:
    """A user task `work` beside a non-interrupting event subprocess `on` started by `extra`."""
    return f"""
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <userTask id="work"/>
  <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
  <endEvent id="e"/>
  <subProcess id="on" triggeredByEvent="true">
    <startEvent id="extra" isInterrupting="false">{trigger}</startEvent>
    {BRANCH}
  </subProcess>"""


def write(bpmn: Bpmn, body: str) -> Path:
    path = bpmn(body)
    text = path.read_text().replace("<process ", DEFINITIONS + "<process ", 1)
    path.write_text(text)
    return path


def fired(instance: Instance, event: str) -> list[str | None]:
    return [e.element for e in instance.history() if e.event == event]


def test_a_message_boundary_fires_for_each_message_while_its_activity_waits(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path
) -> None:
    """Two messages, two branches (before, the second was not taken and the instance ended
    as if it had been); the instance reopened in between; the third, after the task is
    done, is taken by nobody."""
    db = shared_db(tmp_path / "rearm.db")
    engine = make_engine(db)
    instance = engine.start(write(bpmn, boundary(MESSAGE)), variables={"runs": 0})
    assert instance.run().state == "waiting"
    [woken] = engine.publish_message("ping")
    assert woken.run().state == "waiting"
    assert woken.variables["runs"] == 1
    reopened = make_engine(db)  # the subscription that stays is in the rows
    [woken] = reopened.publish_message("ping")
    assert woken.run().state == "waiting"
    assert woken.variables["runs"] == 2
    assert [t["element"] for t in woken.tokens()] == ["work"]
    assert fired(woken, "boundary.triggered") == ["extra", "extra"]
    woken.complete_task("work")
    assert woken.run().state == "completed"
    assert [s.status for s in woken.data.subscriptions.values()] == ["cancelled"]
    assert reopened.publish_message("ping", message_id="late") == []
    assert reopened.message_status("late") == ("expired", None)
    assert reopened.instance(woken.id).variables["runs"] == 2


def test_one_message_id_reaches_the_boundary_that_waits_again_once(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(write(bpmn, boundary(MESSAGE)), variables={"runs": 0})
    instance.run()
    assert len(engine.publish_message("ping", message_id="m-1")) == 1
    assert engine.publish_message("ping", message_id="m-1") == []  # seen: correlated once
    assert engine.publish_message("ping", message_id="m-2") != []
    instance = engine.instance(instance.id)
    assert instance.run().variables["runs"] == 2


def test_messages_buffered_before_the_activity_each_reach_its_boundary(
    bpmn: Bpmn, engine: Engine
) -> None:
    """The subscription takes a buffered message when it opens, and, waiting again, the
    next one: none is left to expire while the boundary listens."""
    engine.publish_message("ping", ttl=3600, message_id="early-1")
    engine.publish_message("ping", ttl=3600, message_id="early-2")
    instance = engine.start(write(bpmn, boundary(MESSAGE)), variables={"runs": 0})
    assert instance.run().state == "waiting"
    assert instance.variables["runs"] == 2
    assert engine.message_status("early-2") == ("correlated", instance.id)


def test_an_interrupting_message_boundary_fires_once(bpmn: Bpmn, engine: Engine) -> None:
    instance = engine.start(
        write(bpmn, boundary(MESSAGE, interrupting=True)), variables={"runs": 0}
    )
    instance.run()
    [woken] = engine.publish_message("ping")
    assert woken.run().state == "completed"
    assert engine.publish_message("ping") == []
    assert woken.variables["runs"] == 1


def test_a_signal_boundary_fires_for_each_signal_while_its_activity_waits(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(write(bpmn, boundary(SIGNAL)), variables={"runs": 0})
    instance.run()
    for _ in range(2):
        [woken] = engine.broadcast_signal("bell")
        assert woken.run().state == "waiting"
    assert woken.variables["runs"] == 2
    woken.complete_task("work")
    assert woken.run().state == "completed"
    assert engine.broadcast_signal("bell") == []


def test_a_thrown_signal_reaches_the_boundary_that_waits_again_once_per_throw(
    bpmn: Bpmn, engine: Engine
) -> None:
    """Through the outbox: each throw is one row, delivered once to the same subscription."""
    body = boundary(SIGNAL).replace(
        '<sequenceFlow id="f1" sourceRef="s" targetRef="work"/>',
        """<sequenceFlow id="f0" sourceRef="s" targetRef="split"/>
        <parallelGateway id="split"/>
        <sequenceFlow id="f1" sourceRef="split" targetRef="work"/>
        <sequenceFlow id="t1" sourceRef="split" targetRef="wait"/>
        <userTask id="wait"/>
        <sequenceFlow id="t2" sourceRef="wait" targetRef="ring1"/>
        <intermediateThrowEvent id="ring1">"""
        + SIGNAL
        + """</intermediateThrowEvent>
        <sequenceFlow id="t3" sourceRef="ring1" targetRef="ring2"/>
        <intermediateThrowEvent id="ring2">"""
        + SIGNAL
        + """</intermediateThrowEvent>
        <sequenceFlow id="t4" sourceRef="ring2" targetRef="rung"/>
        <endEvent id="rung"/>""",
    )
    instance = engine.start(write(bpmn, body), variables={"runs": 0})
    instance.run()
    instance.complete_task("wait")  # every token in place: the throws come after the waits
    assert instance.run().state == "waiting"
    assert instance.variables["runs"] == 2
    assert engine.deliver_outbox() == 0
    assert engine.instance(instance.id).variables["runs"] == 2


def test_an_escalation_boundary_fires_for_each_escalation_while_its_subprocess_runs(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = f"""
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <subProcess id="work">
    <startEvent id="ws"/>
    <sequenceFlow id="w1" sourceRef="ws" targetRef="late1"/>
    <intermediateThrowEvent id="late1"><escalationEventDefinition escalationRef="Esc"/>
    </intermediateThrowEvent>
    <sequenceFlow id="w2" sourceRef="late1" targetRef="more"/>
    <userTask id="more"/>
    <sequenceFlow id="w3" sourceRef="more" targetRef="late2"/>
    <intermediateThrowEvent id="late2"><escalationEventDefinition escalationRef="Esc"/>
    </intermediateThrowEvent>
    <sequenceFlow id="w4" sourceRef="late2" targetRef="last"/>
    <userTask id="last"/>
    <sequenceFlow id="w5" sourceRef="last" targetRef="we"/>
    <endEvent id="we"/>
  </subProcess>
  <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
  <endEvent id="e"/>
  <boundaryEvent id="extra" attachedToRef="work" cancelActivity="false">
    <escalationEventDefinition escalationRef="Esc"/>
  </boundaryEvent>
  {BRANCH}"""
    instance = engine.start(write(bpmn, body), variables={"runs": 0})
    assert instance.run().state == "waiting"
    instance.complete_task("more")
    assert instance.run().state == "waiting"
    assert instance.variables["runs"] == 2
    assert sorted(t["element"] for t in instance.tokens()) == ["last", "work"]
    instance.complete_task("last")
    assert instance.run().state == "completed"
    assert fired(instance, "boundary.triggered") == ["extra", "extra"]


def test_a_conditional_boundary_fires_once_per_change_from_false_to_true(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(write(bpmn, boundary(CONDITION)), variables={"runs": 0, "flag": False})
    instance.run()
    instance.set_variables({"flag": True})
    assert instance.run().variables["runs"] == 1
    instance.set_variables({"other": 1})  # a change while it holds: no firing
    assert instance.run().variables["runs"] == 1
    instance.set_variables({"flag": False})
    instance.run()
    instance.set_variables({"flag": True})
    assert instance.run().variables["runs"] == 2
    instance = engine.instance(instance.id)  # reopened: it still holds, still no firing
    instance.set_variables({"other": 2})
    assert instance.run().variables["runs"] == 2
    instance.complete_task("work")
    assert instance.run().state == "completed"
    assert fired(instance, "conditional.received") == ["extra", "extra"]


def test_a_conditional_boundary_true_when_its_activity_starts_fires_at_once_and_once(
    bpmn: Bpmn, engine: Engine
) -> None:
    instance = engine.start(write(bpmn, boundary(CONDITION)), variables={"runs": 0, "flag": True})
    assert instance.run().variables["runs"] == 1
    instance.set_variables({"flag": True})
    assert instance.run().variables["runs"] == 1


@pytest.mark.parametrize(
    ("trigger", "occur"),
    [
        (MESSAGE, lambda engine: engine.publish_message("ping")),
        (SIGNAL, lambda engine: engine.broadcast_signal("bell")),
    ],
    ids=["message", "signal"],
)
def test_a_non_interrupting_event_subprocess_starts_once_per_occurrence(
    bpmn: Bpmn, engine: Engine, trigger: str, occur
) -> None:
    instance = engine.start(write(bpmn, event_subprocess(trigger)), variables={"runs": 0})
    instance.run()
    for _ in range(2):
        [woken] = occur(engine)
        assert woken.run().state == "waiting"
    assert woken.variables["runs"] == 2
    assert fired(woken, "event_subprocess.started") == ["on", "on"]
    woken.complete_task("work")
    assert woken.run().state == "completed"
    assert occur(engine) == []


def test_a_conditional_event_subprocess_starts_once_per_change_from_false_to_true(
    bpmn: Bpmn, engine: Engine
) -> None:
    """Before, the start listened again while its condition held and fired on every step,
    without end."""
    instance = engine.start(
        write(bpmn, event_subprocess(CONDITION)), variables={"runs": 0, "flag": False}
    )
    instance.run()
    for flag in (True, False, True):
        instance.set_variables({"flag": flag})
        for _ in range(50):  # bounded: the old code never stopped
            if not instance.step_once():
                break
        else:
            pytest.fail("the event subprocess keeps starting while its condition holds")
    assert instance.variables["runs"] == 2
    assert fired(instance, "event_subprocess.started") == ["on", "on"]


def test_rewinding_a_second_message_leaves_the_boundary_waiting_for_it_again(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    engine = make_engine(undo=True)
    instance = engine.start(write(bpmn, boundary(MESSAGE)), variables={"runs": 0})
    instance.run()
    engine.publish_message("ping", message_id="m-1")
    instance = engine.instance(instance.id)
    instance.run()
    before = instance.version
    engine.publish_message("ping", message_id="m-2")
    instance = engine.instance(instance.id)
    assert instance.run().variables["runs"] == 2
    instance = engine.rewind(instance.id, instance.version - before)
    assert instance.variables["runs"] == 1
    assert [(s.kind, s.status) for s in instance.subscriptions()] == [("message", "waiting")]
    assert engine.publish_message("ping", message_id="m-2") != []  # its receipt went back
    assert engine.instance(instance.id).run().variables["runs"] == 2


class Crash(Exception):
    """The process dies here: what it committed stays, what it did not do stays undone."""


@pytest.mark.parametrize("shape", [boundary, event_subprocess], ids=["boundary", "start"])
def test_a_signal_delivered_again_after_a_crash_reaches_a_listening_again_event_once(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape
) -> None:
    """The delivery committed, the outbox row was not yet marked delivered: whoever delivers
    next finds the receipt of the subscription, which waits again as the same row (before,
    the event subprocess start listened again as a new row, and took the signal twice)."""
    db = shared_db(tmp_path / "crash.db")
    engine = make_engine(db)
    instance = engine.start(write(bpmn, shape(SIGNAL)), variables={"runs": 0})
    instance.run()

    def crash(outbox_id: int) -> None:
        raise Crash

    monkeypatch.setattr(engine.store, "finish_outbox", crash)
    with pytest.raises(Crash):
        instance.throw_signal("bell")
    after = make_engine(db)
    assert [row["kind"] for row in after.store.pending_outbox()] == ["signal"]
    assert after.deliver_outbox() == 1
    instance = after.instance(instance.id)
    assert instance.run().variables["runs"] == 1
    assert len(instance.subscriptions()) == 1


def test_a_non_interrupting_parallel_multiple_boundary_needs_every_trigger_each_time(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = boundary(MESSAGE + SIGNAL).replace(
        '<boundaryEvent id="extra"', '<boundaryEvent id="extra" parallelMultiple="true"'
    )
    instance = engine.start(write(bpmn, body), variables={"runs": 0})
    instance.run()
    for runs in (1, 2):
        [woken] = engine.publish_message("ping")
        assert woken.run().variables["runs"] == runs - 1  # an arrival, recorded
        [woken] = engine.broadcast_signal("bell")
        assert woken.run().variables["runs"] == runs  # the last one: it fires
    assert sorted(s.kind for s in woken.subscriptions()) == ["message", "signal"]
