"""Nothing silently ignored: what would change how a diagram runs and that the engine does
not run is refused before the first step by `bpmn run` and by `bpmn validate`'s executable
rule, with the file, line and element (docs/coverage.md lists every decision)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError, ServiceTaskContext
from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Severity
from tests.postgresql_server import scratch_db
from tests.runtime.conftest import Bpmn, flow

SPIFF_NS = "http://spiffworkflow.org/bpmn/schema/1.0/core"


def around(element: str, element_id: str = "T") -> str:
    return (
        '<startEvent id="S"/>'
        + element
        + '<endEvent id="E"/>'
        + flow("S", element_id)
        + flow(element_id, "E")
    )


REFUSED = {
    "business calendar": (
        '<intermediateCatchEvent id="T"><timerEventDefinition xmlns:activiti='
        '"http://activiti.org/bpmn" activiti:businessCalendarName="custom"><timeDuration>PT1H'
        "</timeDuration></timerEventDefinition></intermediateCatchEvent>",
        "businessCalendarName 'custom'",
    ),
    "auto-stored javascript variables": (
        '<scriptTask id="T" scriptFormat="javascript" xmlns:flowable="http://flowable.org/bpmn"'
        ' flowable:autoStoreVariables="true"><script>var x = 1;</script></scriptTask>',
        'autoStoreVariables="true"',
    ),
    # a message throw implemented as a service task: its engine calls the implementation
    # instead of sending the message (it was sent, and the implementation never called)
    "camunda class on a message throw": (
        '<intermediateThrowEvent id="T" name="notify"><messageEventDefinition'
        ' camunda:class="org.example.Notify"/></intermediateThrowEvent>',
        "a message intermediateThrowEvent implemented by camunda:class",
    ),
    "camunda external message throw": (
        '<intermediateThrowEvent id="T" name="notify"><messageEventDefinition'
        ' camunda:type="external" camunda:topic="notify"/></intermediateThrowEvent>',
        "implemented by camunda:type",
    ),
    "zeebe job on a message throw": (
        '<intermediateThrowEvent id="T" name="notify"><extensionElements><zeebe:taskDefinition'
        ' type="notify"/></extensionElements><messageEventDefinition/></intermediateThrowEvent>',
        "implemented by zeebe:taskDefinition",
    ),
    "script resource": (
        '<scriptTask id="T" scriptFormat="python" camunda:resource="classpath://calc.py"/>',
        "script resource 'classpath://calc.py'",
    ),
    "start quantity": ('<task id="T" startQuantity="2"/>', "startQuantity='2'"),
    "completion quantity": ('<task id="T" completionQuantity="3"/>', "completionQuantity='3'"),
    "camunda input mapping on a catch event": (
        '<intermediateCatchEvent id="T"><extensionElements><camunda:inputOutput>'
        '<camunda:inputParameter name="a">1</camunda:inputParameter></camunda:inputOutput>'
        "</extensionElements><timerEventDefinition><timeDuration>PT1S</timeDuration>"
        "</timerEventDefinition></intermediateCatchEvent>",
        "input mappings on an intermediate catch event are not run yet",
    ),
    "zeebe mapping on a gateway": (
        '<exclusiveGateway id="T"><extensionElements><zeebe:ioMapping>'
        '<zeebe:output source="=a" target="b"/></zeebe:ioMapping>'
        "</extensionElements></exclusiveGateway>",
        "input/output mappings are not run on gateways",
    ),
    "data association on an event": (
        '<dataObject id="doc"/><dataObjectReference id="D" dataObjectRef="doc"/>'
        '<intermediateThrowEvent id="T"><dataInputAssociation id="A"><sourceRef>D</sourceRef>'
        "<targetRef>D</targetRef></dataInputAssociation></intermediateThrowEvent>",
        "dataInputAssociation on intermediateThrowEvent: a none event carries no data",
    ),
}


# refused until listeners ran (issue 13 item 6): each now runs, a handler called by its name
NOW_RUN = {
    "execution listener": (
        '<task id="T"><extensionElements><camunda:executionListener event="start"'
        ' class="org.example.Audit"/></extensionElements></task>',
        "Audit",
        "start",
    ),
    "task listener": (
        '<userTask id="T"><extensionElements><camunda:taskListener event="create"'
        ' class="org.example.Assign"/></extensionElements></userTask>',
        "Assign",
        "create",
    ),
    "zeebe execution listeners": (
        '<task id="T"><extensionElements><zeebe:executionListeners><zeebe:executionListener'
        ' eventType="start" type="audit"/></zeebe:executionListeners></extensionElements></task>',
        "audit",
        "start",
    ),
    "spiff pre-script": (
        f'<task id="T"><extensionElements><spiffworkflow:preScript xmlns:spiffworkflow="{SPIFF_NS}"'
        ">ran = 'pre'</spiffworkflow:preScript></extensionElements></task>",
        None,
        "pre",
    ),
}


@pytest.mark.parametrize("case", sorted(NOW_RUN))
def test_listeners_once_refused_now_run_and_validate_accepts_them(bpmn: Bpmn, case: str) -> None:
    element, handler_name, ran = NOW_RUN[case]
    path = bpmn(around(element))
    called: list[str] = []

    def handler(job: ServiceTaskContext) -> dict:
        called.append(job.element_id)
        return {"ran": job.event}

    handlers = {handler_name: handler} if handler_name else {}
    with Engine(scratch_db(), handlers=handlers) as engine:
        instance = engine.start(path)
        instance.run()
        assert instance.variables == {"ran": ran}
    assert called == (["T"] if handler_name else [])
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    assert [f for f in findings if f.severity == Severity.ERROR] == []


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_bpmn_run_refuses_it_before_the_first_step(bpmn: Bpmn, case: str) -> None:
    element, reason = REFUSED[case]
    path = bpmn(around(element))
    with Engine(scratch_db()) as engine:
        with pytest.raises(LoadError) as error:
            engine.start(path)
        assert engine.instances() == []
    assert reason in error.value.message
    assert error.value.file == str(path) and error.value.line and error.value.element_id


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_bpmn_validate_refuses_it_too(bpmn: Bpmn, case: str) -> None:
    element, reason = REFUSED[case]
    findings = [f for f in validate([bpmn(around(element))]).findings if f.rule == "executable"]
    errors = [f for f in findings if f.severity == Severity.ERROR]
    assert [f for f in errors if reason in f.message], findings
    assert all(f.line for f in errors)


def test_a_retry_cycle_on_a_task_without_a_handler_is_a_warning_at_start_and_in_validate(
    bpmn: Bpmn,
) -> None:
    """Only a handler's failure is retried: a user task's retry cycle changes nothing."""
    task = (
        '<userTask id="T"><extensionElements><camunda:failedJobRetryTimeCycle>R3/PT5M'
        "</camunda:failedJobRetryTimeCycle></extensionElements></userTask>"
    )
    path = bpmn(around(task))
    with Engine(scratch_db()) as engine:
        instance = engine.start(path)
        warnings = [e.data["message"] for e in instance.history() if e.event == "warning"]
    assert any("failedJobRetryTimeCycle is not used" in w for w in warnings)
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    said = [f.severity for f in findings if "failedJobRetryTimeCycle" in f.message]
    assert said == [Severity.WARNING]


def test_a_handler_receives_the_zeebe_task_headers(bpmn: Bpmn) -> None:
    task = (
        '<serviceTask id="T"><extensionElements><zeebe:taskDefinition type="mail"/>'
        '<zeebe:taskHeaders><zeebe:header key="template" value="welcome"/>'
        "</zeebe:taskHeaders></extensionElements></serviceTask>"
    )
    seen: list[dict[str, str]] = []

    def mail(job: ServiceTaskContext) -> dict:
        seen.append(job.headers)
        return {}

    with Engine(scratch_db(), handlers={"mail": mail}) as engine:
        assert engine.start(bpmn(around(task))).run().state == "completed"
    assert seen == [{"template": "welcome"}]


def test_a_bpmn_io_quantity_of_one_runs(bpmn: Bpmn, tmp_path: Path) -> None:
    path = bpmn(around('<task id="T" startQuantity="1" completionQuantity="1"/>'))
    with Engine(scratch_db()) as engine:
        assert engine.start(path).run().state == "completed"


@pytest.mark.parametrize("script_format", ["groovy", "http://www.java.com/java", "mvel"])
def test_a_jvm_script_is_refused_naming_the_language_and_the_way_on(
    bpmn: Bpmn, script_format: str
) -> None:
    task = f'<scriptTask id="T" scriptFormat="{script_format}"><script>x = 1</script></scriptTask>'
    path = bpmn(around(task))
    with Engine(scratch_db()) as engine, pytest.raises(LoadError) as refused:
        engine.start(path)
    assert refused.value.element_id == "T" and refused.value.line
    assert f"script format {script_format!r} is a JVM language" in refused.value.message
    assert "Python or JavaScript" in refused.value.message and "--handlers" in refused.value.message
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    assert [f.element for f in findings if "is a JVM language" in f.message] == ["T"]


def test_a_message_end_event_implemented_by_an_expression_is_refused(bpmn: Bpmn) -> None:
    # given: Activiti's (and Camunda's) message end event with an implementation
    path = bpmn(
        '<startEvent id="S"/>'
        + flow("S", "E")
        + '<endEvent id="E" name="done"><messageEventDefinition xmlns:activiti='
        '"http://activiti.org/bpmn" activiti:expression="${notifier.send(execution)}"/>'
        "</endEvent>"
    )
    with Engine(scratch_db()) as engine, pytest.raises(LoadError) as error:
        engine.start(path)
    assert error.value.element_id == "E"
    assert "a message endEvent implemented by activiti:expression" in error.value.message
