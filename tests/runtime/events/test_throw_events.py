"""Link, signal and escalation throw events."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from tests.postgresql_server import scratch_db

HEAD = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <signal id="Sig_Go" name="go"/>
  <escalation id="Esc_Late" escalationCode="LATE"/>
  <process id="p" isExecutable="true">
"""
TAIL = "</process></definitions>"


def write(tmp_path: Path, body: str, name: str = "throw.bpmn") -> Path:
    path = tmp_path / name
    path.write_text(HEAD + body + TAIL)
    return path


def elements(instance, event: str) -> list[str | None]:
    return [e.element for e in instance.history() if e.event == event]


def test_a_link_throw_continues_at_its_catch(tmp_path: Path) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="goto"/>
      <intermediateThrowEvent id="goto"><linkEventDefinition name="B"/></intermediateThrowEvent>
      <intermediateCatchEvent id="land"><linkEventDefinition name="B"/></intermediateCatchEvent>
      <sequenceFlow id="f2" sourceRef="land" targetRef="e"/>
      <endEvent id="e"/>
    """
    instance = Engine(scratch_db()).start(write(tmp_path, body))
    assert instance.run().end_event == "e"
    assert elements(instance, "link.taken") == ["goto"]
    assert elements(instance, "element.completed") == ["s", "goto", "land", "e"]


def test_a_link_without_its_catch_is_an_incident(tmp_path: Path) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="goto"/>
      <intermediateThrowEvent id="goto"><linkEventDefinition name="X"/></intermediateThrowEvent>
    """
    outcome = Engine(scratch_db()).start(write(tmp_path, body)).run()
    assert outcome.state == "failed" and "link 'X' has no catch events" in outcome.incident


def test_a_signal_thrown_by_one_instance_wakes_the_others_and_itself(tmp_path: Path) -> None:
    waiter = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
      <intermediateCatchEvent id="wait"><signalEventDefinition signalRef="Sig_Go"/>
      </intermediateCatchEvent>
      <sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
      <endEvent id="e"/>
    """
    thrower = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
      <parallelGateway id="split"/>
      <sequenceFlow id="f2" sourceRef="split" targetRef="wait"/>
      <sequenceFlow id="f3" sourceRef="split" targetRef="go"/>
      <intermediateCatchEvent id="wait"><signalEventDefinition signalRef="Sig_Go"/>
      </intermediateCatchEvent>
      <endEvent id="go"><signalEventDefinition signalRef="Sig_Go"/></endEvent>
      <sequenceFlow id="f4" sourceRef="wait" targetRef="e"/>
      <endEvent id="e"/>
    """
    engine = Engine(tmp_path / "s.db")
    others = [engine.start(write(tmp_path, waiter, "w.bpmn")) for _ in range(2)]
    for other in others:
        assert other.run().state == "waiting"
    source = engine.start(write(tmp_path, thrower, "t.bpmn"))
    assert source.run().state == "completed"  # its own catcher got the signal too
    for other in others:
        assert engine.instance(other.id).run().state == "completed"


ESCALATING_SUBPROCESS = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
  <subProcess id="sub">
    <startEvent id="ss"/>
    <sequenceFlow id="sf1" sourceRef="ss" targetRef="tell"/>
    <intermediateThrowEvent id="tell"><escalationEventDefinition escalationRef="Esc_Late"/>
    </intermediateThrowEvent>
    <sequenceFlow id="sf2" sourceRef="tell" targetRef="finish"/>
    <task id="finish"/>
    <sequenceFlow id="sf3" sourceRef="finish" targetRef="se"/>
    <endEvent id="se"/>
  </subProcess>
  <boundaryEvent id="late" attachedToRef="sub" cancelActivity="CANCEL">
    <escalationEventDefinition escalationRef="Esc_Late"/></boundaryEvent>
  <sequenceFlow id="f2" sourceRef="sub" targetRef="done"/>
  <sequenceFlow id="f3" sourceRef="late" targetRef="notify"/>
  <task id="notify"/>
  <sequenceFlow id="f4" sourceRef="notify" targetRef="noted"/>
  <endEvent id="done"/><endEvent id="noted"/>
"""


def test_a_non_interrupting_escalation_adds_a_token_and_the_subprocess_goes_on(
    tmp_path: Path,
) -> None:
    body = ESCALATING_SUBPROCESS.replace("CANCEL", "false")
    instance = Engine(scratch_db()).start(write(tmp_path, body))
    outcome = instance.run()
    assert outcome.state == "completed"
    completed = elements(instance, "element.completed")
    assert {"notify", "noted", "finish", "sub", "done"} <= set(completed)
    assert elements(instance, "escalation.caught") == ["late"]


def test_an_interrupting_escalation_ends_the_subprocess(tmp_path: Path) -> None:
    body = ESCALATING_SUBPROCESS.replace("CANCEL", "true")
    instance = Engine(scratch_db()).start(write(tmp_path, body))
    outcome = instance.run()
    assert outcome.end_event == "noted"
    assert "finish" not in elements(instance, "element.completed")
    assert "sub" in elements(instance, "element.terminated")


def test_an_uncaught_escalation_only_warns(tmp_path: Path) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="tell"/>
      <intermediateThrowEvent id="tell"><escalationEventDefinition escalationRef="Esc_Late"/>
      </intermediateThrowEvent>
      <sequenceFlow id="f2" sourceRef="tell" targetRef="e"/>
      <endEvent id="e"/>
    """
    instance = Engine(scratch_db()).start(write(tmp_path, body))
    assert instance.run().end_event == "e"
    assert elements(instance, "warning") == ["tell"]
