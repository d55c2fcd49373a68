"""Diagrams written for bpmn-engine (paed01, Node.js) and Camunda 7's JavaScript `execution`
API: a script ends by calling `next(err, value)`, writes `environment.variables` (or
`environment.output`), reads `content`; `${environment.variables.x}` and `${content.output}`
in expressions; `${environment.services.fn}` as a service task's implementation, served by a
handler named fn; `execution`'s getters, typed values, locals and removals; what cannot run
(a script calling a service, Camunda's Java API) says so by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from xml.sax.saxutils import escape

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.expressions import v8
from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Severity
from tests.runtime.conftest import Bpmn, flow

needs_js = pytest.mark.skipif(not v8.available(), reason="the js extra is not installed")


def script(task_id: str, code: str, attrs: str = "", inner: str = "") -> str:
    """A bpmn-engine style script task (`scriptFormat="Javascript"`, as its docs write it)."""
    return (
        f'<scriptTask id="{task_id}" name="The {task_id}" scriptFormat="Javascript"{attrs}>'
        f"{inner}<script>{escape(code)}</script></scriptTask>"
    )


def js_flow(source: str, target: str, condition: str, language: str = "JavaScript") -> str:
    return (
        f'<sequenceFlow id="{source}_{target}" sourceRef="{source}" targetRef="{target}">'
        f'<conditionExpression xsi:type="tFormalExpression" language="{language}">'
        f"{escape(condition)}</conditionExpression></sequenceFlow>"
    )


def one_task(task: str) -> str:
    return '<startEvent id="S"/>' + task + '<endEvent id="E"/>' + flow("S", "T") + flow("T", "E")


def outcome_of(engine: Engine, path: Any, **variables: Any) -> Any:
    return engine.start(path, variables=variables).run()


# --- bpmn-engine's script API -----------------------------------------------------------


@needs_js
def test_next_ends_the_script_and_environment_variables_are_process_variables(
    bpmn: Bpmn, engine: Engine
) -> None:
    code = (
        "environment.variables.total = environment.variables.price * 2;\n"
        "this.environment.variables.seen = true;\n"
        "next();"
    )
    outcome = outcome_of(engine, bpmn(one_task(script("T", code))), price=21)
    assert outcome.state == "completed"
    assert (outcome.variables["total"], outcome.variables["seen"]) == (42, True)


@needs_js
def test_environment_output_is_where_results_go(bpmn: Bpmn, engine: Engine) -> None:
    code = (
        "const taken = environment.output.taken = environment.output.taken || [];\n"
        "taken.push(content.id);\n"
        "next();"
    )
    body = (
        '<startEvent id="S"/>'
        + script("A", code)
        + script("B", code)
        + '<endEvent id="E"/>'
        + flow("S", "A")
        + flow("A", "B")
        + flow("B", "E")
    )
    outcome = outcome_of(engine, bpmn(body))
    assert outcome.state == "completed"
    assert outcome.variables["taken"] == ["A", "B"]


@needs_js
def test_next_with_an_error_is_an_incident_with_its_message(bpmn: Bpmn, engine: Engine) -> None:
    code = "if (environment.variables.amount < 0) return_error();\nfunction return_error() {\n"
    code += "  next(new Error('negative amount'));\n}"
    outcome = outcome_of(engine, bpmn(one_task(script("T", code))), amount=-1)
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("T: ")
    assert "called next() with an error: negative amount" in outcome.incident


@needs_js
def test_a_script_that_takes_next_and_never_calls_it_is_an_incident(
    bpmn: Bpmn, engine: Engine
) -> None:
    code = "const done = next;\nif (environment.variables.ready) done();"
    outcome = outcome_of(engine, bpmn(one_task(script("T", code))), ready=False)
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert "ended without calling next()" in outcome.incident


@needs_js
def test_next_called_from_a_promise_job(bpmn: Bpmn, engine: Engine) -> None:
    code = (
        "Promise.resolve(environment.variables.n)\n"
        "  .then((n) => { environment.variables.n = n + 1; next(); })\n"
        "  .catch(next);"
    )
    outcome = outcome_of(engine, bpmn(one_task(script("T", code))), n=1)
    assert (outcome.state, outcome.variables["n"]) == ("completed", 2)


@needs_js
@pytest.mark.parametrize(
    "code",
    [
        "next(null, {sum: environment.variables.a + environment.variables.b});\n'ignored'",
        "Promise.resolve(environment.variables.a)\n"
        "  .then((a) => next(null, {sum: a + environment.variables.b}));",
    ],
)
def test_the_value_given_to_next_is_the_result_variable(
    bpmn: Bpmn, engine: Engine, code: str
) -> None:
    task = script("T", code, ' camunda:resultVariable="result"')
    outcome = outcome_of(engine, bpmn(one_task(task)), a=1, b=2)
    assert (outcome.state, outcome.variables["result"]) == ("completed", {"sum": 3})


@needs_js
def test_content_output_in_an_output_mapping_and_in_a_condition(bpmn: Bpmn, engine: Engine) -> None:
    mapping = (
        "<extensionElements><camunda:inputOutput>"
        '<camunda:outputParameter name="status">${content.output.status}</camunda:outputParameter>'
        "</camunda:inputOutput></extensionElements>"
    )
    body = (
        '<startEvent id="S"/>'
        + script("T", "next(null, {status: 'ok'});", inner=mapping)
        + '<endEvent id="Ok"/><endEvent id="Other"/>'
        + flow("S", "T")
        + flow("T", "Ok", condition="${content.output.status == 'ok'}")
        + flow("T", "Other", condition="${content.output.status != 'ok'}")
    )
    instance = engine.start(bpmn(body))
    outcome = instance.run()
    assert (outcome.state, outcome.variables) == ("completed", {"status": "ok"})
    assert "Ok" in [e.element for e in instance.history() if e.event == "element.completed"]


@needs_js
def test_content_tells_the_element(bpmn: Bpmn, engine: Engine) -> None:
    code = (
        "environment.variables.seen = [content.id, content.type, this.id, this.name,\n"
        "  typeof content.executionId, environment.settings];\n"
        "next();"
    )
    outcome = outcome_of(engine, bpmn(one_task(script("T", code))))
    assert outcome.variables["seen"] == ["T", "bpmn:ScriptTask", "T", "The T", "string", {}]


@needs_js
def test_deleting_from_environment_variables_removes_the_variable(
    bpmn: Bpmn, engine: Engine
) -> None:
    code = "delete environment.variables.secret;\nnext();"
    outcome = outcome_of(engine, bpmn(one_task(script("T", code))), secret="x", kept=1)
    assert outcome.state == "completed"
    assert outcome.variables == {"kept": 1}


@needs_js
def test_variables_of_the_same_names_hide_bpmn_engine_s(bpmn: Bpmn, engine: Engine) -> None:
    code = "var environment = 'mine';\nexecution.setVariable('seen', [content, environment]);"
    outcome = outcome_of(engine, bpmn(one_task(script("T", code))), content="a variable")
    assert (outcome.state, outcome.variables["seen"]) == ("completed", ["a variable", "mine"])


@needs_js
def test_a_bpmn_engine_condition_takes_a_flow_on_a_truthy_value(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        '<startEvent id="S"/>'
        + script(
            "Loop",
            "environment.variables.turns = (environment.variables.turns || 0) + 1;"
            "\nif (environment.variables.turns >= 3) environment.variables.stop = 'yes';"
            "\nnext();",
        )
        + '<exclusiveGateway id="G" default="G_E"/><endEvent id="E"/>'
        + flow("S", "Loop")
        + flow("Loop", "G")
        + js_flow("G", "Loop", "!environment.variables.stop")
        + flow("G", "E", "G_E")
    )
    outcome = outcome_of(engine, bpmn(body))
    assert (outcome.state, outcome.variables["turns"]) == ("completed", 3)


@needs_js
def test_a_condition_that_calls_next_decides_by_its_value(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        '<startEvent id="S"/><exclusiveGateway id="G"/><endEvent id="Big"/><endEvent id="Small"/>'
        + flow("S", "G")
        + js_flow("G", "Big", "next(null, environment.variables.amount > 10 && 'big');", "js")
        + js_flow("G", "Small", "next(null, environment.variables.amount <= 10);", "js")
    )
    instance = engine.start(bpmn(body), variables={"amount": 50})
    assert instance.run().state == "completed"
    ended = [e.element for e in instance.history() if e.event == "element.completed"]
    assert "Big" in ended and "Small" not in ended


@needs_js
def test_a_camunda_condition_still_must_be_a_boolean(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        '<startEvent id="S"/><exclusiveGateway id="G"/><endEvent id="E"/>'
        + flow("S", "G")
        + js_flow("G", "E", "amount", "javascript")
    )
    outcome = outcome_of(engine, bpmn(body), amount=5)
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert "must be a boolean, not 5" in outcome.incident


@needs_js
def test_a_script_calling_a_service_is_refused_before_the_first_step(
    bpmn: Bpmn, engine: Engine
) -> None:
    code = "environment.services.get('https://example.com').then((r) => next(null, r));"
    path = bpmn(one_task(script("T", code)))
    with pytest.raises(LoadError) as error:
        engine.start(path)
    assert engine.instances() == []
    assert error.value.element_id == "T"
    assert "environment.services.get" in error.value.message
    assert "--handlers function named get" in error.value.message
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    errors = [f for f in findings if f.severity == Severity.ERROR]
    assert [(f.element, "environment.services.get" in f.message) for f in errors] == [("T", True)]


# --- bpmn-engine's expressions and services ---------------------------------------------


def test_environment_variables_in_a_juel_condition(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        '<startEvent id="S"/><exclusiveGateway id="G" default="G_No"/>'
        '<endEvent id="Yes"/><endEvent id="No"/>'
        + flow("S", "G")
        + flow("G", "Yes", condition="${environment.variables.input[-1] > 2}")
        + flow("G", "No", "G_No")
    )
    path = bpmn(body)
    yes = engine.start(path, variables={"input": [1, 5]})
    no = engine.start(path, variables={"input": [5, 1]})
    for instance, end in ((yes, "Yes"), (no, "No")):
        assert instance.run().state == "completed"
        assert end in [e.element for e in instance.history() if e.event == "element.completed"]


def test_an_unset_environment_variable_is_null(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        '<startEvent id="S"/><exclusiveGateway id="G" default="G_No"/>'
        '<endEvent id="Yes"/><endEvent id="No"/>'
        + flow("S", "G")
        + flow("G", "Yes", condition="${environment.output.approved}")
        + flow("G", "No", "G_No")
    )
    instance = engine.start(bpmn(body))
    assert instance.run().state == "completed"
    assert "No" in [e.element for e in instance.history() if e.event == "element.completed"]


@pytest.mark.parametrize(
    "attrs",
    [
        'implementation="${environment.services.charge}"',
        'camunda:expression="${environment.services.charge()}"',
    ],
)
def test_a_service_implementation_names_its_handler(
    bpmn: Bpmn, make_engine: Callable[..., Engine], each_store: str, attrs: str
) -> None:
    engine = make_engine(handlers={"charge": lambda call: {"charged": call.element_id}})
    outcome = outcome_of(engine, bpmn(one_task(f'<serviceTask id="T" {attrs}/>')))
    assert (outcome.state, outcome.variables) == ("completed", {"charged": "T"})


def test_without_the_handler_the_task_waits_for_it_by_name(bpmn: Bpmn, engine: Engine) -> None:
    task = '<serviceTask id="T" implementation="${environment.services.charge}"/>'
    instance = engine.start(bpmn(one_task(task)))
    assert instance.run().state == "waiting"
    [waiting] = [e for e in instance.history() if e.event == "element.waiting"]
    assert waiting.data["handlers"][0] == "charge"


def test_a_service_s_result_is_content_output(
    bpmn: Bpmn, make_engine: Callable[..., Engine], each_store: str
) -> None:
    task = (
        '<serviceTask id="T" implementation="${environment.services.check}">'
        "<extensionElements><camunda:inputOutput>"
        '<camunda:outputParameter name="code">${content.output.statusCode}'
        "</camunda:outputParameter></camunda:inputOutput></extensionElements></serviceTask>"
    )
    engine = make_engine(handlers={"check": lambda call: {"statusCode": 200, "body": "..."}})
    outcome = outcome_of(engine, bpmn(one_task(task)))
    assert (outcome.state, outcome.variables) == ("completed", {"code": 200})


# --- Camunda 7's execution API ----------------------------------------------------------


@needs_js
def test_execution_tells_where_it_runs(bpmn: Bpmn, engine: Engine) -> None:
    code = (
        "execution.setVariable('facts', [execution.getProcessInstanceId(),\n"
        "  execution.getActivityId(), execution.getCurrentActivityId(),\n"
        "  execution.getCurrentActivityName(), execution.getProcessDefinitionId(),\n"
        "  execution.getBusinessKey(), execution.getTenantId(), execution.getEventName()]);"
    )
    task = f'<scriptTask id="T" name="Sum up" scriptFormat="javascript"><script>{code}</script>'
    instance = engine.start(bpmn(one_task(task + "</scriptTask>")))
    outcome = instance.run()
    assert outcome.state == "completed"
    facts = outcome.variables["facts"]
    assert facts[:4] == [instance.id, "T", "T", "Sum up"]
    assert facts[4].startswith("p:")
    assert facts[5:] == [None, None, None]


@needs_js
def test_typed_values_names_and_removal(bpmn: Bpmn, engine: Engine) -> None:
    code = (
        "var typed = execution.getVariableTyped('n');\n"
        "execution.setVariable('seen', [typed.getValue(), typed.value, typed.getType().getName(),\n"
        "  execution.getVariableTyped('price').type.name,\n"
        "  execution.getVariableTyped('order').getType().getName(),\n"
        "  execution.getVariableTyped('missing'), execution.hasVariable('old'),\n"
        "  execution.getVariableNames().sort(), Object.keys(execution.getVariables()).length]);\n"
        "execution.removeVariable('old');\n"
        "execution.setVariables({a: 1, b: 2});"
    )
    task = f'<scriptTask id="T" scriptFormat="javascript"><script>{escape(code)}</script>'
    outcome = outcome_of(
        engine, bpmn(one_task(task + "</scriptTask>")), n=7, price=2.5, order={"id": 1}, old=0
    )
    assert outcome.state == "completed"
    assert outcome.variables["seen"] == [
        7, 7, "integer", "double", "json", None, True, ["n", "old", "order", "price"], 4
    ]  # fmt: skip
    assert "old" not in outcome.variables
    assert (outcome.variables["a"], outcome.variables["b"]) == (1, 2)


@needs_js
def test_a_local_variable_is_seen_by_the_output_mappings(bpmn: Bpmn, engine: Engine) -> None:
    mapping = (
        "<extensionElements><camunda:inputOutput>"
        '<camunda:inputParameter name="rate">3</camunda:inputParameter>'
        '<camunda:outputParameter name="total">${scratch * 2}</camunda:outputParameter>'
        "</camunda:inputOutput></extensionElements>"
    )
    code = "execution.setVariableLocal('scratch', execution.getVariableLocal('rate') * 10);"
    task = (
        f'<scriptTask id="T" scriptFormat="javascript">{mapping}'
        f"<script>{escape(code)}</script></scriptTask>"
    )
    outcome = outcome_of(engine, bpmn(one_task(task)), price=1)
    assert (outcome.state, outcome.variables) == ("completed", {"price": 1, "total": 60})


@needs_js
def test_a_local_variable_stays_in_its_task(bpmn: Bpmn, engine: Engine) -> None:
    code = (
        "execution.setVariableLocal('scratch', 1);\n"
        "execution.setVariable('seen', [execution.getVariableLocal('price'),\n"
        "  execution.getVariable('scratch'), execution.getVariablesLocal()]);"
    )
    task = f'<scriptTask id="T" scriptFormat="javascript"><script>{escape(code)}</script>'
    outcome = outcome_of(engine, bpmn(one_task(task + "</scriptTask>")), price=1)
    assert outcome.state == "completed"
    assert outcome.variables == {"price": 1, "seen": [None, 1, {"scratch": 1}]}


@needs_js
def test_a_listener_knows_its_event(bpmn: Bpmn, engine: Engine) -> None:
    listener = (
        '<extensionElements><camunda:executionListener event="end">'
        '<camunda:script scriptFormat="javascript">'
        "execution.setVariable('heard', execution.getEventName())"
        "</camunda:script></camunda:executionListener></extensionElements>"
    )
    task = f'<task id="T">{listener}</task>'
    outcome = outcome_of(engine, bpmn(one_task(task)))
    assert (outcome.state, outcome.variables["heard"]) == ("completed", "end")


@needs_js
def test_camunda_s_java_api_is_a_clear_error_by_name(bpmn: Bpmn, engine: Engine) -> None:
    code = "execution.getProcessEngineServices().getRuntimeService()"
    task = f'<scriptTask id="T" scriptFormat="javascript"><script>{code}</script></scriptTask>'
    outcome = outcome_of(engine, bpmn(one_task(task)))
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert "execution.getProcessEngineServices() reaches Camunda's Java engine" in (
        outcome.incident
    )
