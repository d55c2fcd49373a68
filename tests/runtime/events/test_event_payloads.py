"""SpiffWorkflow's event payloads: a signal, error or escalation whose extension names a
`variableName` carries the value of its `payloadExpression`, computed over the thrower's
variables, into that variable where the catcher goes on."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine import Engine
from tests.runtime.conftest import HEADER, flow

SPIFF = 'xmlns:spiffworkflow="http://spiffworkflow.org/bpmn/schema/1.0/core"'


def carrying(tag: str, ref_id: str, code: str, expression: str | None, variable: str) -> str:
    """A root `signal`, `error` or `escalation` with SpiffWorkflow's payload extension."""
    payload = (
        f"<spiffworkflow:payloadExpression>{expression}</spiffworkflow:payloadExpression>"
        if expression is not None
        else ""
    )
    return (
        f'<{tag} id="{ref_id}" {code}><extensionElements {SPIFF}>{payload}'
        f"<spiffworkflow:variableName>{variable}</spiffworkflow:variableName>"
        f"</extensionElements></{tag}>"
    )


def write(tmp_path: Path, process: str, roots: str) -> Path:
    path = tmp_path / "payloads.bpmn"
    path.write_text(
        f'{HEADER}<process id="p" isExecutable="true">{process}</process>{roots}</definitions>'
    )
    return path


def script(element_id: str, text: str) -> str:
    return (
        f'<scriptTask id="{element_id}" scriptFormat="python"><script>{text}</script></scriptTask>'
    )


def test_a_thrown_signal_carries_its_payload_into_the_catching_events_variable(
    tmp_path: Path, engine: Engine
) -> None:
    process = (
        '<startEvent id="s"/><parallelGateway id="fork"/>'
        '<intermediateCatchEvent id="catch"><signalEventDefinition signalRef="Sig"/>'
        "</intermediateCatchEvent>"
        + script("set", "v1 = 1; v2 = 2")
        + '<intermediateThrowEvent id="throw"><signalEventDefinition signalRef="Sig"/>'
        "</intermediateThrowEvent>"
        '<endEvent id="e1"/><endEvent id="e2"/>'
        + flow("s", "fork")
        + flow("fork", "catch")
        + flow("fork", "set")
        + flow("set", "throw")
        + flow("throw", "e1")
        + flow("catch", "e2")
    )
    roots = carrying("signal", "Sig", 'name="go"', "{'r1': v1, 'r2': v2}", "result")
    outcome = engine.start(write(tmp_path, process, roots)).run()
    assert outcome.state == "completed"
    assert outcome.variables["result"] == {"r1": 1, "r2": 2}


def test_an_error_carries_its_payload_to_the_boundary_event_that_catches_it(
    tmp_path: Path, engine: Engine
) -> None:
    process = (
        '<startEvent id="s"/><subProcess id="sub"><startEvent id="is"/>'
        + script("fail", "reason = 'out of stock'")
        + '<endEvent id="ie"><errorEventDefinition errorRef="Err"/></endEvent>'
        + flow("is", "fail")
        + flow("fail", "ie")
        + '</subProcess><boundaryEvent id="caught" attachedToRef="sub">'
        '<errorEventDefinition errorRef="Err"/></boundaryEvent>'
        + script("handle", "handled = 'handled: ' + problem")
        + '<endEvent id="e1"/><endEvent id="e2"/>'
        + flow("s", "sub")
        + flow("sub", "e1")
        + flow("caught", "handle")
        + flow("handle", "e2")
    )
    roots = carrying("error", "Err", 'errorCode="NO_STOCK"', "reason.upper()", "problem")
    outcome = engine.start(write(tmp_path, process, roots)).run()
    assert outcome.state == "completed"
    assert outcome.variables["handled"] == "handled: OUT OF STOCK"


def test_an_escalation_without_a_payload_expression_sets_its_variable_to_none(
    tmp_path: Path, engine: Engine
) -> None:
    process = (
        '<startEvent id="s"/><intermediateThrowEvent id="up">'
        '<escalationEventDefinition escalationRef="Esc"/></intermediateThrowEvent>'
        + script("after", "went_on = True")
        + '<endEvent id="e"/>'
        + flow("s", "up")
        + flow("up", "after")
        + flow("after", "e")
        + '<subProcess id="handler" triggeredByEvent="true">'
        '<startEvent id="hs" isInterrupting="false">'
        '<escalationEventDefinition escalationRef="Esc"/></startEvent>'
        + script("look", "seen = late")
        + '<endEvent id="he"/>'
        + flow("hs", "look")
        + flow("look", "he")
        + "</subProcess>"
    )
    roots = carrying("escalation", "Esc", 'escalationCode="LATE"', None, "late")
    outcome = engine.start(write(tmp_path, process, roots)).run()
    assert outcome.state == "completed"
    assert outcome.variables["went_on"] is True
    assert "late" in outcome.variables and outcome.variables["seen"] is None


def test_an_error_from_a_called_process_carries_its_payload_to_the_call_activity_boundary(
    tmp_path: Path, engine: Engine
) -> None:
    path = tmp_path / "called.bpmn"
    path.write_text(
        f"""{HEADER}
        <process id="p" isExecutable="true"><startEvent id="s"/>
          <callActivity id="call" calledElement="child"/>
          <boundaryEvent id="caught" attachedToRef="call"><errorEventDefinition errorRef="Err"/>
          </boundaryEvent><endEvent id="e1"/><endEvent id="e2"/>
          {flow("s", "call")}{flow("call", "e1")}{flow("caught", "e2")}
        </process>
        <process id="child" isExecutable="true"><startEvent id="cs"/>
          {script("count", "left = 0")}
          <endEvent id="ce"><errorEventDefinition errorRef="Err"/></endEvent>
          {flow("cs", "count")}{flow("count", "ce")}
        </process>
        {carrying("error", "Err", 'errorCode="EMPTY"', "{'left': left}", "detail")}
        </definitions>"""
    )
    outcome = engine.start(path, "p").run()
    assert outcome.state == "completed"
    assert outcome.variables["detail"] == {"left": 0}


def test_a_payload_expression_that_fails_is_an_incident_at_the_throw_event(
    tmp_path: Path, engine: Engine
) -> None:
    process = (
        '<startEvent id="s"/><intermediateThrowEvent id="throw">'
        '<signalEventDefinition signalRef="Sig"/></intermediateThrowEvent><endEvent id="e"/>'
        + flow("s", "throw")
        + flow("throw", "e")
    )
    roots = carrying("signal", "Sig", 'name="go"', "missing + 1", "result")
    outcome = engine.start(write(tmp_path, process, roots)).run()
    assert outcome.state == "failed"
    assert "payload of 'Sig'" in outcome.incident and "missing" in outcome.incident
