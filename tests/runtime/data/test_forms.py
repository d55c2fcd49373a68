"""Completing a user task checks its form fields: types converted as Camunda converts a
submitted form, enum values, and validation constraints; a bad value commits nothing."""

from __future__ import annotations

from typing import Any

import pytest

from bpmn_engine import Engine, Instance
from bpmn_engine.errors import UsageError
from tests.runtime.conftest import Bpmn, flow

FIELDS = (
    '<camunda:formField id="approved" type="boolean"/>'
    '<camunda:formField id="count" type="long">'
    '<camunda:validation><camunda:constraint name="min" config="1"/>'
    '<camunda:constraint name="max" config="10"/></camunda:validation></camunda:formField>'
    '<camunda:formField id="note" type="string">'
    '<camunda:validation><camunda:constraint name="required"/>'
    '<camunda:constraint name="maxlength" config="5"/></camunda:validation></camunda:formField>'
    '<camunda:formField id="when" type="date"/>'
    '<camunda:formField id="size" type="enum">'
    '<camunda:value id="s" name="Small"/><camunda:value id="l" name="Large"/></camunda:formField>'
    '<camunda:formField id="fixed" type="string">'
    '<camunda:validation><camunda:constraint name="readonly"/></camunda:validation>'
    "</camunda:formField>"
)
FORM = (
    '<startEvent id="S"/><userTask id="Review" name="Review it"><extensionElements>'
    f"<camunda:formData>{FIELDS}</camunda:formData></extensionElements></userTask>"
    '<endEvent id="E"/>' + flow("S", "Review") + flow("Review", "E")
)


def waiting(bpmn: Bpmn, engine: Engine) -> Instance:
    instance = engine.start(bpmn(FORM))
    assert instance.run().state == "waiting"
    return instance


def test_values_are_converted_as_camunda_converts_a_form(bpmn: Bpmn, engine: Engine) -> None:
    instance = waiting(bpmn, engine)
    values = {"approved": "false", "count": "7", "note": 12, "when": "24/12/2026", "size": "l"}
    instance.complete_task("Review", values)
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.variables == {
        "approved": False,
        "count": 7,
        "note": "12",
        "when": "24/12/2026",
        "size": "l",
    }


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"approved": "maybe", "note": "x"}, "'approved' = 'maybe': not a boolean"),
        ({"approved": 1, "note": "x"}, "'approved' = 1: not a boolean"),
        ({"count": 4.5, "note": "x"}, "'count' = 4.5: not a whole number"),
        ({"count": True, "note": "x"}, "'count' = True: not a whole number"),
        ({"count": 2**70, "note": "x"}, "out of the range of a long"),
        ({"count": 0, "note": "x"}, "'count' = 0: less than the minimum 1"),
        ({"count": "11", "note": "x"}, "'count' = 11: more than the maximum 10"),
        ({"approved": True}, "'note' = None: required"),
        ({"note": ""}, "'note' = '': required"),
        ({"note": "too long"}, "'note' = 'too long': longer than 5 characters"),
        ({"note": ["x"]}, "'note' = ['x']: not a string"),
        ({"note": "x", "when": "tomorrow"}, "'when' = 'tomorrow': not a date"),
        ({"note": "x", "size": "xl"}, "'size' = 'xl': not one of s, l"),
        ({"note": "x", "fixed": "y"}, "'fixed' = 'y': read-only"),
    ],
)
def test_a_value_that_does_not_fit_is_refused_and_nothing_is_committed(
    bpmn: Bpmn, engine: Engine, values: dict[str, Any], message: str
) -> None:
    instance = waiting(bpmn, engine)
    before = engine.store.snapshot(instance.id)
    with pytest.raises(UsageError, match="user task Review \\(Review it\\): form field") as error:
        instance.complete_task("Review", values)
    assert message in str(error.value)
    assert engine.store.snapshot(instance.id) == before
    assert engine.instance(instance.id).outcome().state == "waiting"


def test_activiti_form_properties_are_checked_too(bpmn: Bpmn, engine: Engine) -> None:
    body = FORM.replace(
        f"<camunda:formData>{FIELDS}</camunda:formData>",
        '<activiti:formProperty xmlns:activiti="http://activiti.org/bpmn" id="ok" '
        'type="boolean" required="true"/>',
    )
    instance = engine.start(bpmn(body))
    instance.run()
    with pytest.raises(UsageError, match="'ok' = None: required"):
        instance.complete_task("Review", {})
    instance.complete_task("Review", {"ok": "TRUE"})
    assert instance.run().variables == {"ok": True}
