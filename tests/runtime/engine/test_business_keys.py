"""Business keys: the key an instance is known by (Camunda's), given at start or passed on by
its caller (`<camunda:in businessKey="#{execution.processBusinessKey}"/>`)."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine, LoadError, UsageError
from tests.runtime.conftest import Bpmn, flow

WAITS = '<startEvent id="S"/><userTask id="U"/><endEvent id="E"/>' + flow("S", "U") + flow("U", "E")


def test_an_instance_keeps_the_business_key_it_was_started_with(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(WAITS)
    # when
    keyed = engine.start(path, business_key="ORDER-7")
    keyed.run()
    plain = engine.start(path)
    plain.run()
    # then: kept in its row, found by it, and said when it started
    assert engine.instance(keyed.id).business_key == "ORDER-7"
    assert engine.instance(plain.id).business_key is None
    assert [r["id"] for r in engine.instances(business_key="ORDER-7")] == [keyed.id]
    [started] = [e for e in keyed.history() if e.event == "instance.started"]
    assert started.data["business_key"] == "ORDER-7"


def call(key_mapping: str) -> str:
    return (
        '<startEvent id="S"/><callActivity id="C" calledElement="child"><extensionElements>'
        f'{key_mapping}</extensionElements></callActivity><endEvent id="E"/>'
        + flow("S", "C")
        + flow("C", "E")
        + '</process><process id="child" isExecutable="true">'
        + WAITS.replace('"S"', '"CS"')
        .replace('"U"', '"CU"')
        .replace('"E"', '"CE"')
        .replace("S_U", "CS_CU")
        .replace("U_E", "CU_CE")
    )


@pytest.mark.parametrize(
    ("mapping", "key"),
    [
        ('<camunda:in businessKey="#{execution.processBusinessKey}"/>', "ORDER-7"),
        ('<camunda:in businessKey="${order}"/>', "A-1"),
        ("", None),
    ],
)
def test_a_call_activity_passes_the_business_key_camunda_in_names(
    bpmn: Bpmn, engine: Engine, mapping: str, key: str | None
):
    # given
    path = bpmn(call(mapping))
    # when
    parent = engine.start(path, "p", {"order": "A-1"}, business_key="ORDER-7")
    parent.run()
    # then
    [child] = [r for r in engine.instances() if r["parent_instance"] == parent.id]
    assert child["business_key"] == key
    assert engine.instance(child["id"]).business_key == key


def test_a_business_key_expression_that_does_not_compile_is_refused_before_the_start(
    bpmn: Bpmn, engine: Engine
):
    path = bpmn(call('<camunda:in businessKey="${order +}"/>'))
    with pytest.raises(LoadError) as refused:
        engine.start(path, "p", {"order": "A-1"})
    assert refused.value.element_id == "C"


def test_a_business_key_is_text(bpmn: Bpmn, engine: Engine):
    with pytest.raises(UsageError, match="a business key is text"):
        engine.start(bpmn(WAITS), business_key=7)  # type: ignore[arg-type]
