"""Dialects: SpiffWorkflow's Python timers and conditions, `expressionLanguage` on the
definitions and `language` on one expression, and sequence flows without an id."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.runtime.clock import VirtualClock
from bpmn_engine.runtime.events.timers import is_timer_expression
from tests.postgresql_server import scratch_db
from tests.runtime.conftest import Bpmn, activations, flow

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
SPIFF = (
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="d" targetNamespace="t"{extra}>'
    '<bpmn:process id="p" isExecutable="true">{body}</bpmn:process></bpmn:definitions>'
)


def spiff(tmp_path: Path, body: str, extra: str = "") -> Path:
    path = tmp_path / "spiff.bpmn"
    path.write_text(SPIFF.format(body=body, extra=extra), encoding="utf-8")
    return path


def timer_process(value: str, language: str = "") -> str:
    lang = f' language="{language}"' if language else ""
    return (
        '<bpmn:startEvent id="S"/>'
        '<bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition>'
        f'<bpmn:timeDuration xsi:type="bpmn:tFormalExpression"{lang}>{value}</bpmn:timeDuration>'
        "</bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>"
        '<bpmn:endEvent id="E"/>'
        '<bpmn:sequenceFlow id="f1" sourceRef="S" targetRef="wait"/>'
        '<bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="E"/>'
    )


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("PT5M", False),
        ("R3/PT10M", False),
        ("2026-05-01T09:00:00Z", False),
        ("0 0 12 * * ?", False),
        ("*/5 * * * *", False),
        ("PT5X", False),  # malformed, but a literal: reported as a malformed duration
        ('"PT0.25S"', True),
        ("delay", True),
        ("${delay}", True),
        ("=delay", True),
    ],
)
def test_a_timer_value_is_a_literal_unless_it_cannot_start_like_one(
    text: str, expression: bool
) -> None:
    assert is_timer_expression(text) is expression


def test_a_spiff_quoted_timer_is_a_python_string_expression(tmp_path: Path) -> None:
    # given: SpiffWorkflow writes the duration as a Python string literal
    clock = VirtualClock(START)
    path = spiff(tmp_path, timer_process('"PT0.25S"'))
    # when
    outcome = Engine(scratch_db(), clock=clock).start(path).run()
    # then
    assert outcome.state == "completed"
    assert clock.now() == START + timedelta(seconds=0.25)


def test_a_timer_naming_a_variable_waits_for_its_value(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    path = spiff(tmp_path, timer_process("delay"))
    outcome = Engine(scratch_db(), clock=clock).start(path, variables={"delay": "PT2H"}).run()
    assert outcome.state == "completed"
    assert clock.now() == START + timedelta(hours=2)


def test_a_feel_timer_expression_follows_the_definitions_language(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    feel = ' expressionLanguage="http://www.omg.org/spec/FEEL/20140401"'
    path = spiff(tmp_path, timer_process('"PT" + m + "M"'), feel)
    outcome = Engine(scratch_db(), clock=clock).start(path, variables={"m": "3"}).run()
    assert outcome.state == "completed"
    assert clock.now() == START + timedelta(minutes=3)


def test_an_xpath_timer_expression_is_refused_before_the_first_step(tmp_path: Path) -> None:
    path = spiff(tmp_path, timer_process("$delay", "http://www.w3.org/1999/XPath"))
    with pytest.raises(LoadError, match="XPath") as error:
        Engine(scratch_db()).start(path)
    assert error.value.element_id == "wait" and error.value.line


def test_an_xpath_literal_timer_still_runs(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    path = spiff(tmp_path, timer_process("PT2H", "http://www.w3.org/1999/XPath"))
    assert Engine(scratch_db(), clock=clock).start(path).run().state == "completed"


def gateway(condition_yes: str, condition_no: str) -> str:
    def cond(fid: str, target: str, text: str) -> str:
        text = text.replace("<", "&lt;").replace(">", "&gt;")
        return (
            f'<bpmn:sequenceFlow id="{fid}" sourceRef="G" targetRef="{target}">'
            f'<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">{text}'
            "</bpmn:conditionExpression></bpmn:sequenceFlow>"
        )

    return (
        '<bpmn:startEvent id="S"/><bpmn:exclusiveGateway id="G"/>'
        '<bpmn:task id="Yes"/><bpmn:task id="No"/>'
        '<bpmn:sequenceFlow id="f0" sourceRef="S" targetRef="G"/>'
        + cond("fy", "Yes", condition_yes)
        + cond("fn", "No", condition_no)
    )


def test_spiff_python_conditions_choose_the_flow(tmp_path: Path) -> None:
    path = spiff(tmp_path, gateway("answer == 'yes'", "answer != 'yes'"))
    instance = Engine(scratch_db()).start(path, variables={"answer": "yes"})
    instance.run()
    assert "Yes" in activations(instance) and "No" not in activations(instance)


def test_feel_on_the_definitions_makes_bare_conditions_feel(tmp_path: Path) -> None:
    # given: FEEL equality is `=`, and strings are double-quoted; neither is Python
    feel = ' expressionLanguage="http://www.omg.org/spec/FEEL/20140401"'
    path = spiff(tmp_path, gateway('answer = "yes"', 'answer != "yes"'), feel)
    # when
    instance = Engine(scratch_db()).start(path, variables={"answer": "yes"})
    instance.run()
    # then
    assert "Yes" in activations(instance) and "No" not in activations(instance)


def test_xpath_as_the_definitions_default_says_nothing(tmp_path: Path) -> None:
    xpath = ' expressionLanguage="http://www.w3.org/1999/XPath"'
    path = spiff(tmp_path, gateway("answer == 'yes'", "answer != 'yes'"), xpath)
    instance = Engine(scratch_db()).start(path, variables={"answer": "no"})
    instance.run()
    assert "No" in activations(instance)


def test_an_xpath_condition_is_refused_naming_its_flow(tmp_path: Path) -> None:
    body = gateway("answer == 'yes'", "true").replace(
        'tFormalExpression">true', 'tFormalExpression" language="XPath">true'
    )
    with pytest.raises(LoadError, match="XPath") as error:
        Engine(scratch_db()).start(spiff(tmp_path, body))
    assert error.value.element_id == "fn"


def test_a_sequence_flow_without_an_id_runs_with_a_stable_generated_one(
    bpmn: Bpmn, engine: Engine
) -> None:
    # given: the XSD lets a sequence flow go without an id
    body = (
        '<startEvent id="S"/><task id="T"/><endEvent id="E"/>'
        '<sequenceFlow sourceRef="S" targetRef="T"/>' + flow("T", "E")
    )
    path = bpmn(body)
    # when
    instance = engine.start(path)
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert activations(instance) == ["S", "T", "E"]
    taken = [e.data["flow"] for e in instance.history() if e.event == "flow.taken"]
    assert taken == ["S->T#3", "T_E"]
    assert engine.instance(instance.id).run().state == "completed"
