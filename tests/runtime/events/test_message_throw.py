"""Message throw events, message end events and send tasks deliver inside the engine."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine

COLLABORATION = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <message id="M_Order" name="order">
    <extensionElements><zeebe:subscription correlationKey="=orderId"/></extensionElements>
  </message>
  <message id="M_Confirm" name="confirmation">
    <extensionElements><zeebe:subscription correlationKey="=orderId"/></extensionElements>
  </message>
  <collaboration id="c">
    <participant id="P_Customer" processRef="customer"/>
    <participant id="P_Shop" processRef="shop"/>
    <messageFlow id="mf1" sourceRef="send" targetRef="receive"/>
    <messageFlow id="mf2" sourceRef="confirm" targetRef="confirmed"/>
  </collaboration>
  <process id="customer" isExecutable="true">
    <startEvent id="s1"/>
    <sequenceFlow id="c1" sourceRef="s1" targetRef="send"/>
    <intermediateThrowEvent id="send"><messageEventDefinition messageRef="M_Order"/>
    </intermediateThrowEvent>
    <sequenceFlow id="c2" sourceRef="send" targetRef="confirmed"/>
    <intermediateCatchEvent id="confirmed"><messageEventDefinition messageRef="M_Confirm"/>
    </intermediateCatchEvent>
    <sequenceFlow id="c3" sourceRef="confirmed" targetRef="e1"/>
    <endEvent id="e1"/>
  </process>
  <process id="shop" isExecutable="true">
    <startEvent id="s2"/>
    <sequenceFlow id="h1" sourceRef="s2" targetRef="receive"/>
    <receiveTask id="receive" messageRef="M_Order"/>
    <sequenceFlow id="h2" sourceRef="receive" targetRef="confirm"/>
    <sendTask id="confirm" messageRef="M_Confirm"/>
    <sequenceFlow id="h3" sourceRef="confirm" targetRef="e2"/>
    <endEvent id="e2"/>
  </process>
</definitions>
"""


def test_two_pools_talk_through_message_throw_and_send_task(tmp_path: Path) -> None:
    path = tmp_path / "collaboration.bpmn"
    path.write_text(COLLABORATION)
    engine = Engine(tmp_path / "c.db")
    shop = engine.start(path, "shop", variables={"orderId": "A-1"})
    assert shop.run().state == "waiting"
    customer = engine.start(path, "customer", variables={"orderId": "A-1"})
    outcome = customer.run()  # sends the order; the shop runs on and confirms; the reply wakes it
    assert outcome.state == "completed"
    assert engine.instance(shop.id).outcome().state == "completed"
    sent = [(e.element, e.data["name"]) for e in customer.history() if e.event == "message.sent"]
    assert sent == [("send", "order")]


def test_a_message_sent_before_its_receiver_waits_is_kept_for_it(tmp_path: Path) -> None:
    path = tmp_path / "collaboration.bpmn"
    path.write_text(COLLABORATION)
    engine = Engine(tmp_path / "c.db")
    customer = engine.start(path, "customer", variables={"orderId": "B-2"})
    assert customer.run().state == "waiting"  # no shop yet: the order is buffered
    shop = engine.start(path, "shop", variables={"orderId": "B-2"})
    assert shop.run().state == "completed"  # it took the order and sent the confirmation
    assert engine.instance(customer.id).outcome().state == "completed"
