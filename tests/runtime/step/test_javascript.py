"""JavaScript in a running process, as Camunda 7 diagrams write it: gateway conditions with
`language="javascript"`, script tasks with `scriptFormat="javascript"` (variables set with
`execution.setVariable`, `camunda:resultVariable`), `camunda:script` mappings; runaway code is
an incident on its element; a syntax error or a missing engine is refused before the first
step, by `bpmn run`'s engine and by `bpmn validate` alike."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.expressions import _compile_expression, _compile_script, v8
from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Severity
from tests.postgresql_server import scratch_db
from tests.runtime.conftest import HEADER, Bpmn, events_named, flow


def js_flow(source: str, target: str, condition: str, language: str = "javascript") -> str:
    return (
        f'<sequenceFlow id="{source}_{target}" sourceRef="{source}" targetRef="{target}">'
        f'<conditionExpression xsi:type="tFormalExpression" language="{language}">'
        f"{escape(condition)}</conditionExpression></sequenceFlow>"
    )


def js_task(task_id: str, code: str, result: str | None = None, fmt: str = "javascript") -> str:
    attr = f' camunda:resultVariable="{result}"' if result else ""
    return (
        f'<scriptTask id="{task_id}" scriptFormat="{fmt}"{attr}>'
        f"<script>{escape(code)}</script></scriptTask>"
    )


def gateway(*flows: str) -> str:
    """S -> G -> Big | Small (tasks that record themselves) -> E."""
    return (
        '<startEvent id="S"/><exclusiveGateway id="G"/>'
        + js_task("Big", "execution.setVariable('took', 'Big')")
        + js_task("Small", "execution.setVariable('took', 'Small')")
        + '<endEvent id="E"/>'
        + flow("S", "G")
        + "".join(flows)
        + flow("Big", "E")
        + flow("Small", "E")
    )


def one_task(task: str) -> str:
    return '<startEvent id="S"/>' + task + '<endEvent id="E"/>' + flow("S", "T") + flow("T", "E")


@pytest.mark.parametrize("language", ["javascript", "JavaScript", "js", "ecmascript"])
def test_an_exclusive_gateway_decides_with_javascript(
    bpmn: Bpmn, engine: Engine, language: str
) -> None:
    path = bpmn(
        gateway(
            js_flow("G", "Big", "order.total > 1000 && order.items.length > 0", language),
            js_flow("G", "Small", "execution.getVariable('order').total <= 1000", language),
        )
    )
    big = engine.start(path, variables={"order": {"total": 1250, "items": ["lamp"]}}).run()
    small = engine.start(path, variables={"order": {"total": 10, "items": []}}).run()
    assert (big.state, big.variables["took"]) == ("completed", "Big")
    assert (small.state, small.variables["took"]) == ("completed", "Small")


def test_a_script_task_sets_variables(bpmn: Bpmn, engine: Engine) -> None:
    code = (
        "var sum = 0;\n"
        "for (var i = 0; i < items.length; i++) { sum += items[i].price; }\n"
        "execution.setVariable('sum', sum);\n"
        "execution.setVariable('labels', items.map(function (i) { return i.name; }));\n"
        "scratch = 'not stored';"
    )
    items = [{"name": "book", "price": 12.5}, {"name": "lamp", "price": 30}]
    outcome = engine.start(bpmn(one_task(js_task("T", code))), variables={"items": items}).run()
    assert outcome.state == "completed"
    assert outcome.variables["sum"] == 42.5
    assert outcome.variables["labels"] == ["book", "lamp"]
    assert "scratch" not in outcome.variables


def test_a_result_variable_takes_the_last_value_and_set_variables_are_kept(
    bpmn: Bpmn, engine: Engine
) -> None:
    code = "execution.setVariable('seen', true);\nvar doubled = n * 2;\ndoubled + 1"
    path = bpmn(one_task(js_task("T", code, result="answer")))
    outcome = engine.start(path, variables={"n": 20}).run()
    assert outcome.state == "completed"
    assert (outcome.variables["answer"], outcome.variables["seen"]) == (41, True)


def test_a_javascript_input_mapping(bpmn: Bpmn, engine: Engine) -> None:
    task = (
        '<scriptTask id="T" scriptFormat="javascript"><extensionElements><camunda:inputOutput>'
        '<camunda:inputParameter name="greeting"><camunda:script scriptFormat="javascript">'
        "'Hello, ' + name.toUpperCase()</camunda:script></camunda:inputParameter>"
        "</camunda:inputOutput></extensionElements>"
        "<script>execution.setVariable('said', greeting)</script></scriptTask>"
    )
    outcome = engine.start(bpmn(one_task(task)), variables={"name": "ada"}).run()
    assert outcome.state == "completed"
    assert outcome.variables["said"] == "Hello, ADA"


def test_a_loop_decided_by_javascript(bpmn: Bpmn, engine: Engine) -> None:
    body = (
        '<startEvent id="S"/>'
        + js_task("Count", "execution.setVariable('n', n + 1)")
        + '<exclusiveGateway id="G"/><endEvent id="E"/>'
        + flow("S", "Count")
        + flow("Count", "G")
        + js_flow("G", "Count", "n < 5")
        + js_flow("G", "E", "n >= 5")
    )
    outcome = engine.start(bpmn(body), variables={"n": 0}).run()
    assert (outcome.state, outcome.variables["n"]) == ("completed", 5)


@pytest.fixture
def short_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(v8, "TIME_LIMIT", 1.0)
    monkeypatch.setattr(v8, "GRACE", 2.0)


def test_a_runaway_loop_is_an_incident_on_its_task(
    bpmn: Bpmn, engine: Engine, short_limit: None
) -> None:
    instance = engine.start(bpmn(one_task(js_task("T", "while (true) {}"))))
    outcome = instance.run()
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("T: ")
    assert "evaluation exceeded the time limit of 1 seconds" in outcome.incident
    [incident] = events_named(instance, "incident.created")
    assert incident.element == "T"


def test_a_runaway_condition_is_an_incident_on_its_gateway(
    bpmn: Bpmn, engine: Engine, short_limit: None
) -> None:
    path = bpmn(gateway(js_flow("G", "Big", "while (true) {}"), js_flow("G", "Small", "true")))
    outcome = engine.start(path).run()
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("G: ")
    assert "time limit" in outcome.incident


def test_a_memory_bomb_is_an_incident(bpmn: Bpmn, engine: Engine) -> None:
    code = "var keep = []; for (;;) { keep.push(new Array(100000).fill(keep.length)); }"
    outcome = engine.start(bpmn(one_task(js_task("T", code)))).run()
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert "evaluation exceeded the memory limit of 64 MiB" in outcome.incident


def test_a_value_that_cannot_be_stored_is_an_incident_naming_it(bpmn: Bpmn, engine: Engine) -> None:
    code = "var a = {name: 'x'}; a.self = a; execution.setVariable('order', a)"
    outcome = engine.start(bpmn(one_task(js_task("T", code)))).run()
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert 'variable "order" refers to itself' in outcome.incident


def test_a_thrown_error_is_an_incident_with_its_message(bpmn: Bpmn, engine: Engine) -> None:
    code = "if (amount < 0) {\n  throw new Error('negative amount: ' + amount);\n}"
    outcome = engine.start(bpmn(one_task(js_task("T", code))), variables={"amount": -5}).run()
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert "Error: negative amount: -5 (line 2" in outcome.incident


def test_a_syntax_error_is_refused_before_the_first_step(bpmn: Bpmn) -> None:
    path = bpmn(one_task(js_task("T", "var total = ;")))
    with Engine(scratch_db()) as engine:
        with pytest.raises(LoadError) as error:
            engine.start(path)
        assert engine.instances() == []
    assert "SyntaxError" in error.value.message
    assert (error.value.file, error.value.element_id) == (str(path), "T")
    assert error.value.line


def test_a_condition_syntax_error_names_its_flow(bpmn: Bpmn) -> None:
    path = bpmn(gateway(js_flow("G", "Big", "total >* 3"), js_flow("G", "Small", "true")))
    with Engine(scratch_db()) as engine, pytest.raises(LoadError) as error:
        engine.start(path)
    assert error.value.element_id == "G_Big"
    assert "SyntaxError" in error.value.message


def test_validate_reports_a_syntax_error(bpmn: Bpmn) -> None:
    path = bpmn(one_task(js_task("T", "var total = ;")))
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    errors = [f for f in findings if f.severity == Severity.ERROR]
    assert [(f.element, "SyntaxError" in f.message) for f in errors] == [("T", True)]


def test_validate_accepts_good_javascript(bpmn: Bpmn) -> None:
    path = bpmn(gateway(js_flow("G", "Big", "a > 1"), js_flow("G", "Small", "a <= 1")))
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    assert [f for f in findings if f.severity == Severity.ERROR] == []


@pytest.fixture
def without_the_extra(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine without mini-racer, whatever this one has: importing it fails."""
    monkeypatch.setitem(sys.modules, "py_mini_racer", None)
    _compile_expression.cache_clear()
    _compile_script.cache_clear()
    yield
    _compile_expression.cache_clear()
    _compile_script.cache_clear()


@pytest.mark.parametrize(
    "body",
    [
        one_task(js_task("T", "execution.setVariable('a', 1)")),
        gateway(js_flow("G", "Big", "a > 1"), js_flow("G", "Small", "a <= 1")),
    ],
    ids=["script", "condition"],
)
def test_without_the_extra_run_refuses_naming_it(
    bpmn: Bpmn, without_the_extra: None, body: str
) -> None:
    path = bpmn(body)
    with Engine(scratch_db()) as engine:
        with pytest.raises(LoadError) as error:
            engine.start(path)
        assert engine.instances() == []
    assert "pip install 'bpmn-engine[js]'" in error.value.message
    assert error.value.file == str(path) and error.value.line and error.value.element_id


def test_without_the_extra_validate_refuses_naming_it(bpmn: Bpmn, without_the_extra: None) -> None:
    path: Path = bpmn(one_task(js_task("T", "execution.setVariable('a', 1)")))
    findings = [f for f in validate([path]).findings if f.rule == "executable"]
    errors = [f for f in findings if f.severity == Severity.ERROR]
    assert [f.element for f in errors if "bpmn-engine[js]" in f.message] == ["T"]


@pytest.mark.parametrize("condition", ["1", "'yes'", "null", "[]", "execution.getVariable('no')"])
def test_a_condition_must_be_a_boolean_as_in_camunda(
    bpmn: Bpmn, engine: Engine, condition: str
) -> None:
    # Camunda 7's ScriptCondition: "condition script returns non-Boolean" (or null)
    path = bpmn(gateway(js_flow("G", "Big", condition), js_flow("G", "Small", "true")))
    outcome = engine.start(path).run()
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert "a condition must be a boolean" in outcome.incident


def test_javascript_as_the_definitions_expression_language(tmp_path: Path, engine: Engine) -> None:
    body = gateway(
        flow("G", "Big", "BigFlow", "typeof amount === 'number' && amount > 1"),
        flow("G", "Small", "SmallFlow", "!(amount > 1)"),
    )
    path = tmp_path / "js-default.bpmn"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + HEADER.replace('id="d"', 'id="d" expressionLanguage="javascript"')
        + f'\n<process id="p" isExecutable="true">\n{body}\n</process>\n</definitions>\n'
    )
    outcome = engine.start(path, variables={"amount": 5}).run()
    assert (outcome.state, outcome.variables["took"]) == ("completed", "Big")
