"""Event subprocesses started by errors and escalations thrown inside their scope."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import BpmnError, Engine
from tests.postgresql_server import scratch_db

HEAD = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <error id="Err_Card" errorCode="CARD_DECLINED"/>
  <escalation id="Esc_Slow" escalationCode="SLOW"/>
  <process id="p" isExecutable="true">
"""
TAIL = "</process></definitions>"

BODY = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
  <parallelGateway id="split"/>
  <sequenceFlow id="f2" sourceRef="split" targetRef="charge"/>
  <sequenceFlow id="f3" sourceRef="split" targetRef="review"/>
  <serviceTask id="charge" camunda:type="external" camunda:topic="charge"/>
  <userTask id="review"/>
  <sequenceFlow id="f4" sourceRef="charge" targetRef="join"/>
  <sequenceFlow id="f5" sourceRef="review" targetRef="join"/>
  <parallelGateway id="join"/>
  <sequenceFlow id="f6" sourceRef="join" targetRef="e"/>
  <endEvent id="e"/>
  <subProcess id="onDecline" triggeredByEvent="true">
    <startEvent id="declined"><errorEventDefinition errorRef="Err_Card"/></startEvent>
    <sequenceFlow id="h1" sourceRef="declined" targetRef="refund"/>
    <scriptTask id="refund" scriptFormat="python"><script>refunded = True</script></scriptTask>
    <sequenceFlow id="h2" sourceRef="refund" targetRef="handled"/>
    <endEvent id="handled"/>
  </subProcess>
"""


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "evsub.bpmn"
    path.write_text(HEAD + body + TAIL)
    return path


def elements(instance, event: str) -> list[str | None]:
    return [e.element for e in instance.history() if e.event == event]


def decline(ctx):
    raise BpmnError("CARD_DECLINED", "no funds")


def test_an_error_starts_the_interrupting_event_subprocess_of_its_scope(tmp_path: Path) -> None:
    engine = Engine(scratch_db(), handlers={"charge": decline})
    instance = engine.start(write(tmp_path, BODY))
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.end_event == "onDecline"  # the last element of the process scope to end
    assert "handled" in elements(instance, "element.completed")
    assert outcome.variables == {"refunded": True}
    assert elements(instance, "error.caught") == ["declined"]
    ended = elements(instance, "element.terminated") + elements(instance, "track.terminated")
    assert "review" in ended  # the other branch ended
    assert instance.user_tasks() == []
    assert "e" not in elements(instance, "element.completed")


def test_without_the_error_the_event_subprocess_never_runs(tmp_path: Path) -> None:
    engine = Engine(scratch_db(), handlers={"charge": lambda ctx: {"paid": True}})
    instance = engine.start(write(tmp_path, BODY))
    assert instance.run().state == "waiting"
    instance.complete_task("review")
    outcome = instance.run()
    assert outcome.end_event == "e"
    assert "onDecline" not in elements(instance, "element.activated")


def test_a_non_interrupting_escalation_event_subprocess_runs_beside_the_scope(
    tmp_path: Path,
) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="tell"/>
      <intermediateThrowEvent id="tell"><escalationEventDefinition escalationRef="Esc_Slow"/>
      </intermediateThrowEvent>
      <sequenceFlow id="f2" sourceRef="tell" targetRef="work"/>
      <task id="work"/>
      <sequenceFlow id="f3" sourceRef="work" targetRef="e"/>
      <endEvent id="e"/>
      <subProcess id="onSlow" triggeredByEvent="true">
        <startEvent id="slow" isInterrupting="false">
          <escalationEventDefinition escalationRef="Esc_Slow"/></startEvent>
        <sequenceFlow id="h1" sourceRef="slow" targetRef="note"/>
        <scriptTask id="note" scriptFormat="python"><script>noted = True</script></scriptTask>
        <sequenceFlow id="h2" sourceRef="note" targetRef="noteEnd"/>
        <endEvent id="noteEnd"/>
      </subProcess>
    """
    instance = Engine(scratch_db()).start(write(tmp_path, body))
    outcome = instance.run()
    assert outcome.state == "completed"
    completed = elements(instance, "element.completed")
    assert {"work", "e", "note", "onSlow"} <= set(completed)
    assert outcome.variables == {"noted": True}
    assert elements(instance, "element.terminated") == []


LISTENING = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <userTask id="work"/>
  <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
  <endEvent id="e"/>
  <subProcess id="onEvent" triggeredByEvent="true">
    <startEvent id="fire" isInterrupting="INTERRUPTING">TRIGGER</startEvent>
    <sequenceFlow id="h1" sourceRef="fire" targetRef="note"/>
    <scriptTask id="note" scriptFormat="python"><script>count = count + 1</script></scriptTask>
    <sequenceFlow id="h2" sourceRef="note" targetRef="noted"/>
    <endEvent id="noted"/>
  </subProcess>
"""
SIGNAL_HEAD = HEAD.replace("<process", '<signal id="Sig_Stop" name="stop"/><process')


def listening(tmp_path: Path, trigger: str, interrupting: bool) -> Path:
    body = LISTENING.replace("TRIGGER", trigger).replace(
        "INTERRUPTING", "true" if interrupting else "false"
    )
    path = tmp_path / "listening.bpmn"
    path.write_text(SIGNAL_HEAD + body + TAIL)
    return path


def test_a_non_interrupting_timer_event_subprocess_fires_each_cycle_beside_the_work(
    tmp_path: Path,
) -> None:
    from datetime import UTC, datetime, timedelta

    from bpmn_engine.runtime.clock import VirtualClock

    trigger = "<timerEventDefinition><timeCycle>R2/PT1H</timeCycle></timerEventDefinition>"
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    engine = Engine(scratch_db(), clock=clock)
    instance = engine.start(listening(tmp_path, trigger, False), variables={"count": 0})
    outcome = instance.run()  # only the user task waits: the clock jumps through both firings
    assert outcome.state == "waiting"
    assert outcome.variables["count"] == 2
    assert clock.now() == datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=2)
    assert [t["element"] for t in instance.tokens()] == ["work"]  # listeners are no tokens
    instance.complete_task("work")
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.end_event == "e"
    assert all(t.status != "waiting" for t in instance.data.timers.values())


def test_an_interrupting_signal_event_subprocess_ends_the_work(tmp_path: Path) -> None:
    trigger = '<signalEventDefinition signalRef="Sig_Stop"/>'
    engine = Engine(tmp_path / "e.db")
    instance = engine.start(listening(tmp_path, trigger, True), variables={"count": 0})
    assert instance.run().state == "waiting"
    [woken] = engine.broadcast_signal("stop")
    outcome = woken.run()
    assert outcome.state == "completed"
    assert outcome.variables["count"] == 1
    assert "work" in elements(woken, "element.terminated")
    assert woken.user_tasks() == []


def test_the_listener_goes_when_the_scope_completes(tmp_path: Path) -> None:
    trigger = '<signalEventDefinition signalRef="Sig_Stop"/>'
    engine = Engine(tmp_path / "e.db")
    instance = engine.start(listening(tmp_path, trigger, False), variables={"count": 0})
    instance.run()
    instance.complete_task("work")
    assert instance.run().state == "completed"
    assert [s.status for s in instance.data.subscriptions.values()] == ["cancelled"]
    assert engine.broadcast_signal("stop") == []
