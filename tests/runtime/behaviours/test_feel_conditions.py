"""FEEL conditions in a running process: null is false (with a warning in the history), a
non-boolean is an incident, and JSON variables reach FEEL as its values."""

from __future__ import annotations

from bpmn_engine import Engine
from tests.runtime.behaviours.test_gateways import exclusive
from tests.runtime.conftest import Bpmn, events_named, flow


def test_a_null_condition_is_false_and_warns(bpmn: Bpmn, engine: Engine) -> None:
    # given: the first condition reads a variable that is not set
    path = bpmn(
        exclusive(
            flow("G", "A", "ToA", "=missing > 1") + flow("G", "B", "ToB", "=x > 1"),
        )
    )
    instance = engine.start(path, variables={"x": 10})
    # when
    outcome = instance.run()
    # then: A's flow is not taken, and the warning names the expression
    assert outcome.variables["took"] == "B"
    warnings = [e.data["message"] for e in events_named(instance, "warning")]
    assert any("=missing > 1" in w and "unknown variable 'missing'" in w for w in warnings)


def test_a_non_boolean_feel_condition_is_an_incident(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(exclusive(flow("G", "A", "ToA", '="yes"') + flow("G", "B", "ToB", "=true")))
    outcome = engine.start(path).run()
    assert outcome.state == "failed"
    assert "a condition must be a boolean" in outcome.incident


def test_a_date_condition_over_a_json_string(bpmn: Bpmn, engine: Engine) -> None:
    path = bpmn(
        exclusive(
            flow("G", "A", "ToA", '=date(due) + duration("P1D") > date("2026-12-01")')
            + flow("G", "B", "ToB", "=true")
        )
    )
    outcome = engine.start(path, variables={"due": "2026-12-01"}).run()
    assert outcome.variables["took"] == "A"
