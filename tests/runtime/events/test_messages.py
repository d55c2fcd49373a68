"""Messages and signals: catch events, receive tasks, boundaries, the event-based gateway."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bpmn_engine import Engine
from bpmn_engine.runtime.clock import VirtualClock

HEAD = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <message id="Msg_Paid" name="payment-received">
    <extensionElements><zeebe:subscription correlationKey="=orderId"/></extensionElements>
  </message>
  <signal id="Sig_Stop" name="stop-all"/>
  <process id="p" isExecutable="true">
"""
TAIL = "</process></definitions>"


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "messages.bpmn"
    path.write_text(HEAD + body + TAIL)
    return path


def history(instance) -> list[tuple[str, str | None]]:
    return [(e.event, e.element) for e in instance.history()]


RECEIVE = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
  <receiveTask id="wait" messageRef="Msg_Paid"/>
  <sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
  <endEvent id="e"/>
"""


def test_a_message_is_correlated_by_name_and_key_and_sets_variables(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db")
    path = write(tmp_path, RECEIVE)
    first = engine.start(path, variables={"orderId": "A-1"})
    second = engine.start(path, variables={"orderId": "B-2"})
    assert first.run().state == second.run().state == "waiting"
    assert first.outcome().waiting_for[0] | {"track": 0} == {
        "element": "wait",
        "reason": "message",
        "name": "payment-received",
        "key": "A-1",
        "track": 0,
    }
    # when
    woken = engine.publish_message("payment-received", "B-2", {"amount": 12})
    # then: only the instance with that key moves on
    assert [i.id for i in woken] == [second.id]
    assert woken[0].run().state == "completed"
    assert woken[0].variables["amount"] == 12
    assert engine.instance(first.id).outcome().state == "waiting"


def test_a_message_nobody_waits_for_is_buffered_for_its_ttl_and_used_once(tmp_path: Path) -> None:
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    engine = Engine(tmp_path / "m.db", clock=clock)
    assert engine.publish_message("payment-received", "C-3", {"early": True}, ttl=3600) == []
    instance = engine.start(write(tmp_path, RECEIVE), variables={"orderId": "C-3"})
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.variables["early"] is True
    again = engine.start(write(tmp_path, RECEIVE), variables={"orderId": "C-3"})
    assert again.run().state == "waiting"  # the buffered message was correlated once


def test_an_expired_buffered_message_is_not_delivered(tmp_path: Path) -> None:
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    engine = Engine(tmp_path / "m.db", clock=clock)
    engine.publish_message("payment-received", "D-4", ttl=60)
    clock.advance_to(clock.now() + timedelta(minutes=2))
    instance = engine.start(write(tmp_path, RECEIVE), variables={"orderId": "D-4"})
    assert instance.run().state == "waiting"


def test_a_message_published_twice_with_one_id_is_correlated_once(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db")
    path = write(tmp_path, RECEIVE)
    first = engine.start(path, variables={"orderId": "E-5"})
    second = engine.start(path, variables={"orderId": "E-5"})
    first.run(), second.run()
    assert len(engine.publish_message("payment-received", "E-5", message_id="m-1")) == 1
    assert engine.publish_message("payment-received", "E-5", message_id="m-1") == []
    states = sorted(engine.instance(i.id).run().state for i in (first, second))
    assert states == ["completed", "waiting"]


EVENT_GATEWAY = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="race"/>
  <eventBasedGateway id="race"/>
  <sequenceFlow id="f2" sourceRef="race" targetRef="paid"/>
  <sequenceFlow id="f3" sourceRef="race" targetRef="timeout"/>
  <intermediateCatchEvent id="paid"><messageEventDefinition messageRef="Msg_Paid"/>
  </intermediateCatchEvent>
  <intermediateCatchEvent id="timeout">
    <timerEventDefinition><timeDuration>PT15M</timeDuration></timerEventDefinition>
  </intermediateCatchEvent>
  <sequenceFlow id="f4" sourceRef="paid" targetRef="ship"/>
  <sequenceFlow id="f5" sourceRef="timeout" targetRef="cancel"/>
  <endEvent id="ship"/><endEvent id="cancel"/>
"""


def test_event_based_gateway_message_first_takes_exactly_one_path(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db")  # real clock: the 15 minutes have not passed
    instance = engine.start(write(tmp_path, EVENT_GATEWAY), variables={"orderId": "F-6"})
    assert instance.run().state == "waiting"
    [woken] = engine.publish_message("payment-received", "F-6")
    outcome = woken.run()
    assert outcome.end_event == "ship"
    assert ("timer.fired", "timeout") not in history(woken)
    assert [t.status for t in woken.data.timers.values()] == ["cancelled"]
    assert ("element.activated", "cancel") not in history(woken)


def test_event_based_gateway_timer_first_cancels_the_subscription(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "m.db", clock=VirtualClock(datetime(2026, 1, 1, tzinfo=UTC)))
    instance = engine.start(write(tmp_path, EVENT_GATEWAY), variables={"orderId": "G-7"})
    outcome = instance.run()  # nothing else can happen: the virtual clock jumps 15 minutes
    assert outcome.end_event == "cancel"
    assert [s.status for s in instance.data.subscriptions.values()] == ["cancelled"]
    assert engine.publish_message("payment-received", "G-7") == []


def test_a_signal_reaches_every_waiting_catcher_in_every_instance(tmp_path: Path) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
      <userTask id="work"/>
      <boundaryEvent id="stopped" attachedToRef="work">
        <signalEventDefinition signalRef="Sig_Stop"/></boundaryEvent>
      <sequenceFlow id="f2" sourceRef="work" targetRef="done"/>
      <sequenceFlow id="f3" sourceRef="stopped" targetRef="halted"/>
      <endEvent id="done"/><endEvent id="halted"/>
    """
    engine = Engine(tmp_path / "m.db")
    instances = [engine.start(write(tmp_path, body)) for _ in range(3)]
    for instance in instances:
        assert instance.run().state == "waiting"
    woken = engine.broadcast_signal("stop-all", {"reason": "closing"})
    assert sorted(i.id for i in woken) == sorted(i.id for i in instances)
    for instance in woken:
        outcome = instance.run()
        assert outcome.end_event == "halted" and outcome.variables["reason"] == "closing"
        assert ("element.terminated", "work") in history(instance)
        assert instance.user_tasks() == []


def test_a_message_catch_event_waits_and_survives_a_restart(tmp_path: Path) -> None:
    body = RECEIVE.replace(
        '<receiveTask id="wait" messageRef="Msg_Paid"/>',
        '<intermediateCatchEvent id="wait"><messageEventDefinition messageRef="Msg_Paid"/>'
        "</intermediateCatchEvent>",
    )
    db = tmp_path / "m.db"
    first = Engine(db)
    instance = first.start(write(tmp_path, body), variables={"orderId": 42})
    assert instance.run().state == "waiting"
    first.close()
    second = Engine(db)
    [woken] = second.publish_message("payment-received", "42")
    assert woken.run().state == "completed"


def test_bpmn_correlation_properties_give_the_key(tmp_path: Path) -> None:
    path = tmp_path / "standard.bpmn"
    path.write_text(
        """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <correlationProperty id="CP_order" name="order id">
    <correlationPropertyRetrievalExpression messageRef="M_Shipped">
      <messagePath>orderId</messagePath>
    </correlationPropertyRetrievalExpression>
  </correlationProperty>
  <message id="M_Shipped" name="shipped"/>
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
    <receiveTask id="wait" messageRef="M_Shipped"/>
    <sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>"""
    )
    engine = Engine(tmp_path / "m.db")
    first = engine.start(path, variables={"orderId": "X-1"})
    second = engine.start(path, variables={"orderId": "X-2"})
    first.run(), second.run()
    assert first.outcome().waiting_for[0]["key"] == "X-1"
    [woken] = engine.publish_message("shipped", "X-2")
    assert woken.id == second.id
