"""Splits: exclusive, parallel and inclusive gateways, and conditional flows out of tasks."""

from __future__ import annotations

import pytest

from bpmn_engine import Engine
from bpmn_engine.validate import validate
from bpmn_engine.validate.findings import Severity
from tests.runtime.conftest import Bpmn, activations, events_named, flow, lifecycle, script

# --- exclusive gateway ----------------------------------------------------------------------


def exclusive(flows: str, default: str | None = None) -> str:
    """S -> G; G -> A | B | C (scripts that record themselves) -> E."""
    attr = f' default="{default}"' if default else ""
    return (
        f'<startEvent id="S"/><exclusiveGateway id="G"{attr}/>'
        + script("A", "took = 'A'")
        + script("B", "took = 'B'")
        + script("C", "took = 'C'")
        + '<endEvent id="E"/>'
        + flow("S", "G")
        + flows
        + flow("A", "E")
        + flow("B", "E")
        + flow("C", "E")
    )


def test_exclusive_gateway_takes_the_first_true_condition_in_document_order(
    bpmn: Bpmn, engine: Engine
):
    # given: B's flow comes first in the document, and both B's and A's conditions hold
    path = bpmn(
        exclusive(
            flow("G", "C", "ToC", "x > 100")
            + flow("G", "B", "ToB", "x > 5")
            + flow("G", "A", "ToA", "x > 1")
        )
    )
    instance = engine.start(path, variables={"x": 10})
    # when
    outcome = instance.run()
    # then
    assert outcome.variables["took"] == "B"
    assert activations(instance) == ["S", "G", "B", "E"]
    taken = [e.data["flow"] for e in events_named(instance, "flow.taken") if e.element == "G"]
    assert taken == ["ToB"]


def test_exclusive_gateway_takes_the_default_flow_when_no_condition_holds(
    bpmn: Bpmn, engine: Engine
):
    # given: the default flow is listed first and has no condition
    path = bpmn(
        exclusive(
            flow("G", "C", "ToC")
            + flow("G", "A", "ToA", "x > 100")
            + flow("G", "B", "ToB", "x < 0"),
            default="ToC",
        )
    )
    # when
    outcome = engine.start(path, variables={"x": 10}).run()
    # then
    assert outcome.variables["took"] == "C"


def test_exclusive_gateway_prefers_a_true_condition_over_the_default_flow(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn(exclusive(flow("G", "C", "ToC") + flow("G", "A", "ToA", "x > 1"), default="ToC"))
    # when
    outcome = engine.start(path, variables={"x": 10}).run()
    # then
    assert outcome.variables["took"] == "A"


def test_exclusive_gateway_with_no_true_condition_and_no_default_fails_naming_the_gateway(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn(exclusive(flow("G", "A", "ToA", "x > 100") + flow("G", "B", "ToB", "x < 0")))
    instance = engine.start(path, variables={"x": 10})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident is not None
    assert outcome.incident.startswith("G: ")
    [incident] = events_named(instance, "incident.created")
    assert incident.element == "G"
    assert instance.tokens()[0]["element"] == "G"
    assert instance.tokens()[0]["state"] == "failed"
    assert "took" not in outcome.variables


def test_a_condition_on_an_unknown_variable_is_an_incident_at_the_gateway(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn(exclusive(flow("G", "A", "ToA", "missing > 1") + flow("G", "B", "ToB")))
    instance = engine.start(path, variables={"x": 1})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "failed"
    assert (outcome.incident or "").startswith("G: ")
    assert [e.element for e in events_named(instance, "incident.created")] == ["G"]


@pytest.mark.parametrize(
    ("condition", "variables", "took"),
    [
        ("${x > 5}", {"x": 6}, "A"),
        ("${x > 5}", {"x": 5}, "B"),
        ("${approved}", {"approved": True}, "A"),
        ("${approved}", {"approved": False}, "B"),
        ("${!ok && kind == 'x'}", {"ok": False, "kind": "x"}, "A"),
        ("${!ok && kind == 'x'}", {"ok": True, "kind": "x"}, "B"),
        ("x > 5", {"x": 6}, "A"),
        ("x > 5", {"x": 4}, "B"),
        ("approved and x < 3", {"approved": True, "x": 1}, "A"),
        ("=x > 5", {"x": 6}, "A"),
        ("=x > 5", {"x": 1}, "B"),
    ],
)
def test_exclusive_gateway_conditions_in_juel_python_and_feel(
    bpmn: Bpmn, engine: Engine, condition: str, variables: dict, took: str
):
    # given
    path = bpmn(exclusive(flow("G", "A", "ToA", condition) + flow("G", "B", "ToB"), "ToB"))
    # when
    outcome = engine.start(path, variables=variables).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["took"] == took


def test_exclusive_gateway_stops_evaluating_at_the_first_true_condition(bpmn: Bpmn, engine: Engine):
    # given: the second condition could not be evaluated
    path = bpmn(exclusive(flow("G", "A", "ToA", "x > 1") + flow("G", "B", "ToB", "missing > 1")))
    # when
    outcome = engine.start(path, variables={"x": 5}).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables["took"] == "A"


def test_exclusive_merge_passes_each_token_through(bpmn: Bpmn, engine: Engine):
    # given: two parallel tokens meet at an exclusive gateway
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><task id="A"/><task id="B"/>'
        '<exclusiveGateway id="Merge"/>'
        + script("Count", "count = count + 1")
        + '<endEvent id="E"/>'
        + flow("S", "Fork")
        + flow("Fork", "A")
        + flow("Fork", "B")
        + flow("A", "Merge")
        + flow("B", "Merge")
        + flow("Merge", "Count")
        + flow("Count", "E")
    )
    instance = engine.start(path, variables={"count": 0})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"count": 2}
    assert activations(instance, "Merge") == ["Merge", "Merge"]
    assert activations(instance, "Count") == ["Count", "Count"]
    assert activations(instance, "E") == ["E", "E"]


# --- parallel gateway -----------------------------------------------------------------------


def test_parallel_fork_creates_a_track_per_extra_flow_and_the_parent_takes_the_first(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/>'
        '<userTask id="A"/><userTask id="B"/><userTask id="C"/>'
        + flow("S", "Fork")
        + flow("Fork", "B", "ToB")
        + flow("Fork", "A", "ToA")
        + flow("Fork", "C", "ToC")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "waiting"
    created = events_named(instance, "track.created")
    assert [(e.element, e.track, e.data) for e in created] == [
        ("A", 2, {"parent": 1, "flow": "ToA"}),
        ("C", 3, {"parent": 1, "flow": "ToC"}),
    ]
    assert instance.tokens() == [
        {"track": 1, "element": "B", "state": "waiting", "scope": 1, "via": "ToB"},
        {"track": 2, "element": "A", "state": "waiting", "scope": 1, "via": "ToA"},
        {"track": 3, "element": "C", "state": "waiting", "scope": 1, "via": "ToC"},
    ]
    assert sorted(w["element"] for w in outcome.waiting_for) == ["A", "B", "C"]


def test_parallel_fork_ignores_conditions_on_its_outgoing_flows(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/>'
        + script("A", "a = 1")
        + script("B", "b = 1")
        + flow("S", "Fork")
        + flow("Fork", "A", "ToA", "1 > 2")
        + flow("Fork", "B", "ToB", "${false}")
    )
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"a": 1, "b": 1}


# --- inclusive gateway ----------------------------------------------------------------------


def inclusive_split(flows: str, default: str | None = None) -> str:
    attr = f' default="{default}"' if default else ""
    return (
        f'<startEvent id="S"/><inclusiveGateway id="G"{attr}/>'
        + script("A", "a = 1")
        + script("B", "b = 1")
        + script("C", "c = 1")
        + flow("S", "G")
        + flows
    )


def test_inclusive_split_takes_every_flow_whose_condition_holds(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        inclusive_split(
            flow("G", "A", "ToA", "x > 1")
            + flow("G", "B", "ToB", "x > 100")
            + flow("G", "C", "ToC", "x > 2")
        )
    )
    instance = engine.start(path, variables={"x": 10})
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "completed"
    assert outcome.variables == {"x": 10, "a": 1, "c": 1}
    assert [e.data["flow"] for e in events_named(instance, "flow.taken") if e.element == "G"] == [
        "ToA",
        "ToC",
    ]
    assert [(e.element, e.data["flow"]) for e in events_named(instance, "track.created")] == [
        ("C", "ToC")
    ]


def test_inclusive_split_takes_the_default_only_when_no_condition_holds(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        inclusive_split(
            flow("G", "A", "ToA", "x > 100")
            + flow("G", "B", "ToB", "x > 200")
            + flow("G", "C", "ToC"),
            default="ToC",
        )
    )
    # when
    none_true = engine.start(path, variables={"x": 10}).run()
    one_true = engine.start(path, variables={"x": 150}).run()
    # then
    assert none_true.variables == {"x": 10, "c": 1}
    assert one_true.variables == {"x": 150, "a": 1}


def test_inclusive_split_with_no_true_condition_and_no_default_fails(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(inclusive_split(flow("G", "A", "ToA", "x > 100") + flow("G", "B", "ToB", "x < 0")))
    # when
    outcome = engine.start(path, variables={"x": 10}).run()
    # then
    assert outcome.state == "failed"
    assert (outcome.incident or "").startswith("G: ")


# --- flows out of activities ----------------------------------------------------------------


def test_conditional_flows_out_of_a_task_take_every_true_condition(bpmn: Bpmn, engine: Engine):
    # given: an uncontrolled split with conditions
    path = bpmn(
        '<startEvent id="S"/><task id="T"/>'
        + script("A", "a = 1")
        + script("B", "b = 1")
        + script("C", "c = 1")
        + flow("S", "T")
        + flow("T", "A", "ToA", "x > 1")
        + flow("T", "B", "ToB", "x > 100")
        + flow("T", "C", "ToC", "${x > 2}")
    )
    instance = engine.start(path, variables={"x": 10})
    # when
    outcome = instance.run()
    # then
    assert outcome.variables == {"x": 10, "a": 1, "c": 1}
    assert [e.element for e in events_named(instance, "track.created")] == ["C"]


def test_default_flow_out_of_a_task_is_taken_only_when_no_condition_holds(
    bpmn: Bpmn, engine: Engine
):
    # given
    path = bpmn(
        '<startEvent id="S"/><task id="T" default="ToB"/>'
        + script("A", "a = 1")
        + script("B", "b = 1")
        + flow("S", "T")
        + flow("T", "A", "ToA", "x > 5")
        + flow("T", "B", "ToB")
    )
    # when
    small = engine.start(path, variables={"x": 1}).run()
    large = engine.start(path, variables={"x": 9}).run()
    # then
    assert small.variables == {"x": 1, "b": 1}
    assert large.variables == {"x": 9, "a": 1}


def test_a_task_whose_conditions_are_all_false_without_default_fails(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn(
        '<startEvent id="S"/><task id="T"/><endEvent id="E"/>'
        + flow("S", "T")
        + flow("T", "E", "ToE", "x > 5")
    )
    # when
    outcome = engine.start(path, variables={"x": 1}).run()
    # then
    assert outcome.state == "failed"
    assert (outcome.incident or "").startswith("T: ")


def test_a_task_with_two_unconditioned_outgoing_flows_forks(bpmn: Bpmn, engine: Engine):
    # given: an implicit parallel split
    path = bpmn(
        '<startEvent id="S"/><task id="T"/><userTask id="A"/><userTask id="B"/>'
        + flow("S", "T")
        + flow("T", "A", "ToA")
        + flow("T", "B", "ToB")
    )
    instance = engine.start(path)
    # when
    outcome = instance.run()
    # then
    assert outcome.state == "waiting"
    assert [(t["element"], t["state"]) for t in instance.tokens()] == [
        ("A", "waiting"),
        ("B", "waiting"),
    ]
    assert lifecycle(instance).count(("element.completed", "T")) == 1


def test_an_exclusive_gateway_without_conditions_takes_its_first_flow_and_says_so(
    bpmn: Bpmn, engine: Engine
):
    """As Camunda 7 and bpmn-engine: a flow without a condition holds; it was an incident."""
    # given: flows written zz before aa, so document order is not id order
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="G"/><endEvent id="E1"/><endEvent id="E2"/>'
        + flow("S", "G")
        + flow("G", "E1", "zz")
        + flow("G", "E2", "aa")
    )
    # when
    instance = engine.start(path)
    outcome = instance.run()
    # then
    assert (outcome.state, outcome.end_event) == ("completed", "E1")
    [warning] = [e for e in events_named(instance, "warning") if e.element == "G"]
    assert "no conditions" in warning.data["message"] and "'zz'" in warning.data["message"]
    findings = validate([path]).findings
    [finding] = [f for f in findings if f.element == "G" and f.rule == "executable"]
    assert finding.severity == Severity.WARNING and "'zz'" in finding.message


def test_in_a_process_not_marked_executable_such_a_gateway_is_an_incident(
    bpmn: Bpmn, engine: Engine
):
    """A descriptive diagram's fork says nothing to run (MIWG C.2.0's first flow loops back
    for ever): there it stays an incident, as before."""
    # given
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="G"/><endEvent id="E1"/><endEvent id="E2"/>'
        + flow("S", "G")
        + flow("G", "E1", "zz")
        + flow("G", "E2", "aa"),
        process='id="p" isExecutable="false"',
    )
    # when
    outcome = engine.start(path).run()
    # then
    assert outcome.state == "failed"
    assert outcome.incident.startswith("G: exclusive gateway with 2 outgoing flows")
    assert "not marked executable" in outcome.incident
