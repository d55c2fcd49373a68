"""Conditional events: evaluated when variables change; catch, boundary, event subprocess."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from tests.postgresql_server import scratch_db

HEAD = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
"""
TAIL = "</process></definitions>"


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "conditional.bpmn"
    path.write_text(HEAD + body + TAIL)
    return path


def condition(text: str) -> str:
    return (
        '<conditionalEventDefinition><condition xsi:type="tFormalExpression">'
        f"{text}</condition></conditionalEventDefinition>"
    )


def test_a_conditional_catch_waits_until_the_condition_holds(tmp_path: Path) -> None:
    body = f"""
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
      <parallelGateway id="split"/>
      <sequenceFlow id="f2" sourceRef="split" targetRef="wait"/>
      <sequenceFlow id="f3" sourceRef="split" targetRef="approve"/>
      <intermediateCatchEvent id="wait">{condition("approved == True")}</intermediateCatchEvent>
      <userTask id="approve"/>
      <sequenceFlow id="f4" sourceRef="wait" targetRef="e1"/>
      <sequenceFlow id="f5" sourceRef="approve" targetRef="e2"/>
      <endEvent id="e1"/><endEvent id="e2"/>
    """
    engine = Engine(scratch_db())
    instance = engine.start(write(tmp_path, body), variables={"approved": False})
    outcome = instance.run()
    assert outcome.state == "waiting"
    assert {w["element"] for w in outcome.waiting_for} == {"wait", "approve"}
    instance.complete_task("approve", {"approved": True})
    outcome = instance.run()
    assert outcome.state == "completed"
    assert [e.element for e in instance.history() if e.event == "conditional.received"] == ["wait"]


def test_a_condition_already_true_passes_at_once(tmp_path: Path) -> None:
    body = f"""
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
      <intermediateCatchEvent id="wait">{condition("n > 1")}</intermediateCatchEvent>
      <sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
      <endEvent id="e"/>
    """
    outcome = Engine(scratch_db()).start(write(tmp_path, body), variables={"n": 2}).run()
    assert outcome.state == "completed"


def test_a_conditional_boundary_interrupts_when_a_variable_changes(tmp_path: Path) -> None:
    body = f"""
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
      <parallelGateway id="split"/>
      <sequenceFlow id="f2" sourceRef="split" targetRef="work"/>
      <sequenceFlow id="f3" sourceRef="split" targetRef="cancel"/>
      <userTask id="work"/>
      <boundaryEvent id="stop" attachedToRef="work">{condition("cancelled")}</boundaryEvent>
      <userTask id="cancel"/>
      <sequenceFlow id="f4" sourceRef="work" targetRef="done"/>
      <sequenceFlow id="f5" sourceRef="stop" targetRef="stopped"/>
      <sequenceFlow id="f6" sourceRef="cancel" targetRef="cancelEnd"/>
      <endEvent id="done"/><endEvent id="stopped"/><endEvent id="cancelEnd"/>
    """
    instance = Engine(scratch_db()).start(write(tmp_path, body), variables={"cancelled": False})
    assert instance.run().state == "waiting"
    instance.complete_task("cancel", {"cancelled": True})
    outcome = instance.run()
    assert outcome.state == "completed"
    history = [(e.event, e.element) for e in instance.history()]
    assert ("element.terminated", "work") in history
    assert ("element.completed", "stopped") in history


def test_a_bad_condition_is_an_incident_naming_the_event(tmp_path: Path) -> None:
    body = f"""
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
      <intermediateCatchEvent id="wait">{condition("missing > 1")}</intermediateCatchEvent>
      <sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
      <endEvent id="e"/>
    """
    outcome = Engine(scratch_db()).start(write(tmp_path, body)).run()
    assert outcome.state == "failed"
    assert outcome.incident.startswith("wait:") and "missing" in outcome.incident


def test_a_task_inside_a_subprocess_that_makes_its_boundary_condition_true_interrupts_it(
    tmp_path: Path,
) -> None:
    """The condition is evaluated on the variable change itself (as Camunda does): the
    subprocess is interrupted before its next element starts, not after it has finished."""
    body = f"""
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
      <subProcess id="sub">
        <startEvent id="ss"/>
        <sequenceFlow id="g1" sourceRef="ss" targetRef="raise"/>
        <scriptTask id="raise" scriptFormat="python"><script>alarm = True</script></scriptTask>
        <sequenceFlow id="g2" sourceRef="raise" targetRef="later"/>
        <task id="later"/>
        <sequenceFlow id="g3" sourceRef="later" targetRef="se"/>
        <endEvent id="se"/>
      </subProcess>
      <sequenceFlow id="f2" sourceRef="sub" targetRef="ok"/>
      <endEvent id="ok"/>
      <boundaryEvent id="alarmed" attachedToRef="sub">{condition("alarm")}</boundaryEvent>
      <sequenceFlow id="f3" sourceRef="alarmed" targetRef="stopped"/>
      <endEvent id="stopped"/>
    """
    engine = Engine(scratch_db())
    instance = engine.start(write(tmp_path, body), variables={"alarm": False})
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.end_event == "stopped"
    activated = [e.element for e in instance.history() if e.event == "element.activated"]
    assert "later" not in activated
