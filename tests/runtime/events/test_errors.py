"""BPMN errors: error end events and handlers throw, error boundary events catch."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import BpmnError, Engine
from tests.postgresql_server import scratch_db

HEAD = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <error id="Err_Stock" errorCode="OUT_OF_STOCK"/>
  <error id="Err_Other" errorCode="OTHER"/>
  <process id="p" isExecutable="true">
"""
TAIL = "</process></definitions>"


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "errors.bpmn"
    path.write_text(HEAD + body + TAIL)
    return path


SUBPROCESS_WITH_ERROR_END = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
  <subProcess id="sub">
    <startEvent id="ss"/>
    <sequenceFlow id="sf1" sourceRef="ss" targetRef="split"/>
    <parallelGateway id="split"/>
    <sequenceFlow id="sf2" sourceRef="split" targetRef="wait"/>
    <sequenceFlow id="sf3" sourceRef="split" targetRef="fail"/>
    <userTask id="wait"/>
    <sequenceFlow id="sf4" sourceRef="wait" targetRef="se"/>
    <endEvent id="se"/>
    <endEvent id="fail"><errorEventDefinition errorRef="Err_Stock"/></endEvent>
  </subProcess>
  <boundaryEvent id="caught" attachedToRef="sub"><errorEventDefinition errorRef="Err_Stock"/>
  </boundaryEvent>
  <boundaryEvent id="all" attachedToRef="sub"><errorEventDefinition/></boundaryEvent>
  <sequenceFlow id="f2" sourceRef="sub" targetRef="ok"/>
  <sequenceFlow id="f3" sourceRef="caught" targetRef="handled"/>
  <sequenceFlow id="f4" sourceRef="all" targetRef="other"/>
  <endEvent id="ok"/><endEvent id="handled"/><endEvent id="other"/>
"""


def test_an_error_end_event_is_caught_by_the_matching_boundary_and_cancels_the_scope(
    tmp_path: Path,
) -> None:
    engine = Engine(scratch_db())
    instance = engine.start(write(tmp_path, SUBPROCESS_WITH_ERROR_END))
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.end_event == "handled"  # the specific catcher wins over the catch-all
    history = [(e.event, e.element) for e in instance.history()]
    assert ("error.thrown", "fail") in history
    assert ("error.caught", "caught") in history
    assert ("element.terminated", "wait") in history  # the sibling track was cancelled
    assert ("element.terminated", "sub") in history
    assert instance.user_tasks() == []
    assert not any(t["element"] == "wait" for t in instance.tokens())


def uncaught() -> str:
    """The subprocess of SUBPROCESS_WITH_ERROR_END with no catcher on it."""
    body = SUBPROCESS_WITH_ERROR_END.replace('<errorEventDefinition errorRef="Err_Stock"/>\n  ', "")
    body = body.replace(
        '<boundaryEvent id="all" attachedToRef="sub"><errorEventDefinition/></boundaryEvent>', ""
    )
    body = body.replace('<sequenceFlow id="f4" sourceRef="all" targetRef="other"/>', "")
    body = body.replace('<boundaryEvent id="caught" attachedToRef="sub">\n  </boundaryEvent>', "")
    return body.replace('<sequenceFlow id="f3" sourceRef="caught" targetRef="handled"/>', "")


def test_an_error_nobody_catches_is_an_incident(tmp_path: Path) -> None:
    path = write(tmp_path, uncaught())
    camunda = 'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"'
    path.write_text(path.read_text().replace(camunda, ""))
    outcome = Engine(scratch_db()).start(path).run()
    assert outcome.state == "failed"
    assert "unhandled BPMN error 'OUT_OF_STOCK'" in outcome.incident
    assert outcome.incident.startswith("fail:")


def test_in_a_camunda_7_file_an_error_end_event_nobody_catches_ends_its_path(
    tmp_path: Path,
) -> None:
    """Camunda 7's default: the error end event acts as a none end event (with a warning)."""
    instance = Engine(scratch_db()).start(write(tmp_path, uncaught()))
    outcome = instance.run()
    assert outcome.state == "waiting"  # the sibling token goes on
    assert [t.element for t in instance.user_tasks()] == ["wait"]
    history = [(e.event, e.element) for e in instance.history()]
    assert ("error.unhandled", "fail") in history
    warnings = [e.data["message"] for e in instance.history() if e.event == "warning"]
    assert any("caught nowhere" in w for w in warnings)
    instance.complete_task(instance.user_tasks()[0].id)
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.end_event == "ok"  # the subprocess completed normally


def test_a_handler_raising_bpmn_error_is_caught_by_a_catch_all_on_its_task(
    tmp_path: Path,
) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="charge"/>
      <serviceTask id="charge" camunda:type="external" camunda:topic="charge"/>
      <boundaryEvent id="declined" attachedToRef="charge"><errorEventDefinition/></boundaryEvent>
      <sequenceFlow id="f2" sourceRef="charge" targetRef="paid"/>
      <sequenceFlow id="f3" sourceRef="declined" targetRef="notify"/>
      <endEvent id="paid"/><endEvent id="notify"/>
    """

    def charge(ctx):
        raise BpmnError("CARD_DECLINED", "insufficient funds")

    engine = Engine(scratch_db(), handlers={"charge": charge})
    instance = engine.start(write(tmp_path, body))
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.end_event == "notify"
    caught = [e for e in instance.history() if e.event == "error.caught"]
    assert [(e.element, e.data["code"], e.data["message"]) for e in caught] == [
        ("declined", "CARD_DECLINED", "insufficient funds")
    ]
    assert not any(w.event == "warning" and "declined" in str(w.data) for w in instance.history())


def test_a_boundary_for_another_code_does_not_catch(tmp_path: Path) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="charge"/>
      <serviceTask id="charge" camunda:type="external" camunda:topic="charge"/>
      <boundaryEvent id="b" attachedToRef="charge"><errorEventDefinition errorRef="Err_Other"/>
      </boundaryEvent>
      <sequenceFlow id="f2" sourceRef="charge" targetRef="paid"/>
      <sequenceFlow id="f3" sourceRef="b" targetRef="notify"/>
      <endEvent id="paid"/><endEvent id="notify"/>
    """

    def charge(ctx):
        raise BpmnError("OUT_OF_STOCK")

    outcome = Engine(scratch_db(), handlers={"charge": charge}).start(write(tmp_path, body)).run()
    assert outcome.state == "failed"
    assert "OUT_OF_STOCK" in outcome.incident


def test_camunda_error_code_and_message_variables_hold_what_was_caught(tmp_path: Path) -> None:
    # given: Camunda 7's errorCodeVariable and errorMessageVariable on the catching definition
    # (they were ignored: a condition reading them failed, or read an older value)
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="charge"/>
      <serviceTask id="charge" camunda:type="external" camunda:topic="charge"/>
      <boundaryEvent id="declined" attachedToRef="charge"><errorEventDefinition
        camunda:errorCodeVariable="code" camunda:errorMessageVariable="why"/></boundaryEvent>
      <sequenceFlow id="f2" sourceRef="charge" targetRef="paid"/>
      <sequenceFlow id="f3" sourceRef="declined" targetRef="check"/>
      <exclusiveGateway id="check" default="f5"/>
      <sequenceFlow id="f4" sourceRef="check" targetRef="retry">
        <conditionExpression>${code == 'CARD_DECLINED'}</conditionExpression></sequenceFlow>
      <sequenceFlow id="f5" sourceRef="check" targetRef="other"/>
      <endEvent id="paid"/><endEvent id="retry"/><endEvent id="other"/>
    """

    def charge(ctx):
        raise BpmnError("CARD_DECLINED", "insufficient funds")

    with Engine(scratch_db(), handlers={"charge": charge}) as engine:
        instance = engine.start(write(tmp_path, body), variables={"code": "old"})
        outcome = instance.run()
    assert (outcome.state, outcome.end_event) == ("completed", "retry")
    assert outcome.variables["code"] == "CARD_DECLINED"
    assert outcome.variables["why"] == "insufficient funds"


def test_an_event_subprocess_error_start_sets_the_code_variable_too(tmp_path: Path) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="fail"/>
      <endEvent id="fail"><errorEventDefinition errorRef="Err_Stock"/></endEvent>
      <subProcess id="on_error" triggeredByEvent="true">
        <startEvent id="es"><errorEventDefinition errorRef="Err_Stock"
          camunda:errorCodeVariable="code" camunda:errorMessageVariable="why"/></startEvent>
        <sequenceFlow id="ef" sourceRef="es" targetRef="ee"/><endEvent id="ee"/>
      </subProcess>
    """
    with Engine(scratch_db()) as engine:
        outcome = engine.start(write(tmp_path, body)).run()
    assert outcome.state == "completed"
    assert outcome.variables["code"] == "OUT_OF_STOCK" and outcome.variables["why"] is None


def test_camunda_escalation_code_variable(tmp_path: Path) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
      <subProcess id="sub">
        <startEvent id="ss"/><sequenceFlow id="sf" sourceRef="ss" targetRef="up"/>
        <endEvent id="up"><escalationEventDefinition escalationRef="Esc"/></endEvent>
      </subProcess>
      <boundaryEvent id="b" attachedToRef="sub"><escalationEventDefinition
        escalationRef="Esc" camunda:escalationCodeVariable="raised"/></boundaryEvent>
      <sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><endEvent id="e"/>
      <sequenceFlow id="f3" sourceRef="b" targetRef="eb"/><endEvent id="eb"/>
    """
    path = write(tmp_path, body)
    path.write_text(
        path.read_text().replace(
            "<process ", '<escalation id="Esc" escalationCode="LATE"/><process '
        )
    )
    with Engine(scratch_db()) as engine:
        outcome = engine.start(path).run()
    assert (outcome.state, outcome.end_event) == ("completed", "eb")
    assert outcome.variables["raised"] == "LATE"
