"""Execution and task listeners (Camunda 7 and Zeebe): what runs, in which order, in which
step, and what a failure does (docs/listeners.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import BpmnError, Engine, LoadError, ServiceTaskContext, UsageError
from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Severity
from tests.postgresql_server import scratch_db
from tests.runtime.conftest import Bpmn, MakeEngine, events_named, flow


def note(event: str, text: str) -> str:
    """A python script listener that appends `text` to the `log` variable (a list)."""
    return (
        f'<camunda:executionListener event="{event}"><camunda:script scriptFormat="python">'
        f"log = log + ['{text}']"
        "</camunda:script></camunda:executionListener>"
    )


def task_note(event: str, text: str) -> str:
    return (
        f'<camunda:taskListener event="{event}"><camunda:script scriptFormat="python">'
        f"log = log + ['{text}']</camunda:script></camunda:taskListener>"
    )


def ext(*listeners: str) -> str:
    return "<extensionElements>" + "".join(listeners) + "</extensionElements>"


def take_flow(source: str, target: str, text: str) -> str:
    return (
        f'<sequenceFlow id="{source}_{target}" sourceRef="{source}" targetRef="{target}">'
        + ext(note("take", text))
        + "</sequenceFlow>"
    )


def logging_process(bpmn: Bpmn) -> Path:
    """start -> user task T (input mapping, every listener) -> end; listeners everywhere."""
    return bpmn(
        ext(note("start", "process start"), note("end", "process end"))
        + f'<startEvent id="S">{ext(note("start", "S start"), note("end", "S end"))}</startEvent>'
        + '<userTask id="T"><extensionElements>'
        + '<camunda:inputOutput><camunda:inputParameter name="local">${7}</camunda:inputParameter>'
        + "</camunda:inputOutput>"
        + '<camunda:executionListener event="start"><camunda:script scriptFormat="python">'
        + "log = log + ['T start local=' + str(local)]</camunda:script>"
        + "</camunda:executionListener>"
        + note("end", "T end")
        + task_note("create", "T create")
        + task_note("complete", "T complete")
        + "</extensionElements></userTask>"
        + f'<endEvent id="E">{ext(note("start", "E start"), note("end", "E end"))}</endEvent>'
        + take_flow("S", "T", "take S-T")
        + take_flow("T", "E", "take T-E")
    )


ORDER_UNTIL_THE_TASK = [
    "process start",
    "S start",
    "S end",
    "take S-T",
    "T start local=7",
    "T create",
]
ORDER_AFTER_THE_TASK = ["T complete", "T end", "take T-E", "E start", "E end", "process end"]


def test_listeners_run_in_camunda_order_around_a_user_task(bpmn: Bpmn, engine: Engine) -> None:
    # given
    instance = engine.start(logging_process(bpmn), variables={"log": []})
    # when
    waiting = instance.run()
    # then
    assert waiting.state == "waiting"
    assert instance.variables["log"] == ORDER_UNTIL_THE_TASK
    # when
    instance.complete_task("T", {"ok": True})
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ORDER_UNTIL_THE_TASK + ORDER_AFTER_THE_TASK
    assert "local" not in outcome.variables  # the input-mapped local stays the task's


def test_a_complete_listener_runs_after_a_fresh_engine_reopens_the_instance(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    # given
    db = tmp_path / "listeners.db"
    path = logging_process(bpmn)
    with Engine(db) as first:
        instance_id = first.start(path, variables={"log": []}).run().instance
    # when
    with Engine(db) as second:
        reopened = second.instance(instance_id)
        reopened.complete_task("T", {"ok": True})
        outcome = reopened.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["log"] == ORDER_UNTIL_THE_TASK + ORDER_AFTER_THE_TASK


def test_a_complete_listener_sees_what_the_person_entered_and_may_correct_it(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given
    listener = (
        '<camunda:taskListener event="complete"><camunda:script scriptFormat="python">'
        "amount = min(amount, 100)</camunda:script></camunda:taskListener>"
    )
    path = bpmn(
        f'<startEvent id="S"/><userTask id="T">{ext(listener)}</userTask><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E")
    )
    instance = engine.start(path)
    instance.run()
    # when
    instance.complete_task("T", {"amount": 250})
    # then
    assert instance.run().variables == {"amount": 100}


def test_only_the_taken_flow_runs_its_take_listeners(bpmn: Bpmn, engine: Engine) -> None:
    # given
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="G" default="G_B"/>'
        '<endEvent id="A"/><endEvent id="B"/>'
        + flow("S", "G")
        + '<sequenceFlow id="G_A" sourceRef="G" targetRef="A">'
        + ext(note("take", "to A"))
        + '<conditionExpression xsi:type="tFormalExpression">go == "A"</conditionExpression>'
        + "</sequenceFlow>"
        + take_flow("G", "B", "to B")
    )
    # when
    outcome = engine.start(path, variables={"go": "A", "log": []}).run()
    # then
    assert outcome.variables["log"] == ["to A"]


def test_end_listeners_run_after_the_outgoing_conditions_are_chosen(
    bpmn: Bpmn, engine: Engine
) -> None:
    """As Camunda 7: the flows are chosen, then the end listeners run, then the take ones."""
    # given
    end = (
        '<camunda:executionListener event="end"><camunda:script scriptFormat="python">'
        'go = "B"</camunda:script></camunda:executionListener>'
    )
    path = bpmn(
        f'<startEvent id="S"/><exclusiveGateway id="G" default="G_B">{ext(end)}'
        '</exclusiveGateway><endEvent id="A"/><endEvent id="B"/>'
        + flow("S", "G")
        + flow("G", "A", "G_A", 'go == "A"')
        + flow("G", "B", "G_B")
    )
    # when
    outcome = engine.start(path, variables={"go": "A"}).run()
    # then
    assert outcome.end_event == "A"
    assert outcome.variables["go"] == "B"


def test_subprocess_listeners_bracket_its_inner_elements(bpmn: Bpmn, engine: Engine) -> None:
    # given
    path = bpmn(
        '<startEvent id="S"/>'
        f'<subProcess id="Sub">{ext(note("start", "Sub start"), note("end", "Sub end"))}'
        f'<startEvent id="IS"/><task id="IT">{ext(note("start", "IT start"))}</task>'
        '<endEvent id="IE"/>' + flow("IS", "IT") + flow("IT", "IE") + "</subProcess>"
        '<endEvent id="E"/>' + flow("S", "Sub") + flow("Sub", "E")
    )
    # when
    outcome = engine.start(path, variables={"log": []}).run()
    # then
    assert outcome.variables["log"] == ["Sub start", "IT start", "Sub end"]


def test_an_interrupted_subprocess_runs_its_end_listeners_before_the_boundary_event_runs_its(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: an error inside the subprocess, caught by its boundary event
    path = bpmn(
        '<startEvent id="S"/>'
        f'<subProcess id="Sub">{ext(note("start", "Sub start"), note("end", "Sub end"))}'
        '<startEvent id="IS"/><endEvent id="Fail"><errorEventDefinition/>'
        "</endEvent>" + flow("IS", "Fail") + "</subProcess>"
        '<boundaryEvent id="B" attachedToRef="Sub"><errorEventDefinition/>'
        f"{ext(note('start', 'B start'), note('end', 'B end'))}</boundaryEvent>"
        '<endEvent id="E"/><endEvent id="Caught"/>'
        + flow("S", "Sub")
        + flow("Sub", "E")
        + take_flow("B", "Caught", "take B-Caught")
    )
    # when
    outcome = engine.start(path, variables={"log": []}).run()
    # then
    assert outcome.end_event == "Caught"
    assert outcome.variables["log"] == [
        "Sub start",
        "Sub end",  # Camunda 7 runs end listeners of a cancelled activity too
        "B start",
        "B end",
        "take B-Caught",
    ]


def test_each_inner_instance_of_a_multi_instance_runs_the_listeners(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given
    path = bpmn(
        '<startEvent id="S"/><task id="T">'
        + ext(note("start", "start"), note("end", "end"))
        + '<multiInstanceLoopCharacteristics isSequential="true">'
        "<loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics></task>"
        '<endEvent id="E"/>' + flow("S", "T") + flow("T", "E")
    )
    # when
    outcome = engine.start(path, variables={"log": []}).run()
    # then
    assert outcome.variables["log"] == ["start", "end", "start", "end"]


def interrupted_task(bpmn: Bpmn, listener: str) -> Path:
    """A user task T in one branch, a terminate end event in the other."""
    return bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/>'
        f'<userTask id="T">{ext(listener)}</userTask><endEvent id="E"/>'
        '<endEvent id="Stop"><terminateEventDefinition/></endEvent>'
        + flow("S", "Fork")
        + flow("Fork", "T")
        + flow("Fork", "Stop")
        + flow("T", "E")
    )


def test_an_interrupted_task_runs_its_delete_then_its_camunda_end_listeners(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    # given: Zeebe's end listeners do not run for a terminated element
    zeebe_end = (
        "<zeebe:executionListeners>"
        '<zeebe:executionListener eventType="end" type="never"/></zeebe:executionListeners>'
    )
    path = interrupted_task(
        bpmn, task_note("delete", "T deleted") + note("end", "T end") + zeebe_end
    )
    called: list[str] = []
    engine = make_engine(handlers={"never": lambda job: called.append(job.element_id)})
    # when
    outcome = engine.start(path, variables={"log": []}).run()
    # then
    assert outcome.state == "completed"
    assert outcome.end_event == "Stop"
    assert outcome.variables["log"] == ["T deleted", "T end"]
    assert called == []


def test_a_delete_listener_runs_when_the_instance_is_cancelled(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    # given: a Zeebe canceling listener is the same moment
    listener = (
        '<zeebe:taskListeners><zeebe:taskListener eventType="canceling" type="withdraw"/>'
        "</zeebe:taskListeners>"
    )
    path = bpmn(
        f'<startEvent id="S"/><userTask id="T">{ext(listener)}</userTask><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E")
    )
    withdrawn: list[str] = []

    def withdraw(job: ServiceTaskContext) -> dict:
        withdrawn.append(job.element_id)
        return {"withdrawn": True}

    engine = make_engine(handlers={"withdraw": withdraw})
    instance = engine.start(path)
    instance.run()
    # when
    outcome = instance.cancel()
    # then
    assert outcome.state == "terminated"
    assert withdrawn == ["T"]
    assert engine.instance(instance.id).variables == {"withdrawn": True}


def test_cancel_runs_the_camunda_end_listeners_of_the_task_and_the_process(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given
    path = bpmn(
        ext(note("end", "process end"))
        + f'<startEvent id="S"/><userTask id="T">{ext(note("end", "T end"))}</userTask>'
        '<endEvent id="E"/>' + flow("S", "T") + flow("T", "E")
    )
    instance = engine.start(path, variables={"log": []})
    instance.run()
    # when
    outcome = instance.cancel()
    # then
    assert outcome.state == "terminated"
    assert engine.instance(instance.id).variables["log"] == ["T end", "process end"]


def test_a_failing_delete_listener_leaves_the_instance_as_it_was_when_cancelled(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given
    listener = (
        '<camunda:taskListener event="delete"><camunda:script scriptFormat="python">'
        "x = 1 / 0</camunda:script></camunda:taskListener>"
    )
    path = bpmn(
        f'<startEvent id="S"/><userTask id="T">{ext(listener)}</userTask><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E")
    )
    instance = engine.start(path)
    instance.run()
    # when
    with pytest.raises(UsageError) as error:
        instance.cancel()
    # then
    assert "was not cancelled: T: camunda:taskListener (delete" in str(error.value)
    assert "division by zero" in str(error.value)
    assert instance.outcome().state == "waiting"
    assert [t.element for t in engine.instance(instance.id).user_tasks()] == ["T"]


# --- expressions and handlers ---------------------------------------------------------------


def test_an_expression_listener_sets_variables_through_execution_and_task(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given
    listeners = (
        '<camunda:executionListener event="start" '
        "expression=\"${execution.setVariable('doubled', amount * 2)}\"/>"
        '<camunda:taskListener event="create" '
        "expression=\"${task.setVariable('seen', execution.getVariable('doubled') + 1)}\"/>"
    )
    path = bpmn(
        f'<startEvent id="S"/><userTask id="T">{ext(listeners)}</userTask><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E")
    )
    # when
    instance = engine.start(path, variables={"amount": 4})
    instance.run()
    # then
    assert instance.variables == {"amount": 4, "doubled": 8, "seen": 9}


def test_set_variable_in_a_condition_is_an_incident_naming_the_call(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: a condition that tries to change a variable
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="G" default="G_B"/>'
        '<endEvent id="A"/><endEvent id="B"/>'
        + flow("S", "G")
        + flow("G", "A", "G_A", "${execution.setVariable('x', 1)}")
        + flow("G", "B", "G_B")
    )
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "failed"
    assert "setVariable() changes variables" in (outcome.incident or "")


def test_class_and_delegate_expression_listeners_call_handlers_with_their_fields(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    # given
    calls: list[ServiceTaskContext] = []

    def Audit(job: ServiceTaskContext) -> dict:  # named as the Java class it stands for
        calls.append(job)
        return {"audited": job.event}

    def closer(job: ServiceTaskContext) -> None:
        calls.append(job)

    listeners = (
        '<camunda:executionListener event="start" class="org.example.Audit">'
        '<camunda:field name="level" stringValue="high"/>'
        '<camunda:field name="twice"><camunda:expression>${n * 2}</camunda:expression>'
        "</camunda:field></camunda:executionListener>"
        '<camunda:executionListener event="end" delegateExpression="${closer}"/>'
    )
    path = bpmn(
        f'<startEvent id="S"/><task id="T" name="Audited">{ext(listeners)}</task>'
        '<endEvent id="E"/>' + flow("S", "T") + flow("T", "E")
    )
    engine = make_engine(handlers={"Audit": Audit, "closer": closer})
    # when
    outcome = engine.start(path, variables={"n": 3}).run()
    # then
    assert outcome.variables == {"n": 3, "audited": "start"}
    assert [(c.event, c.element_id, c.element_name) for c in calls] == [
        ("start", "T", "Audited"),
        ("end", "T", "Audited"),
    ]
    assert calls[0].fields == {"level": "high", "twice": 6}
    assert calls[1].variables == {"n": 3, "audited": "start"}


def test_a_listener_without_a_handler_is_skipped_with_a_warning(bpmn: Bpmn, engine: Engine) -> None:
    # given
    listener = '<camunda:executionListener event="start" class="org.example.Missing"/>'
    path = bpmn(
        f'<startEvent id="S"/><task id="T">{ext(listener)}</task><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E")
    )
    # when
    instance = engine.start(path)
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    warnings = [e.data["message"] for e in events_named(instance, "warning")]
    assert any("no handler (looked for: Missing, org.example.Missing)" in w for w in warnings)


def test_zeebe_listeners_are_jobs_run_by_the_handler_of_their_type(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    # given
    seen: list[tuple[str | None, str]] = []

    def record(kind: str):
        def handler(job: ServiceTaskContext) -> dict:
            seen.append((job.event, kind))
            return {kind: True}

        return handler

    listeners = (
        "<zeebe:executionListeners>"
        '<zeebe:executionListener eventType="start" type="before"/>'
        '<zeebe:executionListener eventType="end" type="after"/>'
        "</zeebe:executionListeners>"
        "<zeebe:taskListeners>"
        '<zeebe:taskListener eventType="creating" type="creating"/>'
        '<zeebe:taskListener eventType="completing" type="completing"/>'
        "</zeebe:taskListeners>"
    )
    path = bpmn(
        f'<startEvent id="S"/><userTask id="T">{ext("<zeebe:userTask/>", listeners)}'
        '</userTask><endEvent id="E"/>' + flow("S", "T") + flow("T", "E")
    )
    handlers = {name: record(name) for name in ("before", "after", "creating", "completing")}
    engine = make_engine(handlers=handlers)
    instance = engine.start(path)
    instance.run()
    # when
    instance.complete_task("T")
    outcome = instance.run()
    # then
    assert seen == [
        ("start", "before"),
        ("create", "creating"),
        ("complete", "completing"),
        ("end", "after"),
    ]
    assert outcome.variables == dict.fromkeys(handlers, True)


# --- failures -------------------------------------------------------------------------------


def test_a_failing_listener_script_is_an_incident_and_its_step_writes_nothing(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: the first start listener writes, the second fails
    listeners = note("start", "written") + (
        '<camunda:executionListener event="start"><camunda:script scriptFormat="python">'
        "x = 1 / 0</camunda:script></camunda:executionListener>"
    )
    path = bpmn(
        f'<startEvent id="S"/><task id="T">{ext(listeners)}</task><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E")
    )
    # when
    outcome = engine.start(path, variables={"log": []}).run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident is not None and outcome.incident.startswith("T: ")
    assert "camunda:executionListener (start, line" in outcome.incident
    assert "division by zero" in outcome.incident
    assert outcome.variables == {"log": []}


def test_a_failing_take_listener_is_an_incident_at_its_source_naming_the_flow(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given
    listener = (
        '<camunda:executionListener event="take"><camunda:script scriptFormat="python">'
        "x = missing + 1</camunda:script></camunda:executionListener>"
    )
    path = bpmn(
        '<startEvent id="S"/><endEvent id="E"/>'
        f'<sequenceFlow id="F" sourceRef="S" targetRef="E">{ext(listener)}</sequenceFlow>'
    )
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "failed"
    assert (outcome.incident or "").startswith("S: sequence flow 'F': camunda:executionListener")
    assert "unknown variable 'missing'" in (outcome.incident or "")


def test_a_failing_process_end_listener_is_an_incident_at_the_end_event_and_resume_completes(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: the end listener needs a variable the instance lacks
    listener = (
        '<camunda:executionListener event="end"><camunda:script scriptFormat="python">'
        "summary = 'total ' + str(total)</camunda:script></camunda:executionListener>"
    )
    path = bpmn(ext(listener) + '<startEvent id="S"/><endEvent id="E"/>' + flow("S", "E"))
    instance = engine.start(path)
    # when
    failed = instance.run()
    # then
    assert failed.state == "failed"
    assert (failed.incident or "").startswith("E: process 'p': camunda:executionListener (end")
    # when
    instance.retry(variables={"total": 5})
    # then
    assert instance.run().variables == {"total": 5, "summary": "total 5"}


def test_a_handler_listener_that_raises_is_an_incident_and_resume_retries_it(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    # given
    attempts: list[int] = []

    def flaky(job: ServiceTaskContext) -> dict:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("audit service down")
        return {"audited": True}

    listener = '<camunda:executionListener event="end" delegateExpression="${flaky}"/>'
    path = bpmn(
        f'<startEvent id="S"/><task id="T">{ext(listener)}</task><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E")
    )
    engine = make_engine(handlers={"flaky": flaky})
    instance = engine.start(path)
    # when
    failed = instance.run()
    # then
    assert failed.state == "failed"
    assert "handler 'flaky' raised RuntimeError: audit service down" in (failed.incident or "")
    # when
    instance.retry()
    # then
    assert instance.run().variables == {"audited": True}


def test_a_bpmn_error_from_a_listener_handler_is_caught_by_the_error_boundary(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    # given
    def refuse(job: ServiceTaskContext) -> None:
        raise BpmnError("REFUSED", "not today")

    listener = '<camunda:executionListener event="start" class="refuse"/>'
    path = bpmn(
        f'<startEvent id="S"/><userTask id="T">{ext(listener)}</userTask>'
        '<boundaryEvent id="B" attachedToRef="T"><errorEventDefinition/></boundaryEvent>'
        '<endEvent id="E"/><endEvent id="Caught"/>'
        + flow("S", "T")
        + flow("T", "E")
        + flow("B", "Caught")
    )
    engine = make_engine(handlers={"refuse": refuse})
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "completed"
    assert outcome.end_event == "Caught"


def test_listener_scripts_obey_the_sandbox(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    # given: an import is refused before the first step, a runaway loop stops at the limit
    imports = (
        '<camunda:executionListener event="start"><camunda:script scriptFormat="python">'
        "import os</camunda:script></camunda:executionListener>"
    )
    loops = (
        '<camunda:executionListener event="start"><camunda:script scriptFormat="python">'
        "while True:\n    pass</camunda:script></camunda:executionListener>"
    )

    def around(listener: str) -> Path:
        return bpmn(
            f'<startEvent id="S"/><task id="T">{ext(listener)}</task><endEvent id="E"/>'
            + flow("S", "T")
            + flow("T", "E")
        )

    engine = make_engine()
    # when / then
    with pytest.raises(LoadError) as error:
        engine.start(around(imports))
    assert error.value.element_id == "T" and error.value.line
    assert "import" in error.value.message
    assert engine.instances() == []
    outcome = engine.start(around(loops)).run()
    assert outcome.state == "failed"
    assert "work limit" in (outcome.incident or "")


def test_a_javascript_listener_script_runs_in_v8(bpmn: Bpmn, engine: Engine) -> None:
    # given: a start listener in JavaScript, as Camunda 7 writes it
    listener = (
        '<camunda:executionListener event="start"><camunda:script scriptFormat="javascript">'
        "execution.setVariable('greeting', 'hi ' + execution.getVariable('name'));"
        "</camunda:script></camunda:executionListener>"
    )
    path = bpmn(
        f'<startEvent id="S"/><task id="T">{ext(listener)}</task><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E")
    )
    # when
    outcome = engine.start(path, variables={"name": "Ada"}).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["greeting"] == "hi Ada"


# --- what is still refused ------------------------------------------------------------------

REFUSED = {
    "assignment task listener": (
        '<userTask id="T"><extensionElements><camunda:taskListener event="assignment"'
        ' class="org.example.Assign"/></extensionElements></userTask>',
        "taskListener event='assignment': bpmn-engine never assigns a task",
    ),
    "task listener on a service task": (
        '<serviceTask id="T"><extensionElements><camunda:taskListener event="create"'
        ' class="A"/></extensionElements></serviceTask>',
        "task listeners belong on user tasks",
    ),
    "groovy listener script": (
        '<task id="T"><extensionElements><camunda:executionListener event="start">'
        '<camunda:script scriptFormat="groovy">x = 1</camunda:script>'
        "</camunda:executionListener></extensionElements></task>",
        "script format 'groovy' is a JVM language",
    ),
    "external listener script": (
        '<task id="T"><extensionElements><camunda:executionListener event="start">'
        '<camunda:script scriptFormat="python" resource="audit.py"/>'
        "</camunda:executionListener></extensionElements></task>",
        "script resource 'audit.py'",
    ),
    "update task listener": (
        '<userTask id="T"><extensionElements><camunda:taskListener event="update"'
        ' class="A"/></extensionElements></userTask>',
        "taskListener event='update': bpmn-engine never changes a task's properties",
    ),
    "timeout task listener": (
        '<userTask id="T"><extensionElements><camunda:taskListener event="timeout"'
        ' class="A"/></extensionElements></userTask>',
        "taskListener event='timeout': timeout task listeners",
    ),
    "zeebe assigning listener": (
        '<userTask id="T"><extensionElements><zeebe:taskListeners><zeebe:taskListener'
        ' eventType="assigning" type="a"/></zeebe:taskListeners></extensionElements>'
        "</userTask>",
        "eventType='assigning'",
    ),
    "zeebe job type expression": (
        '<task id="T"><extensionElements><zeebe:executionListeners><zeebe:executionListener'
        ' eventType="start" type="=kind"/></zeebe:executionListeners></extensionElements>'
        "</task>",
        "type='=kind'",
    ),
    "take on a task": (
        '<task id="T"><extensionElements><camunda:executionListener event="take"'
        ' class="A"/></extensionElements></task>',
        "only start and end can be listened for",
    ),
}


def around(element: str) -> str:
    return '<startEvent id="S"/>' + element + '<endEvent id="E"/>' + flow("S", "T") + flow("T", "E")


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_cannot_run_is_refused_by_run_and_by_validate(bpmn: Bpmn, case: str) -> None:
    # given
    element, reason = REFUSED[case]
    path = bpmn(around(element))
    # when
    with Engine(scratch_db()) as engine:
        with pytest.raises(LoadError) as error:
            engine.start(path)
        assert engine.instances() == []
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    # then
    assert reason in error.value.message
    assert error.value.file == str(path) and error.value.line and error.value.element_id == "T"
    errors = [f for f in findings if f.severity == Severity.ERROR]
    assert [f for f in errors if reason in f.message and f.line], findings


def test_validate_accepts_listeners_that_run(bpmn: Bpmn) -> None:
    # given
    path = logging_process(bpmn)
    # when
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    # then
    assert findings == []


def test_an_uncaught_error_that_ends_a_called_instance_runs_its_camunda_end_listeners(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: the child has process end listeners (Camunda 7 and Zeebe) and a waiting task
    # with an end listener; its error end event ends it, the call activity catches the error
    zeebe_end = (
        '<zeebe:executionListeners><zeebe:executionListener eventType="end" type="never"/>'
        "</zeebe:executionListeners>"
    )
    child = (
        ext(note("end", "child end"), zeebe_end)
        + '<startEvent id="cs"/><parallelGateway id="fork"/>'
        + f'<userTask id="W">{ext(note("end", "W end"))}</userTask>'
        + '<endEvent id="Fail"><errorEventDefinition errorRef="Err"/></endEvent>'
        + flow("cs", "fork")
        + flow("fork", "W")
        + flow("fork", "Fail")
    )
    parent = (
        '<startEvent id="S"/><callActivity id="Call" calledElement="child"/>'
        '<boundaryEvent id="Caught" attachedToRef="Call"><errorEventDefinition errorRef="Err"/>'
        '</boundaryEvent><endEvent id="Handled"/><endEvent id="E"/>'
        + flow("S", "Call")
        + flow("Call", "E")
        + flow("Caught", "Handled")
    )
    path = bpmn(
        parent,
        process='id="child" isExecutable="true">'
        + child
        + '</process>\n<error id="Err" errorCode="BROKEN"/>\n<process id="p" isExecutable="true"',
    )
    instance = engine.start(path, "p", variables={"log": []})
    # when
    outcome = instance.run()
    # then: the child ended by the error; the task's, then the process's Camunda end
    # listeners ran in the step that ended it (not the Zeebe one: it would be an incident)
    assert (outcome.state, outcome.end_event) == ("completed", "Handled")
    [called] = [engine.instance(i) for i in engine.family(instance.id)[1:]]
    assert called.state == "terminated"
    assert called.variables["log"] == ["W end", "child end"]
    ended = [e.event for e in called.history()]
    assert ended.index("error.propagated") < ended.index("instance.terminated")
