"""Correlation as BPMN 2.0.2 §8.3.2 says: a property's retrieval expression for a message is
evaluated over that message's payload; a receiver waits for values computed from its own
data; thrown messages carry their payload (SpiffWorkflow `messagePayload`/`messageVariable`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine
from bpmn_engine.errors import LoadError
from bpmn_engine.validate import validate
from tests.runtime.conftest import HEADER, flow


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


SPIFF = 'xmlns:spiffworkflow="http://spiffworkflow.org/bpmn/schema/1.0/core"'


def conversation(request_variable: str = "req") -> str:
    """A client sends a request (payload `order_id`) and waits for the reply (payload `ref`,
    `answer`); a server takes a request and replies. One property, read from each message's
    own payload under a different name."""
    return f"""<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" {SPIFF} id="d"
  targetNamespace="t">
  <message id="M_Request" name="request"/>
  <message id="M_Reply" name="reply"/>
  <correlationProperty id="CP_order" name="order">
    <correlationPropertyRetrievalExpression messageRef="M_Request">
      <messagePath>order_id</messagePath>
    </correlationPropertyRetrievalExpression>
    <correlationPropertyRetrievalExpression messageRef="M_Reply">
      <messagePath>ref</messagePath>
    </correlationPropertyRetrievalExpression>
  </correlationProperty>
  <process id="client" isExecutable="true">
    <startEvent id="cs"/>{flow("cs", "ask")}
    <intermediateThrowEvent id="ask"><messageEventDefinition messageRef="M_Request">
      <extensionElements>
        <spiffworkflow:messagePayload>{{"order_id": mine}}</spiffworkflow:messagePayload>
      </extensionElements></messageEventDefinition></intermediateThrowEvent>
    {flow("ask", "answered")}
    <intermediateCatchEvent id="answered"><messageEventDefinition messageRef="M_Reply"/>
    </intermediateCatchEvent>{flow("answered", "ce")}
    <endEvent id="ce"/>
  </process>
  <process id="server" isExecutable="true">
    <startEvent id="ss"/>{flow("ss", "take")}
    <intermediateCatchEvent id="take"><messageEventDefinition messageRef="M_Request">
      <extensionElements>
        <spiffworkflow:messageVariable>{request_variable}</spiffworkflow:messageVariable>
      </extensionElements></messageEventDefinition></intermediateCatchEvent>{flow("take", "tell")}
    <endEvent id="tell"><messageEventDefinition messageRef="M_Reply">
      <extensionElements><spiffworkflow:messagePayload>
        {{"ref": {request_variable}["order_id"], "answer": "ok " + {request_variable}["order_id"]}}
      </spiffworkflow:messagePayload></extensionElements></messageEventDefinition></endEvent>
  </process>
</definitions>
"""


def test_a_reply_reaches_only_the_client_whose_request_it_answers(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "conversation.bpmn"
    path.write_text(conversation())
    first = engine.start(path, "client", variables={"mine": "A-1"})
    second = engine.start(path, "client", variables={"mine": "B-2"})
    assert first.run().state == "waiting" and second.run().state == "waiting"
    # each client waits for the key it sent, computed over its request's payload
    assert first.outcome().waiting_for[0]["key"] == "A-1"
    assert second.outcome().waiting_for[0]["key"] == "B-2"
    server = engine.start(path, "server")
    assert server.run().state == "completed"  # took the oldest request (A-1's) and replied
    assert server.variables == {"req": {"order_id": "A-1"}}  # the payload, in its variable
    assert engine.instance(first.id).outcome().state == "completed"
    assert engine.instance(first.id).variables == {"mine": "A-1", "ref": "A-1", "answer": "ok A-1"}
    assert engine.instance(second.id).outcome().state == "waiting"
    assert engine.start(path, "server").run().state == "completed"
    assert engine.instance(second.id).variables["answer"] == "ok B-2"


def test_a_thrown_message_key_is_read_from_its_payload_not_the_sender_variables(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "conversation.bpmn"
    path.write_text(conversation())
    client = engine.start(path, "client", variables={"mine": "C-3", "order_id": "wrong"})
    client.run()
    [sent] = [e.data for e in client.history() if e.event == "message.sent"]
    assert (sent["name"], sent["key"]) == ("request", "C-3")


def test_a_receiver_does_not_need_a_variable_named_after_the_incoming_field(
    tmp_path: Path, engine: Engine
) -> None:
    # the client has no variable `ref` (the reply's field): it still waits for its own key
    path = tmp_path / "conversation.bpmn"
    path.write_text(conversation())
    client = engine.start(path, "client", variables={"mine": "D-4"})
    assert client.run().state == "waiting"
    assert client.outcome().waiting_for[0]["key"] == "D-4"
    assert engine.publish_message("reply", "E-5", {"ref": "E-5"}) == []
    [woken] = engine.publish_message("reply", "D-4", {"ref": "D-4", "answer": "yes"})
    assert woken.id == client.id
    assert woken.run().state == "completed"
    assert woken.variables["answer"] == "yes"


ASSOCIATED = f"""<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M_Parcel" name="parcel"/>
  <correlationProperty id="CP_parcel" name="parcel">
    <correlationPropertyRetrievalExpression messageRef="M_Parcel">
      <messagePath>code</messagePath>
    </correlationPropertyRetrievalExpression>
  </correlationProperty>
  <process id="sender" isExecutable="true">
    <dataObject id="box"/>
    <startEvent id="s1"/>{flow("s1", "ship")}
    <intermediateThrowEvent id="ship">
      <dataInput id="parcel_in"/>
      <dataInputAssociation id="a_in"><sourceRef>box</sourceRef><targetRef>parcel_in</targetRef>
      </dataInputAssociation>
      <messageEventDefinition messageRef="M_Parcel"/>
    </intermediateThrowEvent>{flow("ship", "e1")}
    <endEvent id="e1"/>
  </process>
  <process id="receiver" isExecutable="true">
    <dataObject id="got"/>
    <startEvent id="s2"/>{flow("s2", "arrive")}
    <intermediateCatchEvent id="arrive">
      <dataOutput id="parcel_out"/>
      <dataOutputAssociation id="a_out"><sourceRef>parcel_out</sourceRef><targetRef>got</targetRef>
      </dataOutputAssociation>
      <messageEventDefinition messageRef="M_Parcel"/>
    </intermediateCatchEvent>{flow("arrive", "e2")}
    <endEvent id="e2"/>
  </process>
</definitions>
"""


def test_data_associations_of_message_events_make_and_take_the_message(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "associated.bpmn"
    path.write_text(ASSOCIATED)
    receiver = engine.start(path, "receiver", variables={"code": "P-9"})
    assert receiver.run().state == "waiting"
    sender = engine.start(path, "sender", variables={"box": {"code": "P-9", "kg": 2}})
    assert sender.run().state == "completed"
    [sent] = [e.data for e in sender.history() if e.event == "message.sent"]
    assert sent["key"] == "P-9"  # read from the message (the data input), not a variable
    done = engine.instance(receiver.id)
    assert done.outcome().state == "completed"
    assert done.variables["got"] == {"code": "P-9", "kg": 2}


REMEMBERED = f"""<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" {SPIFF} id="d"
  targetNamespace="t">
  <message id="M_Request" name="request"/>
  <message id="M_Reply" name="reply"/>
  <message id="M_Followup" name="followup"/>
  <correlationProperty id="CP_order" name="order">
    <correlationPropertyRetrievalExpression messageRef="M_Request">
      <messagePath>order_id</messagePath>
    </correlationPropertyRetrievalExpression>
    <correlationPropertyRetrievalExpression messageRef="M_Reply">
      <messagePath>ref</messagePath>
    </correlationPropertyRetrievalExpression>
    <correlationPropertyRetrievalExpression messageRef="M_Followup">
      <messagePath>order_id</messagePath>
    </correlationPropertyRetrievalExpression>
  </correlationProperty>
  <process id="client" isExecutable="true">
    <startEvent id="cs"/>{flow("cs", "ask")}
    <intermediateThrowEvent id="ask"><messageEventDefinition messageRef="M_Request">
      <extensionElements>
        <spiffworkflow:messagePayload>{{"order_id": mine}}</spiffworkflow:messagePayload>
      </extensionElements></messageEventDefinition></intermediateThrowEvent>
    {flow("ask", "change")}
    <scriptTask id="change" scriptFormat="python"><script>mine = "other"</script></scriptTask>
    {flow("change", "answered")}
    <intermediateCatchEvent id="answered"><messageEventDefinition messageRef="M_Reply"/>
    </intermediateCatchEvent>{flow("answered", "ce")}
    <endEvent id="ce"/>
  </process>
  <process id="server" isExecutable="true">
    <startEvent id="ss"/>{flow("ss", "take")}
    <intermediateCatchEvent id="take"><messageEventDefinition messageRef="M_Request">
      <extensionElements>
        <spiffworkflow:messageVariable>req</spiffworkflow:messageVariable>
      </extensionElements></messageEventDefinition></intermediateCatchEvent>
    {flow("take", "more")}
    <intermediateCatchEvent id="more"><messageEventDefinition messageRef="M_Followup"/>
    </intermediateCatchEvent>{flow("more", "se")}
    <endEvent id="se"/>
  </process>
</definitions>
"""


def test_a_sender_waits_for_the_key_it_sent_even_after_its_data_changed(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "remembered.bpmn"
    path.write_text(REMEMBERED)
    client = engine.start(path, "client", variables={"mine": "A-1"})
    assert client.run().state == "waiting"
    assert client.outcome().waiting_for[0]["key"] == "A-1"  # remembered, not "other"
    assert client.variables == {"mine": "other"}  # what it remembers is no variable


def test_a_receiver_remembers_the_key_of_the_message_that_began_its_conversation(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "remembered.bpmn"
    path.write_text(REMEMBERED)
    server = engine.start(path, "server")
    assert server.run().state == "waiting"
    assert server.outcome().waiting_for[0]["key"] is None  # the first message: any
    [woken] = engine.publish_message("request", None, {"order_id": "A-1"})
    assert woken.run().state == "waiting"
    assert woken.outcome().waiting_for[0]["key"] == "A-1"
    assert engine.publish_message("followup", "B-2", {"order_id": "B-2"}) == []
    [again] = engine.publish_message("followup", "A-1", {"order_id": "A-1"})
    assert again.run().state == "completed"
    assert again.variables["req"] == {"order_id": "A-1"}


def grouped(keys: str) -> str:
    """A message with two correlation properties (customer, order); `keys` the
    correlationKey elements that group them."""
    return f"""<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <message id="M_Ship" name="ship"/>
  <collaboration id="c">{keys}</collaboration>
  <correlationProperty id="CP_customer" name="customer">
    <correlationPropertyRetrievalExpression messageRef="M_Ship">
      <messagePath>customer</messagePath>
    </correlationPropertyRetrievalExpression>
  </correlationProperty>
  <correlationProperty id="CP_order" name="order">
    <correlationPropertyRetrievalExpression messageRef="M_Ship">
      <messagePath>order</messagePath>
    </correlationPropertyRetrievalExpression>
  </correlationProperty>
  <process id="p" isExecutable="true">
    <startEvent id="s"/>{flow("s", "wait")}
    <receiveTask id="wait" messageRef="M_Ship"/>{flow("wait", "e")}
    <endEvent id="e"/>
  </process>
</definitions>
"""


BOTH = (
    '<correlationKey id="K" name="shipment"><correlationPropertyRef>CP_customer'
    "</correlationPropertyRef><correlationPropertyRef>CP_order</correlationPropertyRef>"
    "</correlationKey>"
)


def test_a_correlation_key_of_two_properties_delivers_only_on_both_values(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "grouped.bpmn"
    path.write_text(grouped(BOTH))
    same_order = engine.start(path, variables={"customer": "ann", "order": 7})
    wanted = engine.start(path, variables={"customer": "bob", "order": 7})
    same_order.run(), wanted.run()
    key = wanted.outcome().waiting_for[0]["key"]
    assert key == '["bob",7]'
    [woken] = engine.publish_message("ship", key, {})
    assert woken.id == wanted.id


def test_only_the_first_correlation_key_that_groups_a_message_property_correlates_it(
    tmp_path: Path, engine: Engine
) -> None:
    by_customer = (
        '<correlationKey id="K1" name="by customer">'
        "<correlationPropertyRef>CP_customer</correlationPropertyRef></correlationKey>"
        '<correlationKey id="K2" name="by order">'
        "<correlationPropertyRef>CP_order</correlationPropertyRef></correlationKey>"
    )
    path = tmp_path / "grouped.bpmn"
    path.write_text(grouped(by_customer))
    instance = engine.start(path, variables={"customer": "ann", "order": 7})
    instance.run()
    assert instance.outcome().waiting_for[0]["key"] == "ann"


def test_a_retrieval_expression_that_does_not_compile_is_refused_before_the_first_step(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "broken.bpmn"
    path.write_text(
        grouped("").replace("<messagePath>order</messagePath>", "<messagePath>order[</messagePath>")
    )
    with pytest.raises(LoadError) as refused:
        engine.start(path)
    assert refused.value.element_id == "CP_order"
    assert refused.value.line == line_of(path, "order[")
    [finding] = [f for f in validate([path]).findings if f.rule == "executable"]
    assert finding.element == "CP_order" and finding.line is not None
    assert "retrieval expression for message 'M_Ship'" in finding.message


def test_a_message_payload_that_does_not_compile_is_refused_before_the_first_step(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "broken.bpmn"
    path.write_text(conversation().replace('{"order_id": mine}', '{"order_id": mine'))
    with pytest.raises(LoadError) as refused:
        engine.start(path, "client")
    assert refused.value.element_id == "ask"
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    assert [f.element for f in findings] == ["ask"]
    assert "messagePayload" in findings[0].message


STARTED = f"""<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" {SPIFF} id="d"
  targetNamespace="t">
  <message id="M_Open" name="open"/>
  <message id="M_Close" name="close"/>
  <correlationProperty id="CP_case" name="case">
    <correlationPropertyRetrievalExpression messageRef="M_Open">
      <messagePath>case_id</messagePath>
    </correlationPropertyRetrievalExpression>
    <correlationPropertyRetrievalExpression messageRef="M_Close">
      <messagePath>case_id</messagePath>
    </correlationPropertyRetrievalExpression>
  </correlationProperty>
  <process id="case" isExecutable="true">
    <startEvent id="opened"><messageEventDefinition messageRef="M_Open">
      <extensionElements>
        <spiffworkflow:messageVariable>opening</spiffworkflow:messageVariable>
      </extensionElements></messageEventDefinition></startEvent>{flow("opened", "closed")}
    <intermediateCatchEvent id="closed"><messageEventDefinition messageRef="M_Close"/>
    </intermediateCatchEvent>{flow("closed", "e")}
    <endEvent id="e"/>
  </process>
</definitions>
"""


def test_a_message_start_takes_the_payload_into_its_variable_and_keys_the_conversation(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "started.bpmn"
    path.write_text(STARTED)
    engine.deploy_processes(path)
    [first] = engine.publish_message("open", None, {"case_id": "K-1"})
    [second] = engine.publish_message("open", None, {"case_id": "K-2"})
    assert first.run().state == "waiting" and second.run().state == "waiting"
    assert first.variables == {"opening": {"case_id": "K-1"}}
    assert second.outcome().waiting_for[0]["key"] == "K-2"
    [closed] = engine.publish_message("close", "K-2", {"case_id": "K-2"})
    assert closed.id == second.id


def test_each_inner_instance_of_a_multi_instance_keeps_its_own_conversation(
    tmp_path: Path, engine: Engine
) -> None:
    body = (
        '<subProcess id="each"><multiInstanceLoopCharacteristics isSequential="false">'
        '<loopDataInputRef>orders</loopDataInputRef><inputDataItem id="order"/>'
        "</multiInstanceLoopCharacteristics>"
        f'<startEvent id="is"/>{flow("is", "ask")}'
        '<intermediateThrowEvent id="ask"><messageEventDefinition messageRef="M_Request">'
        '<extensionElements><spiffworkflow:messagePayload>{"order_id": order}'
        "</spiffworkflow:messagePayload></extensionElements></messageEventDefinition>"
        f"</intermediateThrowEvent>{flow('ask', 'answered')}"
        '<intermediateCatchEvent id="answered"><messageEventDefinition messageRef="M_Reply"/>'
        f'</intermediateCatchEvent>{flow("answered", "ie")}<endEvent id="ie"/></subProcess>'
    )
    client = conversation().split('<process id="client"')[0]
    path = tmp_path / "each.bpmn"
    path.write_text(
        f'{client}<process id="many" isExecutable="true"><startEvent id="s"/>'
        f'{flow("s", "each")}{body}{flow("each", "e")}<endEvent id="e"/></process></definitions>'
    )
    instance = engine.start(path, "many", variables={"orders": ["A", "B"]})
    assert instance.run().state == "waiting"
    keys = sorted(w["key"] for w in instance.outcome().waiting_for if w.get("key"))
    assert keys == ["A", "B"]


MAPPED = f"""<?xml version="1.0"?>
{HEADER}
  <message id="M_Parcel" name="parcel">
    <extensionElements><zeebe:subscription correlationKey="=code"/></extensionElements>
  </message>
  <process id="sender" isExecutable="true">
    <startEvent id="s1"/>{flow("s1", "ship")}
    <intermediateThrowEvent id="ship"><extensionElements><zeebe:ioMapping>
      <zeebe:input source="=box.kg" target="weight"/></zeebe:ioMapping></extensionElements>
      <messageEventDefinition messageRef="M_Parcel"/></intermediateThrowEvent>{flow("ship", "e1")}
    <endEvent id="e1"/>
  </process>
  <process id="receiver" isExecutable="true">
    <startEvent id="s2"/>{flow("s2", "arrive")}
    <intermediateCatchEvent id="arrive"><extensionElements><zeebe:ioMapping>
      <zeebe:output source="=weight * 2" target="doubled"/></zeebe:ioMapping></extensionElements>
      <messageEventDefinition messageRef="M_Parcel"/></intermediateCatchEvent>{flow("arrive", "e2")}
    <endEvent id="e2"/>
  </process>
</definitions>
"""


def test_zeebe_mappings_on_message_events_make_and_take_the_payload(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "mapped.bpmn"
    path.write_text(MAPPED)
    receiver = engine.start(path, "receiver", variables={"code": "Z-1"})
    assert receiver.run().state == "waiting"
    sender = engine.start(path, "sender", variables={"code": "Z-1", "box": {"kg": 3}})
    assert sender.run().state == "completed"
    done = engine.instance(receiver.id)
    assert done.outcome().state == "completed"
    assert done.variables == {"code": "Z-1", "doubled": 6}  # only what the output maps


def test_an_output_mapping_on_a_message_throw_sets_it_as_the_throw_completes(
    tmp_path: Path, engine: Engine
) -> None:
    """Camunda 7 and Zeebe both map a throw event's outputs when it completes."""
    path = tmp_path / "mapped.bpmn"
    path.write_text(
        MAPPED.replace(
            '<zeebe:input source="=box.kg" target="weight"/>',
            '<zeebe:input source="=box.kg" target="weight"/>'
            '<zeebe:output source="=weight + 1" target="sent"/>',
        )
    )
    sender = engine.start(path, "sender", variables={"code": "Z-3", "box": {"kg": 3}})
    assert sender.run().state == "completed"
    assert engine.instance(sender.id).variables == {"code": "Z-3", "box": {"kg": 3}, "sent": 4}


def test_an_input_mapping_on_a_message_catch_is_refused(tmp_path: Path, engine: Engine) -> None:
    path = tmp_path / "mapped.bpmn"
    path.write_text(MAPPED.replace('zeebe:output source="=weight', 'zeebe:input source="=weight'))
    with pytest.raises(LoadError, match="input mappings on an intermediate catch event"):
        engine.start(path, "receiver")


def test_a_send_task_sends_its_inputs_as_the_message(tmp_path: Path, engine: Engine) -> None:
    sent = MAPPED.replace(
        '<intermediateThrowEvent id="ship">', '<sendTask id="ship" messageRef="M_Parcel">'
    ).replace(
        '<messageEventDefinition messageRef="M_Parcel"/></intermediateThrowEvent>', "</sendTask>"
    )
    path = tmp_path / "sent.bpmn"
    path.write_text(sent)
    receiver = engine.start(path, "receiver", variables={"code": "Z-2"})
    assert receiver.run().state == "waiting"
    sender = engine.start(path, "sender", variables={"code": "Z-2", "box": {"kg": 4}})
    assert sender.run().state == "completed"
    assert engine.instance(receiver.id).variables == {"code": "Z-2", "doubled": 8}
