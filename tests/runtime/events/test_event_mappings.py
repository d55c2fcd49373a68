"""Camunda 7 (`camunda:inputOutput`) and Zeebe (`zeebe:ioMapping`) mappings and BPMN data
associations on events of every kind (docs/events.md, "Payload"): a throw event's inputs are
its locals (its listeners and payload see them; a Zeebe signal carries them), its data input
associations make what a signal, error or escalation carries; a catch event's outputs and
data output associations take what came with its trigger, setting only what they map; what
neither Camunda 7 nor Zeebe runs stays refused, by `bpmn run` and `bpmn validate` alike."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.runtime.clock import VirtualClock
from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Severity
from tests.postgresql_server import scratch_db
from tests.runtime.conftest import HEADER, Bpmn, flow


def camunda(*, inputs: str = "", outputs: str = "", listener: str = "") -> str:
    """`camunda:inputOutput` (parameters name=expression) and a start listener script."""
    params = "".join(
        f'<camunda:{kind}Parameter name="{name}">{value}</camunda:{kind}Parameter>'
        for kind, text in (("input", inputs), ("output", outputs))
        for name, value in (p.split("=", 1) for p in text.split(";") if p)
    )
    script = (
        '<camunda:executionListener event="start"><camunda:script scriptFormat="python">'
        f"{listener}</camunda:script></camunda:executionListener>"
        if listener
        else ""
    )
    mappings = f"<camunda:inputOutput>{params}</camunda:inputOutput>"
    return f"<extensionElements>{mappings}{script}</extensionElements>"


def zeebe(*, inputs: str = "", outputs: str = "") -> str:
    """`zeebe:ioMapping` (target=FEEL source pairs, `;`-separated)."""
    params = "".join(
        f'<zeebe:{kind} source={quoteattr("=" + source)} target="{target}"/>'
        for kind, text in (("input", inputs), ("output", outputs))
        for target, source in (p.split("=", 1) for p in text.split(";") if p)
    )
    return f"<extensionElements><zeebe:ioMapping>{params}</zeebe:ioMapping></extensionElements>"


def chain(*ids: str) -> str:
    return "".join(flow(a, b) for a, b in itertools.pairwise(ids))


# --- throw events: inputs are locals, outputs are set as the event completes ---------------


def test_a_none_throws_inputs_are_locals_its_listener_sees_and_its_outputs_set(
    bpmn: Bpmn, engine: Engine
) -> None:
    """As Camunda 7 runs a none intermediate throw event with an input/output mapping."""
    throw = (
        '<intermediateThrowEvent id="T">'
        + camunda(inputs="local=${n + 1}", outputs="out=${local * 10}", listener="seen = local")
        + "</intermediateThrowEvent>"
    )
    path = bpmn('<startEvent id="S"/>' + throw + '<endEvent id="E"/>' + chain("S", "T", "E"))
    outcome = engine.start(path, variables={"n": 1}).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"n": 1, "seen": 2, "out": 20}  # the local stays inside


def test_a_zeebe_none_start_events_output_mapping_sets_its_variable(
    bpmn: Bpmn, engine: Engine
) -> None:
    """As the MIWG C.9.0 diagram's start event (`documentReferenceId`), run as Zeebe does."""
    start = '<startEvent id="S">' + zeebe(outputs='ref="doc-" + string(n)') + "</startEvent>"
    path = bpmn(start + '<endEvent id="E"/>' + chain("S", "E"))
    outcome = engine.start(path, variables={"n": 7}).run()
    assert outcome.variables == {"n": 7, "ref": "doc-7"}


def test_a_zeebe_none_end_events_output_mapping_is_set_as_it_completes(
    bpmn: Bpmn, engine: Engine
) -> None:
    end = '<endEvent id="E">' + zeebe(outputs="total=a + b") + "</endEvent>"
    path = bpmn('<startEvent id="S"/>' + end + chain("S", "E"))
    assert engine.start(path, variables={"a": 2, "b": 3}).run().variables == {
        "a": 2,
        "b": 3,
        "total": 5,
    }


SIGNALLED = (
    '<startEvent id="S"/><parallelGateway id="fork"/>'
    '<intermediateCatchEvent id="wait"{catch_ext}><signalEventDefinition signalRef="go"/>'
    "</intermediateCatchEvent>"
    '<intermediateThrowEvent id="send">{throw_ext}<signalEventDefinition signalRef="go"/>'
    '</intermediateThrowEvent><endEvent id="E1"/><endEvent id="E2"/>'
    + flow("S", "fork")
    + flow("fork", "wait")
    + flow("fork", "send")
    + flow("wait", "E1")
    + flow("send", "E2")
)


def signalled(throw_ext: str, catch_ext: str = "") -> str:
    return SIGNALLED.replace("{throw_ext}", throw_ext).replace("{catch_ext}", catch_ext)


def test_a_zeebe_signal_throw_carries_its_input_mappings(bpmn: Bpmn, engine: Engine) -> None:
    """Zeebe broadcasts the signal event's local variables (its input mappings)."""
    path = bpmn(signalled(zeebe(inputs="amount=price * 2")))
    outcome = engine.start(path, variables={"price": 4}).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"price": 4, "amount": 8}


def test_a_camunda_signal_throws_inputs_stay_locals(bpmn: Bpmn, engine: Engine) -> None:
    """Camunda 7 sends no variables with a thrown signal: its input mappings are locals."""
    path = bpmn(signalled(camunda(inputs="amount=${price * 2}")))
    outcome = engine.start(path, variables={"price": 4}).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"price": 4}


# --- catch events: outputs over what came, and only what they map ---------------------------


def test_a_signal_catchs_output_mapping_takes_only_what_it_maps(bpmn: Bpmn, engine: Engine) -> None:
    catch = (
        '<intermediateCatchEvent id="C">'
        + zeebe(outputs="who=sender")
        + '<signalEventDefinition signalRef="go"/></intermediateCatchEvent>'
    )
    path = bpmn('<startEvent id="S"/>' + catch + '<endEvent id="E"/>' + chain("S", "C", "E"))
    instance = engine.start(path)
    assert instance.run().state == "waiting"
    engine.broadcast_signal("go", {"sender": "ops", "noise": 1}, current=instance)
    assert instance.run().variables == {"who": "ops"}  # `sender` and `noise` are not set


def test_a_timer_catchs_output_mapping_is_set_when_it_fires(bpmn: Bpmn, each_store: str) -> None:
    """As Camunda 7's timer catch with an output mapping; a timer brings nothing to read,
    so its data output association maps nothing (and is not refused)."""
    catch = (
        '<dataObject id="doc"/><dataObjectReference id="D" dataObjectRef="doc"/>'
        '<intermediateCatchEvent id="C">'
        + camunda(outputs="late=${true}")
        + '<dataOutput id="out"/><dataOutputAssociation id="A"><sourceRef>out</sourceRef>'
        "<targetRef>D</targetRef></dataOutputAssociation>"
        "<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>"
        "</intermediateCatchEvent>"
    )
    path = bpmn('<startEvent id="S"/>' + catch + '<endEvent id="E"/>' + chain("S", "C", "E"))
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with Engine(scratch_db(), clock=clock) as engine:
        outcome = engine.start(path).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"doc": None}  # the data association mapped nothing


def test_a_timer_catchs_output_mapping_sets_its_value(bpmn: Bpmn, each_store: str) -> None:
    catch = (
        '<intermediateCatchEvent id="C">'
        + camunda(outputs="late=${n + 1}")
        + "<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>"
        "</intermediateCatchEvent>"
    )
    path = bpmn('<startEvent id="S"/>' + catch + '<endEvent id="E"/>' + chain("S", "C", "E"))
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with Engine(scratch_db(), clock=clock) as engine:
        outcome = engine.start(path, variables={"n": 1}).run()
    assert outcome.variables == {"n": 1, "late": 2}


def test_a_timer_after_an_event_based_gateway_sets_its_output_mapping(
    bpmn: Bpmn, each_store: str
) -> None:
    """As Camunda 7's timer catch after an event-based gateway with an output mapping."""
    body = (
        '<startEvent id="S"/><eventBasedGateway id="G"/>'
        '<intermediateCatchEvent id="late">'
        + camunda(outputs="foo=bar")
        + "<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>"
        '</intermediateCatchEvent><intermediateCatchEvent id="msg">'
        '<messageEventDefinition messageRef="never"/></intermediateCatchEvent>'
        '<endEvent id="E1"/><endEvent id="E2"/>'
        + chain("S", "G", "late", "E1")
        + chain("G", "msg", "E2")
    )
    clock = VirtualClock(datetime(2026, 1, 1, tzinfo=UTC))
    with Engine(scratch_db(), clock=clock) as engine:
        outcome = engine.start(bpmn(body)).run()
    assert (outcome.end_event, outcome.variables) == ("E1", {"foo": "bar"})


def test_a_link_catchs_output_mapping_is_set_as_the_token_jumps_to_it(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="S"/><intermediateThrowEvent id="jump">'
        '<linkEventDefinition name="L"/></intermediateThrowEvent>'
        '<intermediateCatchEvent id="land">'
        + zeebe(outputs="landed=n + 1")
        + '<linkEventDefinition name="L"/></intermediateCatchEvent><endEvent id="E"/>'
        + chain("S", "jump")
        + chain("land", "E")
    )
    assert engine.start(bpmn(body), variables={"n": 1}).run().variables == {"n": 1, "landed": 2}


def test_a_cancel_boundarys_output_mapping_is_set_as_the_transaction_leaves_by_it(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<startEvent id="S"/><transaction id="tx"><startEvent id="ts"/>'
        '<endEvent id="fail"><cancelEventDefinition/></endEvent>'
        + flow("ts", "fail")
        + '</transaction><boundaryEvent id="cancelled" attachedToRef="tx">'
        + zeebe(outputs='outcome="cancelled " + order')
        + '<cancelEventDefinition/></boundaryEvent><endEvent id="E1"/><endEvent id="E2"/>'
        + chain("S", "tx", "E1")
        + chain("cancelled", "E2")
    )
    outcome = engine.start(bpmn(body), variables={"order": "A7"}).run()
    assert (outcome.end_event, outcome.variables["outcome"]) == ("E2", "cancelled A7")


def test_a_conditional_catchs_output_mapping_is_set_when_it_fires(
    bpmn: Bpmn, engine: Engine
) -> None:
    catch = (
        '<intermediateCatchEvent id="C">'
        + zeebe(outputs="seen=level")
        + '<conditionalEventDefinition><condition xsi:type="tFormalExpression">= level &gt; 2'
        "</condition></conditionalEventDefinition></intermediateCatchEvent>"
    )
    path = bpmn('<startEvent id="S"/>' + catch + '<endEvent id="E"/>' + chain("S", "C", "E"))
    outcome = engine.start(path, variables={"level": 3}).run()
    assert outcome.variables == {"level": 3, "seen": 3}


def error_in_sub(end_data: str, catch_data: str) -> str:
    """A subprocess whose end event throws `Err` (with `end_data` before its definition),
    caught by a boundary event (with `catch_data`)."""
    return (
        '<startEvent id="S"/><subProcess id="sub"><startEvent id="is"/>'
        f'<endEvent id="ie">{end_data}<errorEventDefinition errorRef="Err"/></endEvent>'
        + flow("is", "ie")
        + f'</subProcess><boundaryEvent id="B" attachedToRef="sub">{catch_data}'
        '<errorEventDefinition errorRef="Err"/></boundaryEvent>'
        '<endEvent id="E1"/><endEvent id="E2"/>'
        + flow("S", "sub")
        + flow("sub", "E1")
        + flow("B", "E2")
    )


def data_input(source: str) -> str:
    return (
        '<dataInput id="din"/><dataInputAssociation id="In">'
        f"<sourceRef>{source}</sourceRef><targetRef>din</targetRef></dataInputAssociation>"
    )


def data_output(target: str) -> str:
    return (
        '<dataOutput id="dout"/><dataOutputAssociation id="Out">'
        f"<sourceRef>dout</sourceRef><targetRef>{target}</targetRef></dataOutputAssociation>"
    )


def test_an_error_end_events_data_input_is_what_its_boundary_catch_maps(
    bpmn: Bpmn, engine: Engine
) -> None:
    """The error end event's data input association makes what the error carries; the
    boundary event's output mapping takes from it only what it maps."""
    body = '<dataObject id="problem"/>' + error_in_sub(
        data_input("problem"), zeebe(outputs="reason=why")
    )
    outcome = engine.start(bpmn(body), variables={"problem": {"why": "stock", "code": 5}}).run()
    assert outcome.end_event == "E2"
    assert outcome.variables == {"problem": {"why": "stock", "code": 5}, "reason": "stock"}


def test_an_error_boundarys_data_output_takes_what_the_error_carries(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<dataObject id="problem"/><dataObject id="got"/>'
        '<dataObjectReference id="gotRef" dataObjectRef="got"/>'
        + error_in_sub(data_input("problem"), data_output("gotRef"))
    )
    outcome = engine.start(bpmn(body), variables={"problem": {"why": "stock"}}).run()
    assert outcome.variables["got"] == {"why": "stock"}
    assert "why" not in outcome.variables  # the data output decides what is set


def test_a_signal_carries_its_data_input_to_the_catchs_data_output(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = '<dataObject id="order"/><dataObject id="got"/>' + signalled(
        data_input("order"), ">" + data_output("got")
    ).replace('id="wait">>', 'id="wait">')
    outcome = engine.start(bpmn(body), variables={"order": {"n": 3}}).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"order": {"n": 3}, "got": {"n": 3}}


def test_an_escalations_data_input_reaches_an_event_subprocess_starts_output_mapping(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<dataObject id="payload"/><startEvent id="S"/><intermediateThrowEvent id="T">'
        + data_input("payload")
        + '<escalationEventDefinition escalationRef="Up"/></intermediateThrowEvent>'
        '<endEvent id="E"/>'
        + chain("S", "T", "E")
        + '<subProcess id="handler" triggeredByEvent="true">'
        '<startEvent id="hs" isInterrupting="false">'
        + zeebe(outputs="level=severity")
        + '<escalationEventDefinition escalationRef="Up"/></startEvent><endEvent id="he"/>'
        + flow("hs", "he")
        + "</subProcess>"
    )
    outcome = engine.start(bpmn(body), variables={"payload": {"severity": 2, "x": 0}}).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"payload": {"severity": 2, "x": 0}, "level": 2}


def test_an_api_trigger_goes_through_the_catchs_output_mapping(bpmn: Bpmn, engine: Engine) -> None:
    catch = (
        '<intermediateCatchEvent id="C">'
        + zeebe(outputs='ok=answer = "yes"')
        + "</intermediateCatchEvent>"
    )
    path = bpmn('<startEvent id="S"/>' + catch + '<endEvent id="E"/>' + chain("S", "C", "E"))
    instance = engine.start(path)
    assert instance.run().state == "waiting"
    instance.trigger("C", {"answer": "yes", "noise": 1})
    assert instance.run().variables == {"ok": True}


def test_a_signal_start_of_a_waiting_instance_sets_its_output_mapping(
    bpmn: Bpmn, engine: Engine
) -> None:
    start = (
        '<startEvent id="S">'
        + zeebe(outputs="who=sender")
        + '<signalEventDefinition signalRef="go"/></startEvent>'
    )
    instance = engine.start(bpmn(start + '<endEvent id="E"/>' + chain("S", "E")))
    assert instance.run().state == "waiting"
    engine.broadcast_signal("go", {"sender": "ops", "noise": 1}, current=instance)
    assert instance.run().variables == {"who": "ops"}


def with_roots(tmp_path: Path, body: str, roots: str) -> Path:
    """A file with `body` as process `p` and `roots` (messages, signals) beside it."""
    path = tmp_path / "rooted.bpmn"
    path.write_text(
        f'{HEADER}<process id="p" isExecutable="true">{body}</process>{roots}</definitions>'
    )
    return path


def test_a_deployed_message_start_sets_only_what_its_output_mapping_maps(
    tmp_path: Path, engine: Engine
) -> None:
    start = (
        '<startEvent id="S">'
        + zeebe(outputs="order=id")
        + '<messageEventDefinition messageRef="M"/></startEvent>'
    )
    body = start + '<endEvent id="E"/>' + chain("S", "E")
    engine.deploy_processes(with_roots(tmp_path, body, '<message id="M" name="placed"/>'))
    [started] = engine.publish_message("placed", None, {"id": 42, "noise": 1})
    assert started.run().variables == {"order": 42}


def test_a_deployed_signal_starts_data_output_takes_the_signals_variables(
    tmp_path: Path, engine: Engine
) -> None:
    start = (
        '<dataObject id="got"/><startEvent id="S">'
        + data_output("got")
        + '<signalEventDefinition signalRef="go"/></startEvent>'
    )
    body = start + '<endEvent id="E"/>' + chain("S", "E")
    engine.deploy_processes(with_roots(tmp_path, body, '<signal id="go" name="go"/>'))
    [started] = engine.broadcast_signal("go", {"who": "ops"})
    assert started.run().variables == {"got": {"who": "ops"}}


def test_an_error_event_subprocess_starts_data_output_takes_what_the_error_carries(
    bpmn: Bpmn, engine: Engine
) -> None:
    body = (
        '<dataObject id="problem"/><dataObject id="got"/><startEvent id="S"/>'
        '<endEvent id="T">'
        + data_input("problem")
        + '<errorEventDefinition errorRef="Err"/></endEvent>'
        + flow("S", "T")
        + '<subProcess id="handler" triggeredByEvent="true"><startEvent id="hs">'
        + data_output("got")
        + '<errorEventDefinition errorRef="Err"/></startEvent><endEvent id="he"/>'
        + flow("hs", "he")
        + "</subProcess>"
    )
    outcome = engine.start(bpmn(body), variables={"problem": {"why": "late"}}).run()
    assert outcome.state == "completed"
    assert outcome.variables == {"problem": {"why": "late"}, "got": {"why": "late"}}


# --- what Camunda 7 and Zeebe do not run either: refused before the first step -------------

REFUSED = {
    "input mapping on a boundary event": (
        '<startEvent id="S"/><userTask id="U"/><boundaryEvent id="T" attachedToRef="U">'
        + camunda(inputs="a=${1}")
        + "<timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>"
        '</boundaryEvent><endEvent id="E"/><endEvent id="E2"/>'
        + chain("S", "U", "E")
        + flow("T", "E2"),
        "input mappings on a boundary event",
    ),
    "input mapping on a start event": (
        '<startEvent id="T">'
        + zeebe(inputs="a=1")
        + '</startEvent><endEvent id="E"/>'
        + flow("T", "E"),
        "input mappings on a start event",
    ),
    "input mapping on a catch event": (
        '<startEvent id="S"/><intermediateCatchEvent id="T">'
        + zeebe(inputs="a=1")
        + '<signalEventDefinition signalRef="go"/></intermediateCatchEvent><endEvent id="E"/>'
        + chain("S", "T", "E"),
        "input mappings on an intermediate catch event are not run yet",
    ),
    "output mapping on a compensation boundary event": (
        '<startEvent id="S"/><task id="U"/><boundaryEvent id="T" attachedToRef="U">'
        + zeebe(outputs="a=1")
        + '<compensateEventDefinition/></boundaryEvent><endEvent id="E"/>'
        + chain("S", "U", "E"),
        "output mappings on a compensation boundary event",
    ),
    "output mapping on an error end event": (
        '<startEvent id="S"/><endEvent id="T">'
        + zeebe(outputs="a=1")
        + '<errorEventDefinition errorRef="Err"/></endEvent>'
        + flow("S", "T"),
        "output mappings on an error end event",
    ),
    "data input on a terminate end event": (
        '<dataObject id="x"/><startEvent id="S"/><endEvent id="T">'
        + data_input("x")
        + "<terminateEventDefinition/></endEvent>"
        + flow("S", "T"),
        "a terminate event carries no data",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_no_engine_runs_is_refused_before_the_first_step(bpmn: Bpmn, case: str) -> None:
    body, reason = REFUSED[case]
    path = bpmn(body)
    with Engine(scratch_db()) as engine:
        with pytest.raises(LoadError) as error:
            engine.start(path)
        assert engine.instances() == []
    assert reason in error.value.message
    assert error.value.element_id in ("T", "In") and error.value.line  # the event, its data


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_bpmn_validate_refuses_it_too(bpmn: Bpmn, case: str) -> None:
    body, reason = REFUSED[case]
    findings = [f for f in validate([bpmn(body)]).findings if f.rule == "executable"]
    errors = [f for f in findings if f.severity == Severity.ERROR]
    assert [f for f in errors if reason in f.message and f.line], findings
