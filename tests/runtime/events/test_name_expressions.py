"""A message's or signal's name with an expression in it is evaluated when a token reaches
the event: Camunda 7's `invoice-${id}` (docs: "Expressions" on message and signal events),
Zeebe's `=` FEEL name, Activiti's and Flowable's `messageExpression`. They were waited for and
thrown under their written text (`invoice-${id}`), or, for `messageExpression`, as a wait for
`bpmn trigger`: a wrong answer without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from bpmn_engine import Engine
from tests.runtime.conftest import HEADER, flow

ACTIVITI = 'xmlns:activiti="http://activiti.org/bpmn" '


def write(tmp_path: Path, roots: str, body: str, header: str = HEADER) -> Path:
    path = tmp_path / "names.bpmn"
    path.write_text(
        f'<?xml version="1.0"?>\n{header}{roots}<process id="p" isExecutable="true">{body}'
        "</process></definitions>",
        encoding="utf-8",
    )
    return path


def catching(definition: str) -> str:
    return (
        f'<startEvent id="s"/>{flow("s", "c")}<intermediateCatchEvent id="c">{definition}'
        f'</intermediateCatchEvent>{flow("c", "e")}<endEvent id="e"/>'
    )


CASES = {
    "camunda text": (
        '<message id="m" name="invoice-${id}"/>',
        '<messageEventDefinition messageRef="m"/>',
    ),
    "zeebe feel": (
        '<message id="m" name="=&quot;invoice-&quot; + string(id)"/>',
        '<messageEventDefinition messageRef="m"/>',
    ),
    "activiti": ("", '<messageEventDefinition activiti:messageExpression="invoice-${id}"/>'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_message_name_with_an_expression_is_waited_for_as_evaluated(
    tmp_path: Path, engine: Engine, case: str
) -> None:
    roots, definition = CASES[case]
    header = HEADER.replace("<definitions ", f"<definitions {ACTIVITI}")
    instance = engine.start(
        write(tmp_path, roots, catching(definition), header), variables={"id": 7}
    )

    outcome = instance.run()

    assert outcome.state == "waiting"
    assert [(w["reason"], w["name"]) for w in outcome.waiting_for] == [("message", "invoice-7")]
    assert engine.publish_message("invoice-${id}", None, {}) == []  # the text is no name
    [woken] = engine.publish_message("invoice-7", None, {"paid": True})
    assert woken.run().state == "completed"


def test_a_name_whose_variable_is_missing_is_an_incident_naming_it(
    tmp_path: Path, engine: Engine
) -> None:
    path = write(tmp_path, CASES["camunda text"][0], catching(CASES["camunda text"][1]))
    outcome = engine.start(path).run()
    assert outcome.state == "failed"
    assert "message name" in str(outcome.incident) and "'id'" in str(outcome.incident)


def test_a_thrown_signal_and_its_catch_meet_under_the_evaluated_name(
    tmp_path: Path, engine: Engine
) -> None:
    # given: a catcher per region, and a thrower of one region's alarm
    roots = '<signal id="sig" name="alarm-${region}"/>'
    throwing = (
        '<startEvent id="s2"/><intermediateThrowEvent id="t"><signalEventDefinition '
        f'signalRef="sig"/></intermediateThrowEvent><endEvent id="e2"/>{flow("s2", "t")}'
        + flow("t", "e2")
    )
    body = catching('<signalEventDefinition signalRef="sig"/>')
    path = write(
        tmp_path, roots, body + '</process><process id="q" isExecutable="true">' + throwing
    )
    north = engine.start(path, "p", variables={"region": "north"})
    south = engine.start(path, "p", variables={"region": "south"})
    assert north.run().state == south.run().state == "waiting"
    assert [w["name"] for w in north.outcome().waiting_for] == ["alarm-north"]

    # when: the thrower throws north's
    assert engine.start(path, "q", variables={"region": "north"}).run().state == "completed"

    # then: north's catch took it, south's did not
    assert engine.instance(north.id).run().state == "completed"
    assert engine.instance(south.id).run().state == "waiting"
